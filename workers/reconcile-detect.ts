// Set-based detection of work Redis no longer carries. For a page of rows, every job that
// carries a row's work is looked up in one pipelined round trip (HMGET of each job hash's
// `timestamp` and `finishedOn`), instead of a getJob and a getState per job:
//   - no hash: missing (lost with Redis's data, or completed and removed);
//   - `finishedOn` set: finished (failed for good, or completed and kept);
//   - otherwise live: waiting, delayed, active, or a parent waiting for its children.
// A row none of whose jobs is live has lost its work; the finished jobs in its way (a failed job
// keeps its id, and an add under that id would be ignored) are returned for removal. Which jobs
// carry a row is a function the caller passes, so the same detection serves any job layout.
// Jobs of different queue prefixes (shards, platform/shards.ts) live in different Cluster slots, so
// the lookups go in one pipeline per prefix, side by side.
import type { JobRef } from '../jobs/work.ts';
import type { RedisClient } from '../platform/redis.ts';
import { isPostgresStore } from '../platform/queue-store.ts';

export type { JobRef };

export type JobPresence = 'live' | 'finished' | 'missing';

export async function jobPresence(redis: RedisClient, refs: JobRef[]): Promise<JobPresence[]> {
  if (!refs.length) return [];
  // Embedded mode: BullMQ's jobs are rows of its Postgres backend, not hashes; ask for each.
  if (isPostgresStore(redis))
    return Promise.all(
      refs.map(async (r) => {
        const job = await r.queue.getJob(r.id);
        return !job ? 'missing' : job.finishedOn ? 'finished' : 'live';
      }),
    );
  const byPrefix = new Map<string, number[]>();
  refs.forEach((r, i) => {
    const at = byPrefix.get(r.queue.opts.prefix ?? '') ?? [];
    at.push(i);
    byPrefix.set(r.queue.opts.prefix ?? '', at);
  });
  const presence: JobPresence[] = new Array<JobPresence>(refs.length);
  await Promise.all(
    [...byPrefix.values()].map(async (indexes) => {
      const pipeline = redis.pipeline();
      for (const i of indexes) pipeline.hmget(refs[i]!.queue.toKey(refs[i]!.id), 'timestamp', 'finishedOn');
      const results = (await pipeline.exec()) ?? [];
      results.forEach(([err, value], j) => {
        if (err) throw err;
        const [timestamp, finishedOn] = value as (string | null)[];
        presence[indexes[j]!] =
          timestamp === null || timestamp === undefined
            ? 'missing'
            : finishedOn === null || finishedOn === undefined
              ? 'live'
              : 'finished';
      });
    }),
  );
  return presence;
}

export interface LostWork<Row> {
  row: Row;
  /** Jobs of the row that exist but ended; removed before the work is added again. */
  finished: JobRef[];
}

/** The rows whose work no job carries any more. */
export async function findLostWork<Row>(
  redis: RedisClient,
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
