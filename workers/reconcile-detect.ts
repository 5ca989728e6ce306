// Set-based detection of work Redis no longer carries. For a page of rows, every job that
// carries a row's work is looked up in one pipelined round trip (HMGET of each job hash's
// `timestamp` and `finishedOn`), instead of a getJob and a getState per job:
//   - no hash: missing (lost with Redis's data, or completed and removed);
//   - `finishedOn` set: finished (failed for good, or completed and kept);
//   - otherwise live: waiting, delayed, active, or a parent waiting for its children.
// A row none of whose jobs is live has lost its work; the finished jobs in its way (a failed job
// keeps its id, and an add under that id would be ignored) are returned for removal. Which jobs
// carry a row is a function the caller passes, so the same detection serves any job layout.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export interface JobRef {
  queue: Queue;
  id: string;
}

export type JobPresence = 'live' | 'finished' | 'missing';

export async function jobPresence(redis: Redis, refs: JobRef[]): Promise<JobPresence[]> {
  if (!refs.length) return [];
  const pipeline = redis.pipeline();
  for (const r of refs) pipeline.hmget(r.queue.toKey(r.id), 'timestamp', 'finishedOn');
  const results = (await pipeline.exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) throw err;
    const [timestamp, finishedOn] = value as (string | null)[];
    if (timestamp === null || timestamp === undefined) return 'missing';
    return finishedOn === null || finishedOn === undefined ? 'live' : 'finished';
  });
}

export interface LostWork<Row> {
  row: Row;
  /** Jobs of the row that exist but ended; removed before the work is added again. */
  finished: JobRef[];
}

/** The rows whose work no job carries any more. */
export async function findLostWork<Row>(
  redis: Redis,
  rows: Row[],
  jobsOf: (row: Row) => JobRef[],
): Promise<LostWork<Row>[]> {
  const perRow = rows.map(jobsOf);
  const presence = await jobPresence(redis, perRow.flat());
  const lost: LostWork<Row>[] = [];
  let at = 0;
  rows.forEach((row, i) => {
    const refs = perRow[i]!;
    const states = presence.slice(at, at + refs.length);
    at += refs.length;
    if (states.includes('live')) return;
    lost.push({ row, finished: refs.filter((_, j) => states[j] === 'finished') });
  });
  return lost;
}
