// Why: requests waiting on an invoice (`Prefer: wait`) must hear of its state changes without
// polling the database. Every change of `invoices.status` — whoever makes it: the workers'
// guarded transitions, a draft being issued, an operator's fix by hand — sends NOTIFY
// invoice_status with the invoice id, delivered to listeners when (and only if) its transaction
// commits. A trigger, so no writer can forget it; per row with a WHEN clause, so updates that
// leave the status alone (payments, Hacienda's intermediate answers) cost no function call.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function invoices_notify_status() returns trigger
    language plpgsql as $$
    begin
      perform pg_notify('invoice_status', new.id::text);
      return null;
    end $$`);
  await knex.raw(`
    create trigger invoices_status_notify
    after update of status on invoices
    for each row when (old.status is distinct from new.status)
    execute function invoices_notify_status()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger invoices_status_notify on invoices');
  await knex.raw('drop function invoices_notify_status()');
}
