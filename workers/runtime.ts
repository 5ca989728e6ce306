// Everything a worker process runs, as one start/stop pair so tests can run it in-process: every
// work module of the registry (jobs/registry.ts: its Workers, on every queue shard), the outbox
// relay that hands each module its outbox rows, the reconciler that walks each module's tracked
// work, and the publisher of this process's metrics.
import type { ConnectionOptions, Queue } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { HaciendaAccess, JobContext } from '../jobs/context.ts';
import type { InvoiceStep } from '../jobs/invoice-flow/queues.ts';
import { dispatchByKind, startAllWork, type RunningRegistry } from '../jobs/registry.ts';
import type { WorkDeps } from '../jobs/work.ts';
import { createLimiter } from '../platform/map-limit.ts';
import { startMetricsPublisher } from '../platform/metrics.ts';
import { openStore } from '../platform/queue-store.ts';
import type { QueueShards } from '../platform/shards.ts';
import { createRelay, type Relay } from './outbox-relay.ts';
import { startRegistryReconciler, type RegistryReconciler } from './reconcile-registry.ts';
import type { PassResult } from './reconciler.ts';

export interface RuntimeOptions {
  config: Config;
  db: Knex;
  connection: ConnectionOptions;
  log: Logger;
  /** Jobs at once per process by queue name; defaults tuned for 2 cores in each work module. */
  concurrency?: Partial<Record<string, number>>;
  statusPoll?: { baseMs: number; maxMs: number };
  reconcile?: { everyMs: number; staleMs: number } | false;
  relayPollMs?: number;
  /** Hacienda for every company: tokens, signers and reception clients (jobs/context.ts). */
  hacienda: HaciendaAccess;
  /** Lock duration of active jobs; a killed worker's jobs return to the queue after it. */
  lockDurationMs?: number;
}

export interface Runtime {
  /** Every work module running in this process (jobs/registry.ts). */
  work: RunningRegistry;
  /** The flow's queues of the first shard (the only one unless QUEUE_SHARDS is set). */
  queues: Record<InvoiceStep, Queue>;
  shards: QueueShards<InvoiceStep>;
  relay: Relay;
  /** The reconciler's periodic passes (null when turned off). */
  reconciler: RegistryReconciler['loop'];
  /** One routine reconciler pass now over the tracked work named (all when none), whatever `reconcile` says. */
  reconcileNow(o: { staleMs: number; only?: string[] }): Promise<PassResult>;
  close(): Promise<void>;
}

/**
 * The relay's fallback poll while its LISTEN connection is up: a notification lost on the way
 * (none is, short of a bug) waits this long; while the connection is down it polls every second.
 */
const RELAY_LISTENING_POLL_MS = 5000;

/** Hacienda calls in flight per worker process (chunks' POSTs and status GETs together). */
const HACIENDA_CALLS_PER_PROCESS = 32;

/** What every handler gets (jobs/context.ts). */
function jobContext(o: RuntimeOptions): JobContext {
  return {
    db: o.db,
    log: o.log,
    config: o.config,
    hacienda: o.hacienda,
    now: () => new Date(),
    statusPoll: o.statusPoll ?? { baseMs: 1000, maxMs: 5 * 60_000 },
    haciendaCalls: createLimiter(HACIENDA_CALLS_PER_PROCESS),
  };
}

export async function startRuntime(o: RuntimeOptions): Promise<Runtime> {
  const deps: WorkDeps = { ...o, ctx: jobContext(o), lockDurationMs: o.lockDurationMs ?? 30_000 };
  const work = await startAllWork(deps);
  const relay = createRelay({
    ...deps,
    pollMs: o.relayPollMs,
    listeningPollMs: o.relayPollMs ?? RELAY_LISTENING_POLL_MS,
    gatherMs: o.config.workers.chunkGatherMs,
    dispatch: dispatchByKind(work),
  });
  await relay.start();
  const reconciling = startRegistryReconciler(deps, work, o.reconcile);

  // Job durations, Hacienda calls and webhook deliveries recorded in this process go to Redis
  // as cluster-wide totals, read by the API's /metrics (see platform/metrics.ts).
  const metricsRedis = openStore(o.config, 'worker', { lazyConnect: true });
  metricsRedis.on('error', (err) => o.log.warn({ err: err.message }, 'metrics Redis connection error'));
  const publisher = startMetricsPublisher({
    redis: metricsRedis,
    queuePrefix: o.config.queuePrefix,
    everyMs: o.config.metricsPublishMs,
    log: o.log,
  });

  return {
    work,
    queues: work.invoiceFlow.shards.shards[0]!,
    shards: work.invoiceFlow.shards,
    relay,
    reconciler: reconciling.loop,
    reconcileNow: reconciling.routinePass,
    async close() {
      await reconciling.stop();
      await relay.stop();
      for (const w of Object.values<{ close(): Promise<void> }>(work).reverse()) await w.close();
      await publisher.stop();
      metricsRedis.disconnect();
    },
  };
}
