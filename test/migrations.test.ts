import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationConfig } from '../db/migrator.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

describe('migrations', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t.drop();
  });

  it('go down and up again cleanly (up/down/up)', async () => {
    const before = await t.db('knex_migrations').count<{ count: string }[]>('* as count');
    await t.db.migrate.rollback(migrationConfig, true);
    const tables = await t.db.raw(`select count(*)::int as n from information_schema.tables
      where table_schema = 'public' and table_name in ('companies', 'clients', 'services', 'outbox')`);
    expect(tables.rows[0].n).toBe(0);
    await t.db.migrate.latest(migrationConfig);
    const after = await t.db('knex_migrations').count<{ count: string }[]>('* as count');
    expect(after[0]?.count).toBe(before[0]?.count);
  });

  it('keeps the client name search index without a pending list (every search would read it)', async () => {
    const res = await t.db.raw(`select reloptions from pg_class where relname = 'clients_search_name_idx'`);
    expect(res.rows[0].reloptions).toEqual(['fastupdate=off']);
  });
});
