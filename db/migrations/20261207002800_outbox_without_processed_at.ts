// Why: the outbox relay deletes the rows it moved to the queues in the claiming transaction, so
// `outbox.processed_at` was never written: every row had it null, and the partial index on it
// indexed the whole table a second time beside its primary key. The column and its index go;
// the relay claims rows by id alone.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists outbox_pending_idx');
  await knex.schema.alterTable('outbox', (t) => {
    t.dropColumn('processed_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox', (t) => {
    t.timestamp('processed_at', { useTz: true });
  });
  await knex.raw('create index outbox_pending_idx on outbox (id) where processed_at is null');
}
