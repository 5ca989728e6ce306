// Connection factory: one knex instance per process, with objection's snake_case mappers so
// models and query results use camelCase while columns stay snake_case.
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { knexSnakeCaseMappers } from 'objection';

// NUMERIC comes back as a string (exact money); BIGINT ids as JS numbers: they stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface DbOptions {
  url: string;
  /** Pool size; 2 cores do best with a small pool per process. */
  poolMax?: number;
  applicationName?: string;
}

export type Db = Knex;

export function createDb(options: DbOptions): Db {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: options.url, application_name: options.applicationName ?? 'factura' },
    pool: { min: 0, max: options.poolMax ?? 10 },
    acquireConnectionTimeout: 5_000,
    ...knexSnakeCaseMappers(),
  });
}

/** Connection errors that mean "the database is unreachable right now" rather than a bug. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: string; name?: string; message?: string };
  if (e.name === 'KnexTimeoutError') return true;
  if (
    e.code &&
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'ENOTFOUND',
      '57P01',
      '57P02',
      '57P03',
      '08006',
      '08001',
      '08003',
    ].includes(e.code)
  ) {
    return true;
  }
  return /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|not queryable|terminating connection|the database system is (starting up|shutting down|in recovery)/i.test(
    e.message ?? '',
  );
}
