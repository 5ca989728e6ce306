// Answers to received documents as a work module: the `received-answers` queue and its Worker
// (answer.ts), the relay's dispatch of `received.answer` rows, and the reconciler's hook (an
// answer still on its way whose job Redis lost, or that failed for a transient reason past its
// attempts, gets its job again).
import { Queue } from 'bullmq';
import { pendingAnswersPage } from '../../db/queries/received-documents.ts';
import { buildWorker } from '../../platform/worker-build.ts';
import type { RunningWork, WorkDeps, WorkModule } from '../work.ts';
import {
  ANSWER_QUEUE,
  answerJob,
  answerJobId,
  answerReceivedDocument,
  type AnswerJobData,
} from './answer.ts';

/** Answers sent at once per process. */
const CONCURRENCY = 4;

async function startAnswers(d: WorkDeps): Promise<RunningWork<'received.answer'>> {
  const prefix = d.config.queuePrefix;
  const queue = new Queue<AnswerJobData>(ANSWER_QUEUE, { connection: d.connection, prefix });
  queue.on('error', (err) => d.log.error({ err, queue: ANSWER_QUEUE }, 'queue error'));
  const worker = buildWorker<AnswerJobData>(
    ANSWER_QUEUE,
    (job, token) => answerReceivedDocument(job, d.ctx, token),
    {
      connection: d.connection,
      prefix,
      log: d.log,
      concurrency: d.concurrency?.[ANSWER_QUEUE] ?? CONCURRENCY,
      lockDurationMs: d.lockDurationMs,
      versions: [1],
    },
  );
  const add = async (ids: number[]) => {
    if (ids.length) await queue.addBulk(ids.map(answerJob));
  };
  return {
    workers: [worker],
    dispatch: (_trx, rows) =>
      add(rows.filter((r) => r.payload.receivedId).map((r) => Number(r.payload.receivedId))),
    tracked: [
      {
        name: 'answers',
        page: (afterId, limit, staleMs) => pendingAnswersPage(d.db, afterId, limit, staleMs),
        jobsOf: (row) => [{ queue: queue as Queue, id: answerJobId(row.id) }],
        recreate: (rows) => add(rows.map((r) => r.id)),
      },
    ],
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}

export const receivedAnswersWork: WorkModule<'received.answer'> = {
  name: 'received-answers',
  queues: [{ name: ANSWER_QUEUE }],
  outboxKind: 'received.answer',
  emits: ['received_document.answered'],
  holdsForSweep: false,
  start: startAnswers,
};
