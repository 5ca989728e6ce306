// Why: other charges a company collects for someone else (OtrosCargos: timbres, contribuciones
// parafiscales, a third party's charge, the 10 % service charge that belongs to the staff,
// colegios profesionales, guarantee deposits) are not its revenue but a debt to whoever they are
// for. Every company gets a liability account for them (role `third_party_payable`, code 2102),
// as new companies do from the default chart; a company that already uses code 2102 keeps its
// own account and gets none (its bookings then fail loudly rather than go to the wrong account).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `insert into accounts (company_id, livemode, code, name, type, role)
     select c.id, m.livemode, '2102', 'Cobros por cuenta de terceros', 'liability', 'third_party_payable'
     from companies c cross join (values (false), (true)) as m(livemode)
     on conflict do nothing`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `delete from accounts a where a.role = 'third_party_payable'
     and not exists (select 1 from journal_lines l where l.account_id = a.id)`,
  );
}
