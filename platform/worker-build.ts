// Every BullMQ Worker of the process is built here: the same connection and prefix, the lock and
// stall settings, error, stall and failure logging, and job metrics, whatever its queue.
import { UnrecoverableError, Worker, type ConnectionOptions, type Job, type WorkerOptions } from 'bullmq';
import type { Logger } from 'pino';
import { instrumentWorker } from './metrics.ts';
import { queueTelemetry } from './tracing.ts';

/** How long an idle Worker's blocking wait for a job lasts before it asks again. */
const IDLE_BLOCK_SECONDS = 10;

export interface WorkerBuild {
  connection: ConnectionOptions;
  prefix: string;
  log: Logger;
  concurrency: number;
  /** The lock of an active job; a killed worker's jobs return to the queue after it. */
  lockDurationMs: number;
  settings?: WorkerOptions['settings'];
  /** Payload versions the processor reads; another version fails for good, visibly. */
  versions?: readonly number[];
  /** How a failed attempt is logged (webhook receivers fail often and loudly enough on their own). */
  failedLevel?: 'warn' | 'debug';
}

export function buildWorker<Data extends { v?: number }>(
  queue: string,
  processor: (job: Job<Data>, token?: string) => Promise<string>,
  b: WorkerBuild,
): Worker<Data, string> {
  const worker = new Worker<Data, string>(
    queue,
    async (job, token) => {
      if (b.versions && !b.versions.includes(job.data.v ?? 0))
        throw new UnrecoverableError(`${queue}: payload version ${job.data.v} is not one this worker reads`);
      return processor(job, token);
    },
    {
      connection: b.connection,
      prefix: b.prefix,
      concurrency: b.concurrency,
      lockDuration: b.lockDurationMs,
      stalledInterval: Math.min(30_000, b.lockDurationMs),
      // An idle Worker asks again every this many seconds (a new job wakes it at once whatever
      // this says): the longest BullMQ allows on Redis, so idle queues cost next to nothing.
      drainDelay: IDLE_BLOCK_SECONDS,
      ...(b.settings ? { settings: b.settings } : {}),
      // With tracing on, each job runs in a span of the trace its job carries.
      telemetry: queueTelemetry(),
    },
  );
  worker.on('error', (err) => b.log.error({ err, queue }, 'worker error'));
  instrumentWorker(worker as unknown as Worker);
  worker.on('stalled', (jobId) =>
    b.log.warn({ jobId, queue }, 'job stalled (its worker died?); back to the queue'),
  );
  worker.on('failed', (job, err) =>
    b.log[b.failedLevel ?? 'warn'](
      { err: err.message, jobId: job?.id, attempts: job?.attemptsMade, queue },
      'job failed',
    ),
  );
  return worker;
}
