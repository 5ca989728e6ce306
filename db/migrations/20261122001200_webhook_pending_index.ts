// Why: the webhook reconciler looks for pending deliveries whose job Redis may have lost (a
// Redis restart without persistence). Pending deliveries are few next to delivered ones, so a
// partial index keeps that look cheap however long the delivery history grows.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index webhook_deliveries_pending_idx on webhook_deliveries (id)
    where status = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index webhook_deliveries_pending_idx');
}
