// Why: the workers share their capacity between companies. Every chunk of invoices has a place in
// its company's turn (a priority of its flow's jobs, jobs/fair-share.ts): one company's backlog of
// thousands of invoices does not hold back another company's single invoice. The place is written
// with the chunk (`flow_chunk`), so the next chunks of a company that still has some waiting come
// after them. Null: carried by a flow added before priorities. No index reads it (an update of the
// column stays a heap-only tuple, see 20261127060000_room_for_hot_updates).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.integer('flow_priority');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('flow_priority');
  });
}
