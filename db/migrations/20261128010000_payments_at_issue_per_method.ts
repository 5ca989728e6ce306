// Why: a cash sale paid with several methods (MedioPago with their TotalMedioPago) is settled at
// issue by one payment per method, each with its amount, so the books and the payments list show
// what came in by card, in cash, by transfer. Each payment at issue carries its position in the
// invoice's MedioPago (`at_issue_index`, 0-based; null for payments made through the API), and the
// database allows one payment at issue per invoice and position (it allowed one per invoice).
// A rejection still writes one `payment_reversal` entry per invoice, with the lines of them all.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.smallint('at_issue_index');
  });
  await knex.raw('update payments set at_issue_index = 0 where at_issue');
  await knex.raw(`alter table payments add constraint payments_at_issue_index_check
    check ((at_issue and at_issue_index between 0 and 3) or (not at_issue and at_issue_index is null))`);
  await knex.raw('drop index payments_at_issue_key');
  await knex.raw(
    'create unique index payments_at_issue_key on payments (invoice_id, at_issue_index) where at_issue',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index payments_at_issue_key');
  // Only the first payment at issue of each invoice fits the older rule; the others become
  // ordinary payments (their money and entries stay).
  await knex.raw('update payments set at_issue = false where at_issue and at_issue_index <> 0');
  await knex.raw(`create unique index payments_at_issue_key on payments (invoice_id) where at_issue`);
  await knex.raw('alter table payments drop constraint payments_at_issue_index_check');
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('at_issue_index');
  });
}
