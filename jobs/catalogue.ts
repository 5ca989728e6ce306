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

/** The one job of a batch, with its deterministic id (a second add collapses into it). */
export function batchJob(batchId: number) {
  return {
    name: 'batch.process',
    data: { v: 1 as const, batchId },
    opts: { ...DEFAULT_JOB_OPTIONS, jobId: `batch-${batchId}` },
  };
}

export const JOB_NAMES = {
  sign: 'invoice.sign',
  submit: 'invoice.submit',
  accounting: 'invoice.accounting',
  status: 'invoice.status',
} as const;

export type InvoiceStep = keyof typeof QUEUES;

export interface InvoiceJobData {
  v: 1;
  invoiceId: number;
  requestId?: string | null;
  /** Status polls made so far (status job only). */
  polls?: number;
}

export function invoiceJobId(invoiceId: number, step: InvoiceStep): string {
  return `invoice-${invoiceId}-${step}`;
}

/**
 * Transient failures retry with exponential backoff (1 s, 2 s, 4 s … about 17 minutes in all);
 * permanent ones throw UnrecoverableError. Completed jobs are removed (Postgres keeps the
 * record); failed ones stay a week for operators.
 */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
};
