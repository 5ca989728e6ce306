// Why: a company's next webhook delivery takes its place in the webhooks queue after the company's
// deliveries still pending (jobs/fair-share.ts), so one company's thousands of events do not hold
// back another company's one. Counting them walks only that company's pending deliveries. The
// status is already in webhook_deliveries_pending_idx's predicate, so this index makes no update
// that was heap-only lose it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index webhook_deliveries_company_pending_idx
    on webhook_deliveries (company_id, livemode, id) where status = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index webhook_deliveries_company_pending_idx');
}
