// Why: an invoice sold for cash (condición contado) is paid when it is issued. Unless the request
// says otherwise (`paid_at_issue: false`), the invoice carries `paid_at_issue` and, when its issue
// entry is booked, one payment settles it: the payment row says so (`at_issue`), and the database
// allows one such payment per invoice. A rejection reverses that payment with its own entry
// (`payment_reversal`, once per invoice), beside the reversal of the issue entry.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.boolean('paid_at_issue').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('payments', (t) => {
    t.boolean('at_issue').notNullable().defaultTo(false);
  });
  await knex.raw(`create unique index payments_at_issue_key on payments (invoice_id) where at_issue`);
  await knex.raw('alter table journal_entries drop constraint journal_entries_kind_check');
  await knex.raw(`alter table journal_entries add constraint journal_entries_kind_check
    check (kind in ('invoice', 'invoice_reversal', 'payment', 'payment_reversal'))`);
  await knex.raw(`create unique index journal_entries_payment_reversal_key on journal_entries (invoice_id)
    where kind = 'payment_reversal'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index journal_entries_payment_reversal_key');
  await knex.raw(`delete from journal_lines where entry_id in
    (select id from journal_entries where kind = 'payment_reversal')`);
  await knex.raw(`delete from journal_entries where kind = 'payment_reversal'`);
  await knex.raw('alter table journal_entries drop constraint journal_entries_kind_check');
  await knex.raw(`alter table journal_entries add constraint journal_entries_kind_check
    check (kind in ('invoice', 'invoice_reversal', 'payment'))`);
  await knex.raw('drop index payments_at_issue_key');
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('at_issue');
  });
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('paid_at_issue');
  });
}
