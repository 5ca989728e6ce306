// The invoice flow as a work module: sign → submit → accounting → status, one queue per step on
// every shard (platform/shards.ts), each job a chunk of invoices (`chunk-<name>-<step>`, payload
// `{ v: 2, chunk, invoiceIds }`). It starts the Workers of every step on every shard (the
// process's concurrency per step shared out among the shards), the flow producer, the relay's
// dispatch of `invoice.flow` rows (dispatch.ts) and the reconciler's hook (reconcile.ts).
import { FlowProducer, type Job, type Worker } from 'bullmq';
import { openStore } from '../../platform/queue-store.ts';
import type { QueueShards } from '../../platform/shards.ts';
import { queueTelemetry } from '../../platform/tracing.ts';
import { buildWorker } from '../../platform/worker-build.ts';
import type { JobContext } from '../context.ts';
import { reachedPlace } from '../fair-share.ts';
import type { RunningWork, WorkDeps, WorkModule } from '../work.ts';
import { accountChunk } from './accounting.ts';
import { flowDispatch } from './dispatch.ts';
import { openFlowShards, QUEUES, type ChunkJobData, type InvoiceStep } from './queues.ts';
import { invoiceWork } from './reconcile.ts';
import { signChunk } from './sign.ts';
import { pollChunkStatus } from './status.ts';
import { wakeIfNoted } from './status-wake.ts';
import { submitChunk } from './submit.ts';

interface Step {
  /** Jobs of this step running at once in one process (the runtime may override it). */
  concurrency: number;
  handler(job: Job<ChunkJobData>, ctx: JobContext, token?: string): Promise<string>;
}

/** Signing is CPU-bound (two chunks at once); the rest waits on Hacienda, Postgres or Redis. */
const STEPS: Record<InvoiceStep, Step> = {
  sign: { concurrency: 2, handler: signChunk },
  submit: { concurrency: 16, handler: submitChunk },
  accounting: { concurrency: 4, handler: accountChunk },
  status: { concurrency: 16, handler: pollChunkStatus },
};

export interface RunningFlow extends RunningWork<'invoice.flow'> {
  shards: QueueShards<InvoiceStep>;
  flows: FlowProducer;
}

/** The Workers of every step on every shard; each shard gets its share of the step's concurrency. */
function stepWorkers(d: WorkDeps, shards: QueueShards<InvoiceStep>, ctx: JobContext): Worker[] {
  const perShard = (c: number) => Math.max(1, Math.ceil(c / shards.prefixes.length));
  return shards.prefixes.flatMap((prefix) =>
    (Object.keys(STEPS) as InvoiceStep[]).map(
      (step) =>
        buildWorker<ChunkJobData>(QUEUES[step], (job, token) => STEPS[step].handler(job, ctx, token), {
          connection: d.connection,
          prefix,
          log: d.log,
          concurrency: perShard(d.concurrency?.[QUEUES[step]] ?? STEPS[step].concurrency),
          lockDurationMs: d.lockDurationMs,
          versions: [2],
        }) as unknown as Worker,
    ),
  );
}

async function startFlow(d: WorkDeps): Promise<RunningFlow> {
  const prefix = d.config.queuePrefix;
  const shards = openFlowShards(d.connection, prefix, d.config.queueShards);
  for (const q of shards.all()) q.on('error', (err) => d.log.error({ err, queue: q.name }, 'queue error'));
  // Notes left by Hacienda's callback for status jobs that were not asleep yet (status-wake.ts).
  const notes = openStore(d.config, 'worker', { maxRetriesPerRequest: 1 });
  notes.on('error', (err) => d.log.debug({ err: err.message }, 'wake-note Redis connection error'));
  const ctx: JobContext = {
    ...d.ctx,
    wakeIfNoted: (job) => wakeIfNoted(shards.byPrefix(job.prefix).status, notes, job).catch(() => false),
  };
  const flows = new FlowProducer({ connection: d.connection, prefix, telemetry: queueTelemetry() });
  flows.on('error', (err) => d.log.error({ err }, 'flow producer error'));
  const workers = stepWorkers(d, shards, ctx);
  const chunkSize = d.config.workers.chunkSize;
  return {
    shards,
    flows,
    workers,
    dispatch: flowDispatch({
      flows,
      chunkSize,
      prefixOf: shards.prefixOf,
      reached: (companyId) => reachedPlace(shards.of(companyId).sign),
    }),
    tracked: [invoiceWork(d.db, flows, shards, chunkSize)],
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      notes.disconnect();
      await flows.close();
      await shards.close();
    },
  };
}

export const invoiceFlowWork: WorkModule<'invoice.flow', RunningFlow> = {
  name: 'invoice-flow',
  queues: Object.values(QUEUES).map((name) => ({ name, sharded: true })),
  outboxKind: 'invoice.flow',
  emits: [
    'invoice.sent',
    'invoice.accepted',
    'invoice.rejected',
    'invoice.processing_failed',
    'payment.created, invoice.paid (cash sales)',
  ],
  holdsForSweep: true,
  start: startFlow,
};
