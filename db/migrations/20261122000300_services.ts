// Why: invoice lines name a service from the company's catalogue, which supplies the CABYS
// code, description, unit of measure (goods vs services), tax and IVA rate code and a default
// price. Kept per company and mode like every tenant table.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('services', (t) => {
    t.bigIncrements('id');
    t.uuid('uuid').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.bigInteger('company_id').notNullable().references('companies.id').withKeyName('services_company_fk');
    t.boolean('livemode').notNullable();
    t.string('cabys', 13).notNullable();
    t.string('description', 200).notNullable();
    t.string('unit', 20).notNullable();
    t.string('tax_code', 2).notNullable().defaultTo('01');
    t.string('iva_rate_code', 2).notNullable();
    t.decimal('price', 18, 5).notNullable();
    t.string('commercial_code', 20);
    t.timestamps(true, true);
    t.unique(['uuid'], { indexName: 'services_uuid_key' });
    t.index(['company_id', 'livemode', 'id'], 'services_page_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('services');
}
