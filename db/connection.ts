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

/**
 * SQLSTATEs of a statement that may well succeed when run again, whatever its data: a
 * serialization failure or deadlock (40001, 40P01), a lock not available (55P03), a cancelled
 * statement (57014: statement_timeout), the server short of resources (class 53).
 */
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '57014', '53000', '53100', '53200', '53300']);

/**
 * A failure of the database rather than of what was written (unreachable, restarting, a deadlock,
 * a timeout): the work is to be tried again, never recorded as the data's own failure.
 */
export function isTransientDatabaseError(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && TRANSIENT_SQLSTATES.has(code);
}
