// The received-documents part of a worker process: the `received-answers` queue and its Worker
// (jobs/received-answer.ts), the outbox relay's hook that turns committed `received.answer` rows
// into jobs, and a reconciler that adds again the job of an answer still on its way whose job
// Redis lost (or that failed for a transient reason past its attempts).
import { Queue, type ConnectionOptions, type Worker } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { staleAnswers } from '../db/queries/received-documents.ts';
import type { JobContext } from '../jobs/context.ts';
import {
  ANSWER_QUEUE,
  answerJob,
  answerJobId,
  answerReceivedDocument,
  type AnswerJobData,
} from '../jobs/received-answer.ts';
import { buildWorker } from './worker-build.ts';
import { everyWithoutOverlap, type PeriodicPass } from './periodic-pass.ts';

export interface ReceivedRuntime {
  queue: Queue<AnswerJobData>;
  worker: Worker<AnswerJobData, string>;
  /** The outbox relay's `dispatchAnswers` hook. */
  dispatchAnswers(receivedIds: number[]): Promise<void>;
  /** One reconciler pass; returns how many answers were enqueued again. */
  reconcileOnce(staleMs: number): Promise<number>;
  close(): Promise<void>;
}

export function startReceived(o: {
  ctx: JobContext;
  db: Knex;
  connection: ConnectionOptions;
  prefix: string;
  log: Logger;
  lockDurationMs?: number;
  reconcile?: { everyMs: number; staleMs: number } | false;
}): ReceivedRuntime {
  const queue = new Queue<AnswerJobData>(ANSWER_QUEUE, { connection: o.connection, prefix: o.prefix });
  queue.on('error', (err) => o.log.error({ err, queue: ANSWER_QUEUE }, 'queue error'));
  const worker = buildWorker<AnswerJobData>(
    ANSWER_QUEUE,
    (job, token) => answerReceivedDocument(job, o.ctx, token),
    {
      connection: o.connection,
      prefix: o.prefix,
      log: o.log,
      concurrency: 4,
      lockDurationMs: o.lockDurationMs ?? 30_000,
      versions: [1],
    },
  );
  const add = (ids: number[]) => queue.addBulk(ids.map(answerJob)).then(() => undefined);

  async function reconcileOnce(staleMs: number): Promise<number> {
    const ids = await staleAnswers(o.db, staleMs);
    const again: number[] = [];
    for (const id of ids) {
      const job = await queue.getJob(answerJobId(id));
      if (job && !(await job.isFailed()) && !(await job.isCompleted())) continue; // waiting, delayed or running
      if (job) await job.remove();
      again.push(id);
    }
    if (again.length) {
      await add(again);
      o.log.info({ count: again.length }, 'answer reconciler: answers enqueued again');
    }
    return again.length;
  }

  let reconciler: PeriodicPass | null = null;
  if (o.reconcile !== false) {
    const r = o.reconcile ?? { everyMs: 30_000, staleMs: 120_000 };
    reconciler = everyWithoutOverlap(r.everyMs, () => reconcileOnce(r.staleMs), o.log, 'answer reconciler');
  }

  return {
    queue,
    worker,
    dispatchAnswers: add,
    reconcileOnce,
    async close() {
      await reconciler?.stop();
      await worker.close();
      await queue.close();
    },
  };
}
