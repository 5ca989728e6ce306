// The typed catalogue of queues and jobs, shared by the API (enqueue through the outbox) and
// the workers. Payloads carry ids only (versioned); documents and secrets stay in Postgres.
// Job ids are deterministic (`invoice-<id>-<step>`), so a flow added twice starts nothing twice.
import type { DefaultJobOptions } from 'bullmq';

export const QUEUES = {
  sign: 'invoice-sign',
  submit: 'invoice-submit',
  accounting: 'invoice-accounting',
  status: 'invoice-status',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Batches of invoices recorded by a worker (see jobs/batch-process.ts). */
export const BATCH_QUEUE = 'invoice-batches';

/**
 * The one job of a batch, with its deterministic id (a second add collapses into it) and its place
 * in its company's turn (jobs/fair-share.ts), when it has one.
 */
export function batchJob(batchId: number, priority?: number) {
  return {
    name: 'batch.process',
    data: { v: 1 as const, batchId },
    opts: { ...DEFAULT_JOB_OPTIONS, jobId: `batch-${batchId}`, ...(priority ? { priority } : {}) },
  };
}

export const JOB_NAMES = {
  sign: 'invoice.sign',
  submit: 'invoice.submit',
  accounting: 'invoice.accounting',
  status: 'invoice.status',
} as const;

export type InvoiceStep = keyof typeof QUEUES;

/**
 * The payload of every invoice step: a chunk of invoices of one company and mode, named by a
 * deterministic id (`chunkName`), so the same chunk added twice starts nothing twice. Version 1
 * (one invoice per flow, `invoiceId`) is still read: jobs added before chunks finish as chunks of one.
 */
export interface ChunkJobData {
  v: 2;
  chunk: string;
  invoiceIds: number[];
  /** Status polls made so far (status job only). */
  polls?: number;
}

/** A job added before chunks: one invoice. */
export interface InvoiceJobData {
  v: 1;
  invoiceId: number;
  requestId?: string | null;
  polls?: number;
}

export type StepJobData = ChunkJobData | InvoiceJobData;

/** The invoices a step job carries. */
export function chunkInvoiceIds(data: StepJobData): number[] {
  return data.v === 1 ? [data.invoiceId] : data.invoiceIds;
}

/** A chunk's name from its invoices: the same invoices always make the same name. */
export function chunkName(invoiceIds: readonly number[]): string {
  const sorted = [...invoiceIds].sort((a, b) => a - b);
  let h = 0x811c9dc5; // FNV-1a over the ids: short, stable, no collision that matters at this size
  for (const id of sorted) {
    for (const ch of `${id},`) {
      h ^= ch.charCodeAt(0);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return `${sorted[0]}n${sorted.length}h${h.toString(36)}`;
}

export function chunkJobId(chunk: string, step: InvoiceStep): string {
  return `chunk-${chunk}-${step}`;
}

/** Job ids of flows added before chunks (one invoice each). */
export function invoiceJobId(invoiceId: number, step: InvoiceStep): string {
  return `invoice-${invoiceId}-${step}`;
}

/**
 * How long and how many completed jobs each queue keeps for operators (Bull Board shows recent
 * work, not only failures); Postgres keeps the record for good. Set per process from the
 * configuration (QUEUE_KEEP_COMPLETED_SECONDS, QUEUE_KEEP_COMPLETED_COUNT) by the runtime that
 * adds jobs, before it adds any. A kept job keeps its id: the reconciler removes finished jobs
 * in the way of work it re-creates (workers/reconcile-detect.ts).
 */
export const KEEP_COMPLETED = { age: 3600, count: 1000 };

export function setCompletedRetention(keep: { age: number; count: number }): void {
  KEEP_COMPLETED.age = keep.age;
  KEEP_COMPLETED.count = keep.count;
}

/** The removeOnComplete option of every job: the retention in force when the job is added. */
export const keepCompleted = () => ({ age: KEEP_COMPLETED.age, count: KEEP_COMPLETED.count });

/**
 * Transient failures retry with exponential backoff (1 s, 2 s, 4 s … about 17 minutes in all);
 * permanent ones throw UnrecoverableError. Completed jobs are kept a bounded time and count
 * (KEEP_COMPLETED); failed ones stay a week for operators.
 */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1000 },
  get removeOnComplete() {
    return keepCompleted();
  },
  removeOnFail: { age: 7 * 24 * 3600 },
};
