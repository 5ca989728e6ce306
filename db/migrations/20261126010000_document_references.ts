// Why: credit notes (03), debit notes (02) and the replacement of a rejected invoice are issued
// documents like invoices (same table, own consecutivo series by doc_type) that reference another
// document. The reference is kept as Hacienda's InformacionReferencia says it (`reference`), with
// the referenced row when it is one of ours. The credits of a document are reserved on it
// (`credited_total`) in the transaction that creates the note, so the database itself refuses
// credits above the total, whatever runs concurrently. A rejected invoice is replaced once:
// `replaced_by_id` is unique.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.jsonb('reference');
    t.bigInteger('referenced_invoice_id')
      .references('invoices.id')
      .withKeyName('invoices_referenced_invoice_fk');
    t.decimal('credited_total', 18, 5).notNullable().defaultTo(0);
    t.timestamp('annulled_at', { useTz: true });
    t.bigInteger('replaced_by_id').references('invoices.id').withKeyName('invoices_replaced_by_fk');
    t.check('credited_total >= 0 and credited_total <= total', [], 'invoices_credited_total_check');
    t.check(`doc_type in ('01', '02', '03')`, [], 'invoices_doc_type_check');
  });
  await knex.raw(
    `create index invoices_referenced_idx on invoices (referenced_invoice_id) where referenced_invoice_id is not null`,
  );
  await knex.raw(
    `create unique index invoices_replaced_by_key on invoices (replaced_by_id) where replaced_by_id is not null`,
  );
  // The list's document_type filter has its own (partial) index: 20261126020000.
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists invoices_replaced_by_key');
  await knex.raw('drop index if exists invoices_referenced_idx');
  await knex.schema.alterTable('invoices', (t) => {
    t.dropChecks(['invoices_credited_total_check', 'invoices_doc_type_check']);
    t.dropForeign(['replaced_by_id'], 'invoices_replaced_by_fk');
    t.dropForeign(['referenced_invoice_id'], 'invoices_referenced_invoice_fk');
    t.dropColumns('reference', 'referenced_invoice_id', 'credited_total', 'annulled_at', 'replaced_by_id');
  });
}
