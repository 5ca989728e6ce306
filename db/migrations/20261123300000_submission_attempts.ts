// Why: a submission to Hacienda used to be recorded only once Hacienda had answered, so a worker
// killed while its POST was in flight left no trace and the next attempt sent the document again
// without asking first. An attempt is now written before the POST (its own commit) and finished
// with the answer: `finished_at` stays null while the outcome is unknown, and any later attempt
// that finds such a row asks Hacienda for the clave's status before sending. `reason` tells the
// first sending of a document from a re-send after Hacienda lost it (answered 404 for a clave it
// had received). Rows written before this migration were all finished when they were written.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('hacienda_submissions', (t) => {
    t.timestamp('finished_at', { useTz: true });
    t.text('reason').notNullable().defaultTo('submit');
    t.check(`reason in ('submit', 'lost')`, [], 'hacienda_submissions_reason_check');
  });
  await knex.raw('update hacienda_submissions set finished_at = created_at');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('hacienda_submissions', (t) => {
    t.dropChecks(['hacienda_submissions_reason_check']);
    t.dropColumn('reason');
    t.dropColumn('finished_at');
  });
}
