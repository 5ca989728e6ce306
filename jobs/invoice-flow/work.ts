// The catalogue of the jobs a worker process runs for the invoice flow and batches: for each queue,
// its job name, payload version, how many run at once per process, the shortest lock it needs and
// its handler. The worker runtime builds every Worker from it in one loop (workers/worker-build.ts);
// the webhook and email queues, with their own retry schedules, are built by the same builder.
import type { Job } from 'bullmq';
import { processBatch, type BatchJobData } from './batch-process.ts';
import { BATCH_QUEUE, JOB_NAMES, QUEUES, type InvoiceStep, type StepJobData } from './catalogue.ts';
import type { JobContext } from './context.ts';
import { accountChunk } from './invoice-accounting.ts';
import { signChunk } from './invoice-sign.ts';
import { pollChunkStatus } from './invoice-status.ts';
import { submitChunk } from './invoice-submit.ts';

export interface JobDefinition<Data> {
  queue: string;
  name: string;
  /** The payload versions the handler reads. */
  versions: readonly number[];
  /** Jobs of this queue running at once in one process (a default; the runtime may override it). */
  concurrency: number;
  /** The lock of an active job is at least this long (a long step must not look stalled). */
  minLockMs?: number;
  handler(job: Job<Data>, ctx: JobContext, token?: string): Promise<string>;
}

/** Signing is CPU-bound (two chunks at once); the rest waits on Hacienda, Postgres or Redis. */
export const INVOICE_JOBS: Record<InvoiceStep, JobDefinition<StepJobData>> = {
  sign: { queue: QUEUES.sign, name: JOB_NAMES.sign, versions: [1, 2], concurrency: 2, handler: signChunk },
  submit: {
    queue: QUEUES.submit,
    name: JOB_NAMES.submit,
    versions: [1, 2],
    concurrency: 16,
    handler: submitChunk,
  },
  accounting: {
    queue: QUEUES.accounting,
    name: JOB_NAMES.accounting,
    versions: [1, 2],
    concurrency: 4,
    handler: accountChunk,
  },
  status: {
    queue: QUEUES.status,
    name: JOB_NAMES.status,
    versions: [1, 2],
    concurrency: 16,
    handler: pollChunkStatus,
  },
};

export const BATCH_JOB: JobDefinition<BatchJobData> = {
  queue: BATCH_QUEUE,
  name: 'batch.process',
  versions: [1],
  concurrency: 2,
  minLockMs: 30_000,
  handler: (job, ctx) => processBatch(job, ctx),
};
