// Why: every change integrators can hear about is recorded as an event in the same transaction
// as the change, and every piece of work for Redis (flows, webhook fan-out) is written to an
// outbox in that same transaction. A relay moves outbox rows to BullMQ after commit, so a crash
// between commit and enqueue loses nothing.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').withKeyName('events_company_fk');
    t.boolean('livemode').notNullable();
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    t.text('request_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['company_id', 'livemode', 'id'], 'events_page_idx');
    t.index(['company_id', 'livemode', 'type', 'id'], 'events_type_idx');
  });

  await knex.schema.createTable('outbox', (t) => {
    t.bigIncrements('id');
    t.text('kind').notNullable();
    t.jsonb('payload').notNullable();
    t.text('request_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('processed_at', { useTz: true });
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
  });
  await knex.raw('create index outbox_pending_idx on outbox (id) where processed_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('outbox');
  await knex.schema.dropTable('events');
}
