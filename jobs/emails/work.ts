// Emails as a work module: the `emails` queue and its Worker (exponential backoff from
// EMAIL_BACKOFF_BASE_MS, send.ts), the relay's dispatch of `email.send` rows, and the
// reconciler's hook (pending emails whose job Redis lost are enqueued again with the attempts left).
import { Queue } from 'bullmq';
import type { Knex } from 'knex';
import type { Config } from '../../config/index.ts';
import { pendingEmailsPage, type InvoiceEmailRow } from '../../db/queries/invoice-emails.ts';
import { buildWorker } from '../../platform/worker-build.ts';
import type { RunningWork, TrackedWork, WorkDeps, WorkModule } from '../work.ts';
import {
  EMAIL_JOB,
  EMAIL_QUEUE,
  emailJobId,
  emailJobOptions,
  sendInvoiceEmail,
  type EmailJobData,
} from './send.ts';
import { closeSmtpTransports } from './smtp.ts';

/** Emails sent at once per process; an SMTP exchange holds its lock at least a minute. */
const CONCURRENCY = 8;
const MIN_LOCK_MS = 60_000;

const addEmails = (
  config: Config,
  queue: Queue<EmailJobData>,
  ids: number[],
  attemptsLeft?: (id: number) => number,
) =>
  queue.addBulk(
    ids.map((emailId) => ({
      name: EMAIL_JOB,
      data: { v: 1 as const, emailId },
      opts: emailJobOptions(config, emailId, attemptsLeft?.(emailId)),
    })),
  );

/**
 * Pending emails no live job carries. An email waiting out its backoff is untouched for up to
 * EMAIL_BACKOFF_BASE_MS × 2^(attempts−2): a routine pass waits at least that long before it looks.
 */
function emailWork(db: Knex, config: Config, queue: Queue<EmailJobData>): TrackedWork<InvoiceEmailRow> {
  const backoffMs = config.email.backoffBaseMs * 2 ** (config.email.maxAttempts - 1);
  return {
    name: 'emails',
    page: (afterId, limit, staleMs) =>
      pendingEmailsPage(db, afterId, limit, staleMs === null ? null : Math.max(staleMs, backoffMs)),
    jobsOf: (row) => [{ queue: queue as Queue, id: emailJobId(row.id) }],
    async recreate(rows) {
      const made = new Map(rows.map((r) => [r.id, r.attempts]));
      await addEmails(
        config,
        queue,
        rows.map((r) => r.id),
        (id) => config.email.maxAttempts - (made.get(id) ?? 0),
      );
    },
  };
}

async function startEmails(d: WorkDeps): Promise<RunningWork<'email.send'>> {
  const prefix = d.config.queuePrefix;
  const queue = new Queue<EmailJobData>(EMAIL_QUEUE, { connection: d.connection, prefix });
  queue.on('error', (err) => d.log.error({ err, queue: EMAIL_QUEUE }, 'queue error'));
  const ctx = { db: d.db, log: d.log, config: d.config };
  const worker = buildWorker<EmailJobData>(EMAIL_QUEUE, (job) => sendInvoiceEmail(job, ctx), {
    connection: d.connection,
    prefix,
    log: d.log,
    concurrency: d.concurrency?.[EMAIL_QUEUE] ?? CONCURRENCY,
    lockDurationMs: Math.max(d.lockDurationMs, MIN_LOCK_MS),
  });
  return {
    workers: [worker],
    dispatch: async (_trx, rows) => {
      const ids = rows.filter((r) => r.payload.emailId).map((r) => Number(r.payload.emailId));
      if (ids.length) await addEmails(d.config, queue, ids);
    },
    tracked: [emailWork(d.db, d.config, queue)],
    async close() {
      await worker.close();
      await queue.close();
      closeSmtpTransports();
    },
  };
}

export const emailsWork: WorkModule<'email.send'> = {
  name: 'emails',
  queues: [{ name: EMAIL_QUEUE }],
  outboxKind: 'email.send',
  emits: ['invoice.emailed', 'email.failed'],
  holdsForSweep: false,
  start: startEmails,
};
