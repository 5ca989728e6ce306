// Why: Hacienda accepts some documents with observations (Mensaje 1 with rows such as -16, sent
// late, or -37, the emisor's location not as registered). They are kept on the invoice, written in
// the update that records the acceptance, and shown as its `warnings`. `[]` when there are none; a
// constant default, so adding the column rewrites no row.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table invoices add column warnings jsonb not null default '[]'::jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table invoices drop column warnings');
}
