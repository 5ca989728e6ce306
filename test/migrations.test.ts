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

  it('compresses large stored values with lz4 when the server has it, and they read back whole', async () => {
    const has = await t.db.raw(
      `select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'`,
    );
    const col = await t.db.raw(
      `select attcompression from pg_attribute
        where attrelid = 'invoice_documents'::regclass and attname = 'signed_xml'`,
    );
    expect(col.rows[0].attcompression).toBe(has.rows[0].ok ? 'l' : '');
    const value = Buffer.from('<FacturaElectronica>' + 'x'.repeat(20_000) + '</FacturaElectronica>');
    // One connection for the temporary table: a transaction (the table goes at its commit).
    const back = await t.db.transaction(async (trx) => {
      await trx.raw('create temp table lz4_probe (like invoice_documents including all) on commit drop');
      await trx.raw(`insert into lz4_probe (invoice_id, signed_xml) values (1, ?)`, [value]);
      const res = await trx.raw(
        `select signed_xml, pg_column_compression(signed_xml) as method from lz4_probe`,
      );
      return res;
    });
    expect(Buffer.compare(back.rows[0].signed_xml, value)).toBe(0);
    expect(back.rows[0].method).toBe(has.rows[0].ok ? 'lz4' : 'pglz');
  });
});
