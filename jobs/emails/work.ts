// The emails part of a worker process: the `emails` queue and its Worker (exponential backoff
// from EMAIL_BACKOFF_BASE_MS), the outbox relay's hook that turns committed `email.send` rows
// into jobs, and a reconciler that enqueues again pending emails whose job Redis lost.
import { Queue, type ConnectionOptions, type Worker } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { stalePendingEmails } from '../db/queries/invoice-emails.ts';
import {
  EMAIL_JOB,
  EMAIL_QUEUE,
  emailJobId,
  emailJobOptions,
  sendInvoiceEmail,
  type EmailJobData,
} from '../jobs/invoice-email.ts';
import { closeSmtpTransports } from '../jobs/smtp.ts';
import { buildWorker } from './worker-build.ts';
import { everyWithoutOverlap, type PeriodicPass } from './periodic-pass.ts';

export interface EmailRuntime {
  queue: Queue<EmailJobData>;
  worker: Worker<EmailJobData, string>;
  /** The outbox relay's `dispatchEmails` hook. */
  dispatchEmails(emailIds: number[]): Promise<void>;
  /** One reconciler pass; returns how many emails were enqueued again. */
  reconcileOnce(staleMs: number): Promise<number>;
  close(): Promise<void>;
}

export function startEmails(o: {
  config: Config;
  db: Knex;
  connection: ConnectionOptions;
  log: Logger;
  lockDurationMs?: number;
  reconcile?: { everyMs: number; staleMs: number } | false;
}): EmailRuntime {
  const prefix = o.config.queuePrefix;
  const queue = new Queue<EmailJobData>(EMAIL_QUEUE, { connection: o.connection, prefix });
  queue.on('error', (err) => o.log.error({ err, queue: EMAIL_QUEUE }, 'queue error'));
  const ctx = { db: o.db, log: o.log, config: o.config };
  const worker = buildWorker<EmailJobData>(EMAIL_QUEUE, (job) => sendInvoiceEmail(job, ctx), {
    connection: o.connection,
    prefix,
    log: o.log,
    concurrency: 8,
    lockDurationMs: Math.max(o.lockDurationMs ?? 30_000, 60_000),
  });

  const add = (ids: number[], attemptsLeft?: (id: number) => number) =>
    queue.addBulk(
      ids.map((emailId) => ({
        name: EMAIL_JOB,
        data: { v: 1 as const, emailId },
        opts: emailJobOptions(o.config, emailId, attemptsLeft?.(emailId)),
      })),
    );

  async function reconcileOnce(staleMs: number): Promise<number> {
    const rows = await stalePendingEmails(o.db, staleMs);
    if (rows.length === 0) return 0;
    const live: number[] = [];
    for (const r of rows) {
      const job = await queue.getJob(emailJobId(r.id));
      // Still waiting, delayed or running; a finished one (failed, or completed and kept for
      // Bull Board) would hold the id, so it goes.
      if (job && !(await job.isFailed()) && !(await job.isCompleted())) continue;
      if (job) await job.remove();
      live.push(r.id);
    }
    const made = new Map(rows.map((r) => [r.id, r.attempts]));
    if (live.length) await add(live, (id) => o.config.email.maxAttempts - (made.get(id) ?? 0));
    if (live.length) o.log.info({ count: live.length }, 'email reconciler: pending emails enqueued again');
    return live.length;
  }

  let reconciler: PeriodicPass | null = null;
  if (o.reconcile !== false) {
    const r = o.reconcile ?? { everyMs: 30_000, staleMs: 120_000 };
    // An email waiting out its backoff is untouched for up to EMAIL_BACKOFF_BASE_MS × 2^(attempts−2).
    const staleMs = Math.max(r.staleMs, o.config.email.backoffBaseMs * 2 ** (o.config.email.maxAttempts - 1));
    reconciler = everyWithoutOverlap(r.everyMs, () => reconcileOnce(staleMs), o.log, 'email reconciler');
  }

  return {
    queue,
    worker,
    dispatchEmails: (ids) => add(ids).then(() => undefined),
    reconcileOnce,
    async close() {
      await reconciler?.stop();
      await worker.close();
      await queue.close();
      closeSmtpTransports();
    },
  };
}
