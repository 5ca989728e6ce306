// What every queue's jobs share: the retry schedule and retention of DEFAULT_JOB_OPTIONS, the
// completed-job retention set per process from the configuration, and the doubling delay of a
// job that polls Hacienda (status of invoices and of answers). Payloads carry ids only
// (versioned); documents and secrets stay in Postgres.
import type { DefaultJobOptions } from 'bullmq';

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

/** The delay before a job asks Hacienda again, doubling from `baseMs` up to `maxMs`. */
export function nextPollDelay(polls: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(polls, 20));
}
