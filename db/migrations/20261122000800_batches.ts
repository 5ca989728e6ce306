// Why: batch issuers send up to 1,000 invoices at once. The request is recorded whole (one row per
// item, with its own idempotency key or external_id) and answered 202; a worker records the
// invoices in chunks, writing each item's outcome in the same transaction as its invoice, so a
// crash mid-batch resumes with the items still pending and nothing is created twice.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('batches', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').withKeyName('batches_company_fk');
    t.boolean('livemode').notNullable();
    t.text('status').notNullable().defaultTo('processing');
    t.check(`status in ('processing', 'completed')`, [], 'batches_status_check');
    t.integer('total').notNullable();
    t.text('request_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['company_id', 'livemode', 'id'], 'batches_page_idx');
  });

  await knex.schema.createTable('batch_items', (t) => {
    t.bigInteger('batch_id')
      .notNullable()
      .references('batches.id')
      .onDelete('cascade')
      .withKeyName('batch_items_batch_fk');
    t.integer('position').notNullable();
    t.string('idempotency_key', 255);
    t.string('external_id', 255);
    t.jsonb('request').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.check(`status in ('pending', 'created', 'replayed', 'failed')`, [], 'batch_items_status_check');
    t.bigInteger('invoice_id').references('invoices.id').withKeyName('batch_items_invoice_fk');
    t.jsonb('problem');
    t.primary(['batch_id', 'position'], { constraintName: 'batch_items_pkey' });
  });
  await knex.raw(
    `create index batch_items_pending_idx on batch_items (batch_id, position) where status = 'pending'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('batch_items');
  await knex.schema.dropTable('batches');
}
