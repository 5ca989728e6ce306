// Why: invoices now travel through the pipeline in chunks (one BullMQ flow carries up to
// WORKER_CHUNK_SIZE invoices of one company and mode). Which chunk carries an invoice is written
// when the flow is added, so Hacienda's callback can wake the chunk's status job and the
// reconciler can tell whether the jobs that carry an invoice still exist. Null: no flow yet (or
// one added before chunks, whose job ids follow the invoice id).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.text('flow_chunk');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('flow_chunk');
  });
}
