// Hacienda's callback wakes the status job of the chunk that carries its clave. A delayed job is
// promoted at once; a job that is not asleep yet (still asking Hacienda, or waiting for its
// turn) would miss the callback and then sleep a whole poll interval, so the callback leaves a
// note (a Redis key in the queue's own hash slot, one minute long) that the job reads right after
// it has put itself to sleep: a note means wake up again now. Either the callback finds the job
// asleep, or the job finds the note.
import { Job, type Queue } from 'bullmq';
import type { RedisClient } from '../../platform/redis.ts';

const NOTE_MS = 60_000;

const noteKey = (statusQueue: Pick<Queue, 'toKey'>, jobId: string) => statusQueue.toKey(`woken:${jobId}`);

/**
 * The API's side: promote the sleeping job, or leave the note for one that is not asleep yet.
 * The promotion is tried straight away by id (one script, which refuses a job that is not
 * delayed): a callback never reads the job itself.
 */
export async function wakeStatusJob(statusQueue: Queue, redis: RedisClient, jobId: string): Promise<void> {
  const promoted = await new Job(statusQueue, 'invoice.status', {}, {}, jobId).promote().then(
    () => true,
    () => false,
  );
  if (!promoted) await redis.set(noteKey(statusQueue, jobId), '1', 'PX', NOTE_MS);
}

/** The worker's side, right after the job moved itself to delayed: a note promotes it again. */
export async function wakeIfNoted(
  statusQueue: Pick<Queue, 'toKey'>,
  redis: RedisClient,
  job: Job,
): Promise<boolean> {
  const noted = await redis.getdel(noteKey(statusQueue, job.id!));
  if (!noted) return false;
  await job.promote().catch(() => {});
  return true;
}
