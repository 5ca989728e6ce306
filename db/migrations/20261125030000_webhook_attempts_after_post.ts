// Why: a webhook attempt row is now written once its POST has ended, with the outcome, in the
// transaction the worker's delivery jobs share (webhooks are at least once: a POST cut off by a
// stopping worker leaves its delivery pending and it is sent again). The earlier code wrote the
// row before the POST and marked one left without an outcome as interrupted when the next attempt
// began; rows left that way by the earlier code are marked here, once, as the next attempt no
// longer does it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update webhook_attempts set error = 'interrupted: no outcome recorded (the worker stopped during the request)'
      where duration_ms is null and error is null and status_code is null`,
  );
}

export async function down(): Promise<void> {
  // Nothing to undo: the marked rows had no outcome either way.
}
