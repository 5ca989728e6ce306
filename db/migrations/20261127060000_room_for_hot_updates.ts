// Why: an invoice row is written once and then updated by each step of its flow (its chunk, its
// signature, Hacienda's interim state, its booking, its payment at issue, its verdict). With full
// pages every update became a new tuple on another page and a new entry in each of the table's
// fourteen indexes. Leaving room on each page lets the updates that change no indexed column (the
// chunk, signed_at, hacienda_status, accounted_at) stay on the same page as heap-only tuples,
// which touch no index. The submissions and stored documents are updated once each the same way.
// The setting applies to pages filled from now on; existing pages keep their fill.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table invoices set (fillfactor = 70)');
  await knex.raw('alter table hacienda_submissions set (fillfactor = 80)');
  await knex.raw('alter table invoice_documents set (fillfactor = 80)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table invoices reset (fillfactor)');
  await knex.raw('alter table hacienda_submissions reset (fillfactor)');
  await knex.raw('alter table invoice_documents reset (fillfactor)');
}
