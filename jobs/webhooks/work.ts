// Webhook deliveries as a work module: the `webhooks` queue and its Worker (with the custom
// backoff strategy, deliver.ts), the group commit its jobs share (store.ts); the relay's dispatch
// of `event.dispatch` rows, which turns each committed event into one job per subscribed endpoint
// inside the relay's transaction and hands what those jobs will read to the store (a job whose
// document has an earlier event still owed to its endpoint sleeps until that one's job wakes it:
// deliver.ts); and the
// reconciler's hook (deliveries still pending well after their next attempt was due, whose job
// Redis lost, are enqueued again with the attempts left in their round).
import { Job, Queue, type ConnectionOptions, type Worker } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../config/index.ts';
import {
  eventTraceContexts,
  fanOutEvents,
  loadDeliveryContexts,
  pendingDeliveriesPage,
  type PendingDelivery,
} from '../../db/queries/webhooks.ts';
import { deliveriesAhead } from '../../db/queries/queue-places.ts';
import { queueTelemetry, tracingEnabled } from '../../platform/tracing.ts';
import { buildWorker } from '../../platform/worker-build.ts';
import { placeAfter, reachedPlace } from '../fair-share.ts';
import { outboxItems } from '../../db/queries/outbox.ts';
import type { Dispatch, RunningWork, TrackedWork, WorkModule } from '../work.ts';
import {
  deliverWebhook,
  WEBHOOK_BACKOFF,
  WEBHOOK_JOB,
  WEBHOOK_QUEUE,
  webhookBackoffStrategy,
  webhookJobId,
  webhookJobOptions,
  type WebhookJobData,
} from './deliver.ts';
import { closeWebhookConnections } from './http.ts';
import { DeliveryStore } from './store.ts';

export interface RunningWebhooks extends RunningWork<'event.dispatch'> {
  queue: Queue<WebhookJobData>;
  worker: Worker<WebhookJobData, string>;
  /** The group commit the delivery jobs share. */
  store: DeliveryStore;
}

export interface WebhookStart {
  config: Config;
  db: Knex;
  connection: ConnectionOptions;
  log: Logger;
  lockDurationMs?: number;
  /** How long a delivery's read or outcome waits for others to share its transaction (ms). */
  groupMs?: number;
}

/** The relay's dispatch: each event becomes one job per subscribed endpoint. */
function webhookDispatch(
  config: Config,
  queue: Queue<WebhookJobData>,
  store: DeliveryStore,
): Dispatch<'event.dispatch'> {
  return async (trx, rows) => {
    const targets = await fanOutEvents(
      trx,
      rows.flatMap((r) => outboxItems(r.payload, 'eventId')),
    );
    if (targets.length === 0) return;
    // What the jobs will need, read in the relay's transaction: their first run in this
    // process reads nothing more once it has committed.
    store.prime((await loadDeliveryContexts(trx, targets)).values(), trx.executionPromise);
    const traces = tracingEnabled()
      ? await eventTraceContexts(
          trx,
          targets.map((t) => t.eventId),
        )
      : null;
    // Each after the deliveries its company already has pending (jobs/fair-share.ts).
    const [ahead, reached] = await Promise.all([deliveriesAhead(trx, targets), reachedPlace(queue)]);
    await queue.addBulk(
      targets.map((t) => {
        const data: WebhookJobData = { v: 1, ...t };
        const metadata = traces?.get(t.eventId);
        const priority = placeAfter(reached, ahead.get(`${t.eventId}:${t.endpointId}`)?.ahead ?? 0);
        const opts = { ...webhookJobOptions(config, data), priority };
        return { name: WEBHOOK_JOB, data, opts: metadata ? { ...opts, telemetry: { metadata } } : opts };
      }),
    );
  };
}

/** Pending deliveries whose job Redis lost: enqueued again with the attempts left in their round. */
function deliveryWork(db: Knex, config: Config, queue: Queue<WebhookJobData>): TrackedWork<PendingDelivery> {
  return {
    name: 'webhooks',
    page: (afterId, limit, staleMs) => pendingDeliveriesPage(db, afterId, limit, staleMs),
    jobsOf: (row) => [{ queue: queue as Queue, id: webhookJobId(row) }],
    async recreate(rows) {
      await queue.addBulk(
        rows.map((r) => {
          const data: WebhookJobData = { v: 1, eventId: r.eventId, endpointId: r.endpointId, round: r.round };
          const opts = webhookJobOptions(config, data);
          return {
            name: WEBHOOK_JOB,
            data,
            opts: { ...opts, attempts: Math.max(1, (opts.attempts ?? 1) - r.made) },
          };
        }),
      );
    },
  };
}

export function startWebhooks(o: WebhookStart): RunningWebhooks {
  const prefix = o.config.queuePrefix;
  const queue = new Queue<WebhookJobData>(WEBHOOK_QUEUE, {
    connection: o.connection,
    prefix,
    telemetry: queueTelemetry(),
  });
  queue.on('error', (err) => o.log.error({ err, queue: WEBHOOK_QUEUE }, 'queue error'));
  const store = new DeliveryStore(o.db, { groupMs: o.groupMs });
  // A delivery waiting for an earlier event of its document is promoted by id when that one is
  // done (one script, which refuses a job that is not asleep: it then wakes on its own timer).
  const wake = async (jobId: string) => {
    await new Job(queue, WEBHOOK_JOB, {}, {}, jobId).promote();
  };
  const ctx = { log: o.log, config: o.config, now: () => new Date(), store, wake };
  const strategy = webhookBackoffStrategy(o.config.webhooks.backoffBaseMs);
  const worker = buildWorker<WebhookJobData>(WEBHOOK_QUEUE, (job, token) => deliverWebhook(job, ctx, token), {
    connection: o.connection,
    prefix,
    log: o.log,
    concurrency: o.config.webhooks.concurrency,
    lockDurationMs: o.lockDurationMs ?? 30_000,
    settings: {
      backoffStrategy: (attemptsMade, type, err, job) =>
        type === WEBHOOK_BACKOFF ? strategy(attemptsMade, type, err, job) : 1000 * 2 ** (attemptsMade - 1),
    },
    failedLevel: 'debug',
  });
  return {
    queue,
    worker,
    store,
    workers: [worker as unknown as Worker],
    dispatch: webhookDispatch(o.config, queue, store),
    tracked: [deliveryWork(o.db, o.config, queue)],
    async close() {
      await worker.close();
      await store.drain();
      await queue.close();
      closeWebhookConnections();
    },
  };
}

export const webhooksWork: WorkModule<'event.dispatch', RunningWebhooks> = {
  name: 'webhooks',
  queues: [{ name: WEBHOOK_QUEUE }],
  outboxKind: 'event.dispatch',
  emits: [],
  holdsForSweep: false,
  start: async (d) => startWebhooks(d),
};
