// Why: integrators and operators need API consumption per key (requests by route and status
// class, per minute) for the dashboard and GET /api/v1/usage. Requests never write here: the
// API counts in Redis and each API process periodically adds those counts to these rows with
// an upsert (`count = count + excluded.count`), so the unique key is what keeps one row per
// (key, minute, route, status class) whichever process flushes. company_id and livemode are
// copied from the key so a company's usage is read without a join.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_minutes', (t) => {
    t.bigInteger('key_id')
      .notNullable()
      .references('api_keys.id')
      .onDelete('cascade')
      .withKeyName('usage_minutes_key_fk');
    t.bigInteger('company_id')
      .notNullable()
      .references('companies.id')
      .withKeyName('usage_minutes_company_fk');
    t.boolean('livemode').notNullable();
    t.timestamp('minute', { useTz: true }).notNullable();
    // The Fastify route pattern with its method, e.g. `POST /api/v1/invoices`.
    t.text('route').notNullable();
    t.text('status_class').notNullable();
    t.check(
      `status_class in ('1xx', '2xx', '3xx', '4xx', '5xx', '429')`,
      [],
      'usage_minutes_status_class_check',
    );
    t.bigInteger('count').notNullable();
    t.check('count > 0', [], 'usage_minutes_count_check');
    t.unique(['key_id', 'minute', 'route', 'status_class'], {
      indexName: 'usage_minutes_key_minute_route_class_key',
    });
    t.index(['company_id', 'livemode', 'minute'], 'usage_minutes_company_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('usage_minutes');
}
