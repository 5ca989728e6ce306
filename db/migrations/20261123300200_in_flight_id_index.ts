// Why: the reconciler walks the invoices still in flight in id order, a page at a time, each pass
// continuing where the last one stopped. In-flight invoices are few next to finished ones, so a
// partial index on the id keeps every page an index range scan however long the history grows
// (the older in-flight index is on updated_at, which cannot serve "after this id").
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index invoices_in_flight_id_idx on invoices (id)
    where status in ('pendiente', 'enviada')`);
  await knex.raw(`create index batches_processing_idx on batches (id) where status = 'processing'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index batches_processing_idx');
  await knex.raw('drop index invoices_in_flight_id_idx');
}
