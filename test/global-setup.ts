// Builds the migrated template database once per test run; each test file clones it
// (CREATE DATABASE … TEMPLATE), which takes milliseconds and keeps files independent.
import { createDb } from '../db/connection.ts';
import { migrateLatest } from '../db/migrator.ts';
import { adminUrl, TEMPLATE_DB, testDatabaseUrl } from './helpers/db-urls.ts';
import knexFactory from 'knex';

export default async function setup(): Promise<() => Promise<void>> {
  const admin = knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    // Leftovers of an earlier, interrupted run.
    const stale = await admin.raw(`select datname from pg_database where datname like 'factura_t_%'`);
    for (const row of stale.rows as { datname: string }[]) {
      await admin.raw('drop database if exists ?? with (force)', [row.datname]);
    }
    await admin.raw('drop database if exists ?? with (force)', [TEMPLATE_DB]);
    await admin.raw('create database ??', [TEMPLATE_DB]);
  } finally {
    await admin.destroy();
  }
  const db = createDb({ url: testDatabaseUrl(TEMPLATE_DB), poolMax: 1 });
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  return async () => {};
}
