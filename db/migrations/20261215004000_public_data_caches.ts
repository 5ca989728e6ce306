// Why: Hacienda's public services (taxpayer register, dollar reference rate) are slow and limit
// callers by address (a 10-minute block past 10 requests a second), and a rate of a past day never
// changes. Taxpayers are kept for a while (found or not: an unknown number is not asked again at
// once); rates for good, one row per currency and Costa Rica day. An invoice says where its
// exchange rate came from (the request, or Hacienda's reference sell rate of the day).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('taxpayer_lookups', (t) => {
    t.text('id_number').primary();
    t.boolean('found').notNullable();
    // The taxpayer as hacienda/public-data/taxpayers.ts reads it (null when not found).
    t.jsonb('data');
    t.timestamp('fetched_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('exchange_rates', (t) => {
    t.text('currency').notNullable();
    t.date('rate_date').notNullable();
    t.decimal('buy', 18, 5).notNullable();
    t.decimal('sell', 18, 5).notNullable();
    t.text('source').notNullable();
    t.timestamp('fetched_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['currency', 'rate_date']);
  });
  await knex.schema.alterTable('invoices', (t) => {
    t.text('exchange_rate_source');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('exchange_rate_source');
  });
  await knex.schema.dropTable('exchange_rates');
  await knex.schema.dropTable('taxpayer_lookups');
}
