// Why: integrators register HTTPS receivers per (company, mode) and every event fans out to the
// subscribed ones as one delivery per (event, endpoint). The database is the record of what was
// sent: a delivery row (unique per event and endpoint, so a repeated fan-out cannot double it)
// with its redelivery round, and one attempt row per POST with the status, duration, error and
// a bounded excerpt of the answer. Signing secrets are stored sealed (AES-256-GCM), never in
// plaintext; during a rotation the previous secret keeps signing until its expiry.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id')
      .notNullable()
      .references('companies.id')
      .withKeyName('webhook_endpoints_company_fk');
    t.boolean('livemode').notNullable();
    t.string('url', 2048).notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.check('cardinality(events) > 0', [], 'webhook_endpoints_events_check');
    t.string('description', 200);
    t.binary('secret_enc').notNullable();
    t.binary('previous_secret_enc');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.check(
      '(previous_secret_enc is null) = (previous_secret_expires_at is null)',
      [],
      'webhook_endpoints_previous_secret_check',
    );
    t.timestamp('disabled_at', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('deleted_at', { useTz: true });
    t.timestamps(true, true);
  });
  // The fan-out's lookup: live endpoints of a tenant.
  await knex.raw(`create index webhook_endpoints_tenant_idx on webhook_endpoints (company_id, livemode, id)
    where deleted_at is null`);

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.bigInteger('event_id').notNullable().references('events.id').withKeyName('webhook_deliveries_event_fk');
    t.bigInteger('endpoint_id')
      .notNullable()
      .references('webhook_endpoints.id')
      .withKeyName('webhook_deliveries_endpoint_fk');
    t.bigInteger('company_id').notNullable();
    t.boolean('livemode').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.check(`status in ('pending', 'delivered', 'failed')`, [], 'webhook_deliveries_status_check');
    // 0 for the first delivery; each redelivery request starts a new round (and a new job id).
    t.integer('round').notNullable().defaultTo(0);
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('last_attempt_at', { useTz: true });
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('delivered_at', { useTz: true });
    t.timestamps(true, true);
    t.unique(['event_id', 'endpoint_id'], { indexName: 'webhook_deliveries_event_endpoint_key' });
    t.index(['endpoint_id', 'id'], 'webhook_deliveries_endpoint_idx');
  });

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('delivery_id')
      .notNullable()
      .references('webhook_deliveries.id')
      .withKeyName('webhook_attempts_delivery_fk');
    t.integer('attempt_number').notNullable();
    t.integer('round').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('status_code');
    t.integer('duration_ms');
    t.text('error');
    // At most 1 KB of the receiver's answer, for debugging; never the whole body.
    t.string('response_excerpt', 1024);
    t.unique(['delivery_id', 'attempt_number'], { indexName: 'webhook_attempts_number_key' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_attempts');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_endpoints');
}
