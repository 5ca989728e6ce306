// Why: two more document types are issued from the invoices table.
// - A factura electrónica de compra (08) is issued by the company as the buyer of an informal or
//   foreign supplier, who is its emisor. The supplier is kept on the document itself (`supplier`,
//   jsonb: name, identification, location or foreign address, contact, the supplier's document)
//   and not as one of the company's clients: a supplier is not someone the company sells to (no
//   receivable, no balance, not in the client list or search), its identification may be a type
//   05 "Extranjero No Domiciliado" that no client may have, and the document must keep the
//   emisor data exactly as it was issued even if the same supplier is named differently later.
//   Every 08 names its supplier (a check); its client_id stays null.
// - A purchase is booked as the mirror of a sale: an expense and the IVA credit against accounts
//   payable. Every company gets those three accounts (both modes), like the rest of its chart.
// - A recibo electrónico de pago (10) is issued when a payment of a credit sale asks for one; the
//   payment names it (`receipt_invoice_id`, once per payment) and the receipt references the sale.
//   The receipt books nothing: the payment already booked cash against receivables and the sale
//   was booked when it was issued.
import type { Knex } from 'knex';

const ACCOUNTS = [
  { code: '1301', name: 'IVA crédito fiscal', type: 'asset', role: 'iva_credit' },
  { code: '2201', name: 'Cuentas por pagar a proveedores', type: 'liability', role: 'payables' },
  { code: '5101', name: 'Compras y gastos', type: 'expense', role: 'purchases' },
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.jsonb('supplier');
    t.check(`(doc_type = '08') = (supplier is not null)`, [], 'invoices_supplier_check');
  });
  await knex.schema.alterTable('payments', (t) => {
    t.bigInteger('receipt_invoice_id').references('invoices.id').withKeyName('payments_receipt_invoice_fk');
    t.unique(['receipt_invoice_id'], { indexName: 'payments_receipt_invoice_key' });
  });
  for (const a of ACCOUNTS) {
    await knex.raw(
      `insert into accounts (company_id, livemode, code, name, type, role)
       select c.id, m.livemode, ?, ?, ?, ? from companies c cross join (values (false), (true)) m(livemode)
       on conflict do nothing`,
      [a.code, a.name, a.type, a.role],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex('accounts')
    .whereIn(
      'role',
      ACCOUNTS.map((a) => a.role),
    )
    .whereNotExists(knex('journal_lines').whereRaw('journal_lines.account_id = accounts.id'))
    .delete();
  await knex.schema.alterTable('payments', (t) => {
    t.dropUnique(['receipt_invoice_id'], 'payments_receipt_invoice_key');
    t.dropForeign(['receipt_invoice_id'], 'payments_receipt_invoice_fk');
    t.dropColumn('receipt_invoice_id');
  });
  await knex.schema.alterTable('invoices', (t) => {
    t.dropChecks(['invoices_supplier_check']);
    t.dropColumn('supplier');
  });
}
