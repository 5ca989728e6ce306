// The webhooks part of a worker process: the `webhooks` queue, its Worker (with the custom
// backoff strategy and error listeners) and the group commit its jobs share (webhook-store.ts);
// the outbox relay's fan-out hook, which turns each committed event into one job per subscribed
// endpoint inside the relay's transaction and hands what those jobs will read to the store; and
// the webhook reconciler (pending deliveries whose job Redis lost are enqueued again).
import { Queue, type ConnectionOptions, type Worker } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { setCompletedRetention } from '../jobs/catalogue.ts';
import { eventTraceContexts, fanOutEvents, loadDeliveryContexts } from '../db/queries/webhooks.ts';
import { deliveriesAhead } from '../db/queries/queue-places.ts';
import { placeAfter, reachedPlace } from '../jobs/fair-share.ts';
import {
  deliverWebhook,
  WEBHOOK_BACKOFF,
  WEBHOOK_JOB,
  WEBHOOK_QUEUE,
  webhookBackoffStrategy,
  webhookJobOptions,
  type WebhookJobData,
} from '../jobs/webhook-deliver.ts';
import { reconcileWebhooksOnce } from './webhook-reconciler.ts';
import { closeWebhookConnections } from '../jobs/webhook-http.ts';
import { DeliveryStore } from '../jobs/webhook-store.ts';
import { buildWorker } from './worker-build.ts';
import { everyWithoutOverlap, type PeriodicPass } from './periodic-pass.ts';
import { queueTelemetry, tracingEnabled } from '../jobs/tracing.ts';

export interface WebhookRuntime {
  queue: Queue<WebhookJobData>;
  worker: Worker<WebhookJobData, string>;
  /** The group commit the delivery jobs share. */
  store: DeliveryStore;
  /** The outbox relay's `dispatchEvents` hook. */
  dispatchEvents(trx: Knex.Transaction, eventIds: number[]): Promise<void>;
  close(): Promise<void>;
}

export function startWebhooks(o: {
  config: Config;
  db: Knex;
  connection: ConnectionOptions;
  log: Logger;
  lockDurationMs?: number;
  /** The webhook reconciler's period and staleness (false: off, as in most tests). */
  reconcile?: { everyMs: number; staleMs: number } | false;
  /** How long a delivery's read or outcome waits for others to share its transaction (ms). */
  groupMs?: number;
}): WebhookRuntime {
  const prefix = o.config.queuePrefix;
  setCompletedRetention(o.config.queueKeepCompleted);
  const queue = new Queue<WebhookJobData>(WEBHOOK_QUEUE, {
    connection: o.connection,
    prefix,
    telemetry: queueTelemetry(),
  });
  queue.on('error', (err) => o.log.error({ err, queue: WEBHOOK_QUEUE }, 'queue error'));
  const store = new DeliveryStore(o.db, { groupMs: o.groupMs });
  const ctx = { log: o.log, config: o.config, now: () => new Date(), store };
  const strategy = webhookBackoffStrategy(o.config.webhooks.backoffBaseMs);
  const worker = buildWorker<WebhookJobData>(WEBHOOK_QUEUE, (job) => deliverWebhook(job, ctx), {
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

  let reconciler: PeriodicPass | null = null;
  if (o.reconcile !== false) {
    const r = o.reconcile ?? { everyMs: 30_000, staleMs: 120_000 };
    const pass = () =>
      reconcileWebhooksOnce({ db: o.db, queue, config: o.config, log: o.log, staleMs: r.staleMs });
    reconciler = everyWithoutOverlap(r.everyMs, pass, o.log, 'webhook reconciler');
  }

  return {
    queue,
    worker,
    store,
    async dispatchEvents(trx, eventIds) {
      const targets = await fanOutEvents(trx, eventIds);
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
          const opts = { ...webhookJobOptions(o.config, data), priority };
          return { name: WEBHOOK_JOB, data, opts: metadata ? { ...opts, telemetry: { metadata } } : opts };
        }),
      );
    },
    async close() {
      await reconciler?.stop();
      await worker.close();
      await store.drain();
      await queue.close();
      closeWebhookConnections();
    },
  };
}
