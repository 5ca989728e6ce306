// Why: a tiquete electrónico (04) may be sold to nobody in particular, so the payment that settles
// it at issue has no client either; and a factura de exportación (09) goes to a foreign receptor,
// whose address is not a Costa Rican Ubicacion but free text (ReceptorType/OtrasSenasExtranjero,
// 5-300 characters), which the client keeps beside its structured addresses.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.bigInteger('client_id').nullable().alter({ alterNullable: true, alterType: false });
  });
  await knex.schema.alterTable('clients', (t) => {
    t.string('foreign_address', 300);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('clients', (t) => {
    t.dropColumn('foreign_address');
  });
  await knex.schema.alterTable('payments', (t) => {
    t.bigInteger('client_id').notNullable().alter({ alterNullable: true, alterType: false });
  });
}
