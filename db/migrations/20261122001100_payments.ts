// Why: a payment settles part or all of an issued invoice. It is recorded in one transaction
// with its journal entry (cash against receivables, in colones), the invoice's balance_due and
// payment_status and the client's balance. A payment belongs to one invoice and is booked
// exactly once: journal_entries.payment_id is already unique, and now it points here.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payments', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').withKeyName('payments_company_fk');
    t.boolean('livemode').notNullable();
    t.bigInteger('invoice_id').notNullable().references('invoices.id').withKeyName('payments_invoice_fk');
    t.bigInteger('client_id').notNullable().references('clients.id').withKeyName('payments_client_fk');
    // What the payer paid (2 decimals, invoice currency).
    t.decimal('amount', 18, 5).notNullable();
    // What it took off balance_due: equal to amount, except the settling payment, which also
    // clears the sub-centavo remainder of a 5-decimal total.
    t.decimal('applied_amount', 18, 5).notNullable();
    // The colones booked (cash debit = receivables credit).
    t.decimal('amount_crc', 18, 5).notNullable();
    t.check('amount > 0 and applied_amount > 0 and amount_crc > 0', [], 'payments_amount_check');
    t.string('currency', 3).notNullable();
    t.decimal('exchange_rate', 18, 5).notNullable();
    t.text('method').notNullable();
    t.string('method_code', 2).notNullable();
    t.timestamp('paid_at', { useTz: true }).notNullable();
    t.string('reference', 100);
    t.text('request_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['invoice_id', 'id'], 'payments_invoice_idx');
    t.index(['company_id', 'livemode', 'id'], 'payments_page_idx');
  });
  await knex.schema.alterTable('journal_entries', (t) => {
    t.foreign('payment_id', 'journal_entries_payment_fk').references('payments.id');
  });
  await knex.raw(`alter table journal_entries add constraint journal_entries_payment_kind_check
    check ((kind = 'payment') = (payment_id is not null))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table journal_entries drop constraint journal_entries_payment_kind_check');
  await knex.schema.alterTable('journal_entries', (t) => {
    t.dropForeign('payment_id', 'journal_entries_payment_fk');
  });
  await knex.schema.dropTable('payments');
}
