// Why: a credit note is owed by nobody (what it credits comes off the document it references), yet
// it showed `payment_status` `unpaid` beside `balance_due` 0.00, and a document whose credits and
// payments left nothing due could stay `unpaid` or `partial`. The payment status now follows the
// balance (domain/balance.ts): `not_applicable` for a credit note, and for a document that owes
// nothing with nothing paid on it (credited whole); `paid` when nothing is due and something was
// paid. Stored rows are brought in line: credit notes, then issued documents whose status
// disagrees with their balance and payments (receipts and rejected documents keep theirs).
import type { Knex } from 'knex';

const CHECK = 'invoices_payment_status_check';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table invoices drop constraint ${CHECK}`);
  await knex.raw(`alter table invoices add constraint ${CHECK}
    check (payment_status in ('unpaid', 'partial', 'paid', 'not_applicable'))`);
  await knex.raw(`update invoices set payment_status = 'not_applicable', balance_due = 0
    where doc_type = '03' and (payment_status <> 'not_applicable' or balance_due <> 0)`);
  await knex.raw(`
    with applied as (
      select invoice_id, sum(applied_amount) as applied from payments group by invoice_id
    ), computed as (
      select i.id,
        case when i.balance_due > 0 then case when coalesce(a.applied, 0) > 0 then 'partial' else 'unpaid' end
             else case when coalesce(a.applied, 0) > 0 then 'paid' else 'not_applicable' end end as status
        from invoices i left join applied a on a.invoice_id = i.id
       where i.doc_type not in ('03', '10') and i.status <> 'rechazada'
    )
    update invoices i set payment_status = c.status
      from computed c
     where c.id = i.id and i.payment_status <> c.status`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`update invoices set payment_status = 'unpaid' where payment_status = 'not_applicable'`);
  await knex.raw(`alter table invoices drop constraint ${CHECK}`);
  await knex.raw(`alter table invoices add constraint ${CHECK}
    check (payment_status in ('unpaid', 'partial', 'paid'))`);
}
