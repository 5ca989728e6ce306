// Why: a line may carry taxes beside the IVA (selectivo de consumo, combustibles, bebidas
// alcohólicas y envasadas, tabaco, cemento, otros). They are owed to the State like the IVA but
// declared apart from it, so every company gets a liability account for them (role
// `other_taxes_payable`, code 2103), as new companies do from the default chart; a company that
// already uses code 2103 keeps its own account and gets none (its bookings then fail loudly
// rather than go to the wrong account).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `insert into accounts (company_id, livemode, code, name, type, role)
     select c.id, m.livemode, '2103', 'Otros impuestos por pagar', 'liability', 'other_taxes_payable'
     from companies c cross join (values (false), (true)) as m(livemode)
     on conflict do nothing`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `delete from accounts a where a.role = 'other_taxes_payable'
     and not exists (select 1 from journal_lines l where l.account_id = a.id)`,
  );
}
