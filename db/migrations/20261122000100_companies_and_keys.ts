// Why: every request is resolved to a company (tenant) and a mode (live or sandbox) through an
// API key. Companies carry the emisor data Hacienda needs on every document and the plan that
// gates API access. Keys store only a SHA-256 of each secret; a key can hold several secrets
// at once so that rolling it leaves the old secret working for a grace period.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.raw('create extension if not exists unaccent');
  await knex.raw('create extension if not exists btree_gin');
  await knex.raw('create extension if not exists pgcrypto');
  // unaccent() is only STABLE; an IMMUTABLE wrapper with a fixed dictionary can back indexes.
  await knex.raw(`
    create or replace function immutable_unaccent(text) returns text
    language sql immutable parallel safe strict
    as $$ select public.unaccent('public.unaccent'::regdictionary, $1) $$`);

  await knex.schema.createTable('companies', (t) => {
    t.bigIncrements('id');
    t.text('name').notNullable();
    t.text('plan').notNullable();
    t.check(`plan in ('pyme', 'pro', 'business', 'corporate')`, [], 'companies_plan_check');
    // Emisor data (FacturaElectronica/Emisor). Location and activity may be completed after
    // creation; issuing checks that everything Hacienda needs is present.
    t.text('legal_name').notNullable();
    t.text('commercial_name');
    t.string('id_type', 2).notNullable();
    t.string('id_number', 20).notNullable();
    t.string('activity_code', 6);
    t.string('provincia', 1);
    t.string('canton', 2);
    t.string('distrito', 2);
    t.string('barrio', 50);
    t.string('otras_senas', 250);
    t.string('phone_country', 3);
    t.string('phone', 20);
    t.specificType('emails', 'text[]').notNullable().defaultTo('{}');
    // Numbering defaults for the consecutivo: sucursal (3) and terminal (5).
    t.string('default_branch', 3).notNullable().defaultTo('001');
    t.string('default_terminal', 5).notNullable().defaultTo('00001');
    t.string('default_currency', 3).notNullable().defaultTo('CRC');
    t.integer('rate_limit_per_second');
    t.boolean('demo').notNullable().defaultTo(false);
    t.timestamps(true, true);
    t.unique(['id_number'], { indexName: 'companies_id_number_key' });
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').withKeyName('api_keys_company_fk');
    t.boolean('livemode').notNullable();
    t.text('name').notNullable().defaultTo('');
    t.specificType('scopes', 'text[]').notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['company_id', 'livemode'], 'api_keys_company_idx');
  });

  // One row per secret of a key. `last4` is shown in listings; the secret itself is never stored.
  await knex.schema.createTable('api_key_secrets', (t) => {
    t.bigIncrements('id');
    t.bigInteger('key_id')
      .notNullable()
      .references('api_keys.id')
      .onDelete('cascade')
      .withKeyName('api_key_secrets_key_fk');
    t.binary('secret_hash').notNullable();
    t.string('last4', 4).notNullable();
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['secret_hash'], { indexName: 'api_key_secrets_hash_key' });
    t.index(['key_id'], 'api_key_secrets_key_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_key_secrets');
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('companies');
  await knex.raw('drop function if exists immutable_unaccent(text)');
}
