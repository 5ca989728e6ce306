// Everything a worker process runs, as one start/stop pair so tests can run it in-process:
// every BullMQ Worker (built from the job catalogue, jobs/job-catalogue.ts, by worker-build.ts),
// on every queue shard (jobs/shards.ts), the outbox relay and the reconcilers. Its own Redis
// connections (wake notes, reconciler, metrics) come from jobs/redis.ts, one server or a Cluster.
import { FlowProducer, Queue, type ConnectionOptions, type Worker } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { BATCH_QUEUE, setCompletedRetention, type InvoiceStep } from '../jobs/catalogue.ts';
import { createHaciendaAccess, type HaciendaAccess, type JobContext } from '../jobs/context.ts';
import { createRelay, type Relay } from './outbox-relay.ts';
import { startReconciler, type ReconcilerLoop } from './reconcile-loop.ts';
import { batchWork, invoiceWork } from './reconcile-work.ts';
import { startWebhooks, type WebhookRuntime } from './webhook-runtime.ts';
import { startEmails, type EmailRuntime } from './email-runtime.ts';
import { startReceived, type ReceivedRuntime } from './received-runtime.ts';
import type { RedisClient } from '../jobs/redis.ts';
import { openStore } from '../jobs/queue-store.ts';
import { startMetricsPublisher } from '../jobs/metrics.ts';
import { createLimiter } from '../jobs/map-limit.ts';
import { BATCH_JOB, INVOICE_JOBS, type JobDefinition } from '../jobs/job-catalogue.ts';
import { buildWorker } from './worker-build.ts';
import { openQueueShards, type QueueShards } from '../jobs/shards.ts';
import { wakeIfNoted } from '../jobs/status-wake.ts';
import { reachedPlace } from '../jobs/fair-share.ts';
import { queueTelemetry } from '../jobs/tracing.ts';

export interface RuntimeOptions {
  config: Config;
  db: Knex;
  connection: ConnectionOptions;
  log: Logger;
  /** Defaults tuned for 2 cores: signing is CPU-bound, the rest waits on I/O. */
  concurrency?: Partial<Record<InvoiceStep, number>>;
  statusPoll?: { baseMs: number; maxMs: number };
  reconcile?: { everyMs: number; staleMs: number } | false;
  relayPollMs?: number;
  hacienda?: HaciendaAccess;
  /** Lock duration of active jobs; a killed worker's jobs return to the queue after it. */
  lockDurationMs?: number;
}

export interface Runtime {
  /** The flow's queues of the first shard (the only one unless QUEUE_SHARDS is set). */
  queues: Record<InvoiceStep, Queue>;
  shards: QueueShards;
  flows: FlowProducer;
  relay: Relay;
  workers: Worker[];
  /** The `webhooks` queue and its worker (deliveries fanned out by the relay). */
  webhooks: WebhookRuntime;
  /** The `emails` queue and its worker (documents emailed to their receptor). */
  emails: EmailRuntime;
  /** The `received-answers` queue and its worker (MensajeReceptor of received documents). */
  received: ReceivedRuntime;
  /** The invoice and batch reconciler (null when turned off). */
  reconciler: ReconcilerLoop | null;
  close(): Promise<void>;
}

/** Hacienda calls in flight per worker process (chunks' POSTs and status GETs together). */
const HACIENDA_CALLS_PER_PROCESS = 32;

