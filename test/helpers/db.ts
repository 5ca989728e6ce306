// A fresh database per test file, cloned from the migrated template. Its name carries the run's
// pid (the template's), and the run drops its databases together at its end (global-setup.ts):
// each DROP DATABASE forces a checkpoint, which stalls every other file's writes mid-run.
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { createDb, type Db } from '../../db/connection.ts';
import { inject } from 'vitest';
import { adminUrl, runDatabasePrefix, testDatabaseUrl } from './db-urls.ts';

export interface TestDatabase {
  db: Db;
  url: string;
  name: string;
  /** Closes its connections; the database is dropped at the end of the run. */
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const template = inject('templateDb');
  const name = `${runDatabasePrefix(template)}${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    await admin.raw('create database ?? template ??', [name, template]);
  } finally {
    await admin.destroy();
  }
  const url = testDatabaseUrl(name);
  const db = createDb({ url, poolMax: 10 });
  return {
    db,
    url,
    name,
    async drop() {
      await db.destroy();
    },
  };
}
