// Batches of invoices recorded by a worker: the `invoice-batches` queue, its one job per batch
// (`batch-<id>`, payload `{ v: 1, batchId }`), the relay's dispatch of `batch.process` outbox rows
// (each batch after the ones its company already has in progress) and the reconciler's hook
// (batches still `processing` whose job Redis lost). The handler is process.ts.
import { Queue } from 'bullmq';
import type { Knex } from 'knex';
import { processingBatchesPage } from '../../db/queries/in-flight.ts';
import { batchesAhead } from '../../db/queries/queue-places.ts';
import { buildWorker } from '../../platform/worker-build.ts';
import { placeAfter, reachedPlace } from '../fair-share.ts';
import { DEFAULT_JOB_OPTIONS } from '../job-options.ts';
import type { Dispatch, RunningWork, TrackedWork, WorkDeps, WorkModule } from '../work.ts';
import { processBatch, type BatchJobData } from './process.ts';

/** Batches of invoices recorded by a worker (see process.ts). */
export const BATCH_QUEUE = 'invoice-batches';
export const BATCH_JOB = 'batch.process';
/** Batches recorded at once per process; each holds its lock at least this long. */
const CONCURRENCY = 2;
const MIN_LOCK_MS = 30_000;

/**
 * The one job of a batch, with its deterministic id (a second add collapses into it) and its place
 * in its company's turn (jobs/fair-share.ts), when it has one.
 */
export function batchJob(batchId: number, priority?: number) {
  return {
    name: BATCH_JOB,
    data: { v: 1 as const, batchId },
    opts: { ...DEFAULT_JOB_OPTIONS, jobId: `batch-${batchId}`, ...(priority ? { priority } : {}) },
  };
}

/** Adds the jobs of these batches, each after the batches its company already has in progress. */
async function addBatches(db: Knex | Knex.Transaction, queue: Queue, batchIds: number[]): Promise<void> {
  const [ahead, reached] = await Promise.all([batchesAhead(db, batchIds), reachedPlace(queue)]);
  await queue.addBulk(batchIds.map((id) => batchJob(id, placeAfter(reached, ahead.get(id) ?? 0))));
}

/** The relay's dispatch: `batch.process` rows become `batch-<id>` jobs. */
export function batchDispatch(queue: Queue): Dispatch<'batch.process'> {
  return async (trx, rows) => {
    const ids = rows.filter((r) => r.payload.batchId).map((r) => Number(r.payload.batchId));
    if (ids.length) await addBatches(trx, queue, ids);
  };
}

/** Batches still processing that no live job carries. */
export function batchWork(db: Knex, queue: Queue): TrackedWork {
  return {
    name: 'batches',
    page: (afterId, limit, staleMs) => processingBatchesPage(db, afterId, limit, staleMs),
    jobsOf: (row) => [{ queue, id: batchJob(row.id).opts.jobId }],
    recreate: (rows) =>
      addBatches(
        db,
        queue,
        rows.map((r) => r.id),
      ),
  };
}

export const batchesWork: WorkModule<'batch.process'> = {
  name: 'batches',
  queues: [{ name: BATCH_QUEUE }],
  outboxKind: 'batch.process',
  emits: ['invoice.created (per recorded item)'],
  holdsForSweep: true,
  async start(d: WorkDeps): Promise<RunningWork<'batch.process'>> {
    const prefix = d.config.queuePrefix;
    const queue = new Queue(BATCH_QUEUE, { connection: d.connection, prefix });
    queue.on('error', (err) => d.log.error({ err, queue: BATCH_QUEUE }, 'queue error'));
    const worker = buildWorker<BatchJobData>(BATCH_QUEUE, (job) => processBatch(job, d.ctx), {
      connection: d.connection,
      prefix,
      log: d.log,
      concurrency: d.concurrency?.[BATCH_QUEUE] ?? CONCURRENCY,
      lockDurationMs: Math.max(d.lockDurationMs, MIN_LOCK_MS),
      versions: [1],
    });
    return {
      workers: [worker],
      dispatch: batchDispatch(queue),
      tracked: [batchWork(d.db, queue)],
      async close() {
        await worker.close();
        await queue.close();
      },
    };
  },
};
