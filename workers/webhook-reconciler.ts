// The webhook reconciler: Postgres is the source of truth, Redis only carries work. A pending
// delivery whose job Redis lost (a restart without persistence, a flush) would wait forever, so
// deliveries still pending well after their next attempt was due are enqueued again, with the
// attempts left in their round. Job ids are deterministic: a job that still exists (waiting,
// delayed behind a backlog) is not added twice, and the handler's state check makes a repeated
// job send nothing more.
import type { Queue } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import {
  WEBHOOK_JOB,
  webhookJobId,
  webhookJobOptions,
  type WebhookJobData,
} from '../jobs/webhook-deliver.ts';

export interface WebhookReconcileOptions {
  db: Knex;
  queue: Queue<WebhookJobData>;
  config: Config;
  log: Logger;
  /** How long past its due time a pending delivery may sit before it is enqueued again. */
  staleMs: number;
  batchSize?: number;
}

/** One pass; returns how many deliveries were enqueued again. */
export async function reconcileWebhooksOnce(o: WebhookReconcileOptions): Promise<number> {
  const res = await o.db.raw(
    `select d.event_id as "eventId", d.endpoint_id as "endpointId", d.round,
            (select count(*) from webhook_attempts a where a.delivery_id = d.id and a.round = d.round)::int as made
       from webhook_deliveries d
       join webhook_endpoints w on w.id = d.endpoint_id
      where d.status = 'pending' and w.deleted_at is null and w.disabled_at is null
        and coalesce(d.next_attempt_at, d.last_attempt_at, d.created_at) < now() - make_interval(secs => ?)
      order by d.id
      limit ?`,
    [o.staleMs / 1000, o.batchSize ?? 500],
  );
  const rows = res.rows as { eventId: string; endpointId: string; round: number; made: number }[];
  if (rows.length === 0) return 0;
  // A job kept in the failed set under the same id would swallow the new one: it goes first.
  for (const r of rows) {
    const id = webhookJobId({ eventId: Number(r.eventId), endpointId: Number(r.endpointId), round: r.round });
    const old = await o.queue.getJob(id);
    if (old && (await old.isFailed())) await old.remove();
  }
  await o.queue.addBulk(
    rows.map((r) => {
      const data: WebhookJobData = {
        v: 1,
        eventId: Number(r.eventId),
        endpointId: Number(r.endpointId),
        round: r.round,
      };
      const opts = webhookJobOptions(o.config, data);
      return {
        name: WEBHOOK_JOB,
        data,
        opts: { ...opts, attempts: Math.max(1, (opts.attempts ?? 1) - r.made) },
      };
    }),
  );
  o.log.info({ count: rows.length }, 'webhook reconciler: pending deliveries enqueued again');
  return rows.length;
}