export async function startRuntime(o: RuntimeOptions): Promise<Runtime> {
  const prefix = o.config.queuePrefix;
  setCompletedRetention(o.config.queueKeepCompleted);
  const ctx: JobContext = {
    db: o.db,
    log: o.log,
    config: o.config,
    hacienda: o.hacienda ?? createHaciendaAccess(o.db, o.config),
    now: () => new Date(),
    statusPoll: o.statusPoll ?? { baseMs: 1000, maxMs: 5 * 60_000 },
    haciendaCalls: createLimiter(HACIENDA_CALLS_PER_PROCESS),
  };
  const shards = openQueueShards(o.connection, prefix, o.config.queueShards);
  const queues = shards.shards[0]!;
  // Notes left by Hacienda's callback for status jobs that were not asleep yet (status-wake.ts).
  const notesRedis = openStore(o.config, 'worker', { maxRetriesPerRequest: 1 });
  notesRedis.on('error', (err) => o.log.debug({ err: err.message }, 'wake-note Redis connection error'));
  ctx.wakeIfNoted = (job) =>
    wakeIfNoted(shards.byPrefix(job.prefix).status, notesRedis, job).catch(() => false);
  const flows = new FlowProducer({ connection: o.connection, prefix, telemetry: queueTelemetry() });
  flows.on('error', (err) => o.log.error({ err }, 'flow producer error'));
  for (const q of shards.all()) q.on('error', (err) => o.log.error({ err, queue: q.name }, 'queue error'));

  // Every Worker of the invoice flow and of batches, from the job catalogue.
  const lockDurationMs = o.lockDurationMs ?? 30_000;
  const build = (def: JobDefinition<never>, concurrency: number, on = prefix) =>
    buildWorker<never>(def.queue, (job, token) => def.handler(job, ctx, token), {
      connection: o.connection,
      prefix: on,
      log: o.log,
      concurrency,
      lockDurationMs: Math.max(lockDurationMs, def.minLockMs ?? 0),
      versions: def.versions,
    }) as unknown as Worker;
  // Every shard is consumed; the process's concurrency per step is shared out among them.
  const perShard = (c: number) => Math.max(1, Math.ceil(c / shards.prefixes.length));
  const workers = shards.prefixes.flatMap((shardPrefix) =>
    (Object.keys(INVOICE_JOBS) as InvoiceStep[]).map((step) =>
      build(
        INVOICE_JOBS[step] as JobDefinition<never>,
        perShard(o.concurrency?.[step] ?? INVOICE_JOBS[step].concurrency),
        shardPrefix,
      ),
    ),
  );
  const batches = new Queue(BATCH_QUEUE, { connection: o.connection, prefix });
  batches.on('error', (err) => o.log.error({ err, queue: BATCH_QUEUE }, 'queue error'));
  workers.push(build(BATCH_JOB as JobDefinition<never>, BATCH_JOB.concurrency));

  const webhooks = startWebhooks({
    config: o.config,
    db: o.db,
    connection: o.connection,
    log: o.log,
    lockDurationMs: o.lockDurationMs,
    reconcile: o.reconcile,
  });

  const emails = startEmails({
    config: o.config,
    db: o.db,
    connection: o.connection,
    log: o.log,
    lockDurationMs: o.lockDurationMs,
    reconcile: o.reconcile,
  });

  const received = startReceived({
    ctx,
    db: o.db,
    connection: o.connection,
    prefix,
    log: o.log,
    lockDurationMs: o.lockDurationMs,
    reconcile: o.reconcile,
  });

  const relay = createRelay({
    dispatchEvents: webhooks.dispatchEvents,
    dispatchEmails: emails.dispatchEmails,
    dispatchAnswers: received.dispatchAnswers,
    db: o.db,
    databaseUrl: o.config.databaseUrl,
    flows,
    prefixOf: shards.prefixOf,
    reached: (companyId) => reachedPlace(shards.of(companyId).sign),
    log: o.log,
    chunkSize: o.config.workers.chunkSize,
    pollMs: o.relayPollMs,
    batches,
  });
  await relay.start();

  // The reconciler has a Redis connection of its own that fails fast while Redis is away (its
  // marker check must not queue up behind an outage).
  let reconciler: ReconcilerLoop | null = null;
  let reconcileRedis: RedisClient | null = null;
  if (o.reconcile !== false) {
    const r = o.reconcile ?? { everyMs: 30_000, staleMs: 120_000 };
    reconcileRedis = openStore(o.config, 'worker', { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    reconcileRedis.on('error', (err) =>
      o.log.debug({ err: err.message }, 'reconciler Redis connection error'),
    );
    reconciler = startReconciler({
      db: o.db,
      redis: reconcileRedis,
      queuePrefix: prefix,
      log: o.log,
      work: [batchWork(o.db, batches), invoiceWork(o.db, flows, shards, o.config.workers.chunkSize)],
      staleMs: r.staleMs,
      budgetMs: Math.max(500, r.everyMs / 2),
      everyMs: r.everyMs,
      duringSweep: {
        start: async () => {
          await Promise.all(workers.map((w) => w.pause(true)));
        },
        end: () => workers.forEach((w) => void w.resume()),
      },
    });
  }

  // Job durations, Hacienda calls and webhook deliveries recorded in this process go to Redis
  // as cluster-wide totals, read by the API's /metrics (see jobs/metrics.ts).
  const metricsRedis = openStore(o.config, 'worker', { lazyConnect: true });
  metricsRedis.on('error', (err) => o.log.warn({ err: err.message }, 'metrics Redis connection error'));
  const publisher = startMetricsPublisher({
    redis: metricsRedis,
    queuePrefix: prefix,
    everyMs: o.config.metricsPublishMs,
    log: o.log,
  });

  return {
    queues,
    shards,
    flows,
    relay,
    workers,
    webhooks,
    emails,
    received,
    reconciler,
    async close() {
      await reconciler?.stop();
      reconcileRedis?.disconnect();
      await relay.stop();
      await webhooks.close();
      await emails.close();
      await received.close();
      await Promise.all(workers.map((w) => w.close()));
      await publisher.stop();
      metricsRedis.disconnect();
      notesRedis.disconnect();
      await flows.close();
      await shards.close();
      await batches.close();
    },
  };
}
