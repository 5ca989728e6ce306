// Why: `Prefer: wait` now answers when an invoice is final — Hacienda's verdict, or a flow that
// stopped waiting for a person (a permanent processing error outside the booking step) — and the
// latter changes no status. The invoice_status notification is therefore also sent when an
// invoice's flow stops (its processing error becomes a stopping one), still at commit and only
// then; updates that change neither (payments, transient errors, Hacienda's intermediate answers)
// still cost no function call.
import type { Knex } from 'knex';

const STOPPED = (row: 'old' | 'new') =>
  `(coalesce((${row}.processing_error->>'permanent')::boolean, false)
     and ${row}.processing_error->>'step' is distinct from 'accounting')`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop trigger invoices_status_notify on invoices');
  await knex.raw(`
    create trigger invoices_status_notify
    after update of status, processing_error on invoices
    for each row when (old.status is distinct from new.status
                       or (${STOPPED('new')} and not ${STOPPED('old')}))
    execute function invoices_notify_status()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger invoices_status_notify on invoices');
  await knex.raw(`
    create trigger invoices_status_notify
    after update of status on invoices
    for each row when (old.status is distinct from new.status)
    execute function invoices_notify_status()`);
}
