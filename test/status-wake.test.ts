// Hacienda's callback and a status job that is not asleep yet: the callback leaves a note, and the
// job, right after putting itself to sleep for a whole poll interval, finds it and wakes at once.
import { randomBytes } from 'node:crypto';
import { DelayedError, Queue, Worker, type ConnectionOptions } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullConnection, createRedis } from '../platform/redis.ts';
import { wakeIfNoted, wakeStatusJob } from '../jobs/invoice-flow/status-wake.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { waitFor } from './helpers/wait.ts';

const prefix = `{w${randomBytes(4).toString('hex')}}`;
const connection = bullConnection(testRedisUrl()) as ConnectionOptions;
const redis = createRedis(testRedisUrl(), 'api');
let queue: Queue;

beforeAll(() => {
  queue = new Queue('invoice-status', { connection, prefix });
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  redis.disconnect();
});

/** A status job that sleeps 60 s after each look, unless a note wakes it; resolves its run times. */
function sleepyWorker(runs: number[], before: () => Promise<void>) {
  return new Worker(
    'invoice-status',
    async (job, token) => {
      runs.push(Date.now());
      if (runs.length === 1) await before();
      if (runs.length > 1) return 'final';
      await job.moveToDelayed(Date.now() + 60_000, token);
      await wakeIfNoted(queue, redis, job);
      throw new DelayedError();
    },
    { connection, prefix },
  );
}

describe('a callback for a status job that is not asleep', () => {
  it('leaves a note that wakes the job right after it goes to sleep', async () => {
    const runs: number[] = [];
    const job = await queue.add('invoice.status', { v: 2 }, { jobId: 'chunk-a-status' });
    // The callback arrives while the job is running (active, not delayed).
    const worker = sleepyWorker(runs, () => wakeStatusJob(queue, redis, job.id!));
    try {
      await waitFor(async () => (await queue.getJob(job.id!))?.isCompleted() ?? false, 10_000, 20, 'the job');
      expect(runs).toHaveLength(2);
      expect(runs[1]! - runs[0]!).toBeLessThan(5_000);
      // The note is used up.
      expect(await redis.exists(queue.toKey('woken:chunk-a-status'))).toBe(0);
    } finally {
      await worker.close();
    }
  });

  it('without a callback the job sleeps its interval; a callback while it sleeps promotes it', async () => {
    const runs: number[] = [];
    const job = await queue.add('invoice.status', { v: 2 }, { jobId: 'chunk-b-status' });
    const worker = sleepyWorker(runs, async () => {});
    try {
      await waitFor(async () => (await queue.getJob(job.id!))?.isDelayed() ?? false, 10_000, 20, 'asleep');
      await new Promise((r) => setTimeout(r, 300));
      expect(runs).toHaveLength(1); // no note: still asleep
      await wakeStatusJob(queue, redis, job.id!);
      await waitFor(async () => (await queue.getJob(job.id!))?.isCompleted() ?? false, 10_000, 20, 'the job');
      expect(runs).toHaveLength(2);
      expect(await redis.exists(queue.toKey('woken:chunk-b-status'))).toBe(0);
    } finally {
      await worker.close();
    }
  });
});
