// Why: clients are the receptores of invoices. Identification is unique per company and mode;
// the name search must stay fast at 100,000 clients, so a normalised (lower, unaccented) name is
// stored and indexed with trigrams together with the tenant columns. Addresses are kept in their
// own table because Hacienda's Ubicacion is structured and a client may have several.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('clients', (t) => {
    t.bigIncrements('id');
    t.uuid('uuid').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.bigInteger('company_id').notNullable().references('companies.id').withKeyName('clients_company_fk');
    t.boolean('livemode').notNullable();
    t.string('id_type', 2).notNullable();
    t.string('id_number', 20).notNullable();
    t.string('name', 100).notNullable();
    t.string('commercial_name', 80);
    t.string('email', 160);
    t.string('phone_country', 3);
    t.string('phone', 20);
    t.string('activity_code', 6);
    t.decimal('balance', 18, 5).notNullable().defaultTo(0);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamps(true, true);
    t.unique(['uuid'], { indexName: 'clients_uuid_key' });
    t.unique(['company_id', 'livemode', 'id_number'], { indexName: 'clients_identification_key' });
    t.index(['company_id', 'livemode', 'balance'], 'clients_balance_idx');
    t.index(['company_id', 'livemode', 'id'], 'clients_page_idx');
  });
  await knex.raw(`alter table clients add column search_name text
    generated always as (immutable_unaccent(lower(name))) stored`);
  await knex.raw(`create index clients_search_name_idx on clients
    using gin (company_id, livemode, search_name gin_trgm_ops)`);

  await knex.schema.createTable('client_addresses', (t) => {
    t.bigIncrements('id');
    t.bigInteger('client_id')
      .notNullable()
      .references('clients.id')
      .onDelete('cascade')
      .withKeyName('client_addresses_client_fk');
    t.smallint('position').notNullable();
    t.string('provincia', 1).notNullable();
    t.string('canton', 2).notNullable();
    t.string('distrito', 2).notNullable();
    t.string('barrio', 50);
    t.string('otras_senas', 250).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['client_id', 'position'], { indexName: 'client_addresses_position_key' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('client_addresses');
  await knex.schema.dropTable('clients');
}
