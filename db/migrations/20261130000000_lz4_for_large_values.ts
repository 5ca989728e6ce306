// Why: every invoice stores several values above Postgres's 2 kB TOAST threshold (its signed XML,
// Hacienda's answer, the invoice object in its events, its idempotency record and its batch item),
// and each was compressed with pglz, which was about a tenth of the database's CPU in the
// end-to-end benchmark. lz4 compresses these documents several times faster for a slightly larger
// result. The setting applies to values written from now on; stored values keep their
// compression and read as before. A server built without lz4 keeps pglz (the check below).
import type { Knex } from 'knex';

const COLUMNS: [table: string, column: string][] = [
  ['invoice_documents', 'signed_xml'],
  ['invoice_documents', 'response_xml'],
  ['events', 'data'],
  ['idempotency_keys', 'response_body'],
  ['batch_items', 'request'],
  ['invoices', 'lines'],
  ['invoices', 'summary'],
  ['received_documents', 'signed_xml'],
  ['received_documents', 'answer_signed_xml'],
  ['received_documents', 'answer_response_xml'],
  ['invoice_pdfs', 'pdf'],
];

async function lz4Available(knex: Knex): Promise<boolean> {
  const res = await knex.raw(
    `select 'lz4' = any(enumvals) as ok from pg_settings where name = 'default_toast_compression'`,
  );
  return Boolean(res.rows[0]?.ok);
}

async function setCompression(knex: Knex, method: 'lz4' | 'default'): Promise<void> {
  for (const [table, column] of COLUMNS)
    await knex.raw('alter table ?? alter column ?? set compression ' + method, [table, column]);
}

export async function up(knex: Knex): Promise<void> {
  if (await lz4Available(knex)) await setCompression(knex, 'lz4');
}

export async function down(knex: Knex): Promise<void> {
  await setCompression(knex, 'default');
}
