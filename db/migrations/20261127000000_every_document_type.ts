// Why: the service issues every comprobante of v4.4, not only facturas and notes: tiquetes (04),
// facturas de compra (08), facturas de exportación (09) and recibos electrónicos de pago (10) are
// issued documents in the same table, each with its own consecutivo series by doc_type. A tiquete
// may have no identified receptor, so an issued document's client is optional; every type but the
// tiquete still names its counterparty (the receptor, or the supplier of a factura de compra),
// which the API checks before a row is written.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropChecks(['invoices_doc_type_check']);
  });
  await knex.schema.alterTable('invoices', (t) => {
    t.check(`doc_type in ('01', '02', '03', '04', '08', '09', '10')`, [], 'invoices_doc_type_check');
    t.bigInteger('client_id').nullable().alter({ alterNullable: true, alterType: false });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropChecks(['invoices_doc_type_check']);
  });
  await knex.schema.alterTable('invoices', (t) => {
    t.check(`doc_type in ('01', '02', '03')`, [], 'invoices_doc_type_check');
    t.bigInteger('client_id').notNullable().alter({ alterNullable: true, alterType: false });
  });
}
