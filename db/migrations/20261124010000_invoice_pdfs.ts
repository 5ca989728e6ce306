// Why: the representación gráfica (PDF) of a document is rendered on demand, which costs a few
// hundred milliseconds of CPU; a document is read and emailed many times, so the rendered bytes
// are kept. Each copy carries the state it was rendered for (layout version, invoice status and
// Hacienda's state): when the state changes the key no longer matches, the copy is never served
// again and the next read renders and replaces it. One row per invoice.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoice_pdfs', (t) => {
    t.bigInteger('invoice_id')
      .primary({ constraintName: 'invoice_pdfs_pkey' })
      .references('invoices.id')
      .withKeyName('invoice_pdfs_invoice_fk')
      .onDelete('CASCADE');
    t.text('state_key').notNullable();
    t.binary('pdf').notNullable();
    t.timestamp('rendered_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('invoice_pdfs');
}
