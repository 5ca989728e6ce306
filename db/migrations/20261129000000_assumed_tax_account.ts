// Why: tax a line's issuer assumes (ImpuestoAsumidoEmisorFabrica on a line without
// IVACobradoFabrica) lowers what the client pays but not what the issuer owes the State: the full
// tax stays payable and the assumed part is the issuer's expense. Every company gets an expense
// account for it (role `assumed_tax_expense`, code 5102), as new companies do from the default
// chart; a company that already uses code 5102 keeps its own account and gets none (its bookings
// then fail loudly rather than go to the wrong account).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `insert into accounts (company_id, livemode, code, name, type, role)
     select c.id, m.livemode, '5102', 'Impuestos asumidos por el emisor', 'expense', 'assumed_tax_expense'
     from companies c cross join (values (false), (true)) as m(livemode)
     on conflict do nothing`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `delete from accounts a where a.role = 'assumed_tax_expense'
     and not exists (select 1 from journal_lines l where l.account_id = a.id)`,
  );
}
