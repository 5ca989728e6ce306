// Why: Hacienda may accept a company's answer to a received document (its MensajeReceptor) with
// observations, as it does with invoices (a bare table of rows such as -16). They are kept beside
// the answer's verdict, written in the same update, and shown as the answer's `warnings`. `[]` when
// there are none; a constant default, so adding the column rewrites no row.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table received_documents add column answer_warnings jsonb not null default '[]'::jsonb`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table received_documents drop column answer_warnings');
}
