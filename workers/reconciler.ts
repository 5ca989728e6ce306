// The reconciler: Postgres is the source of truth, Redis only carries work. Work in flight in
// Postgres (batches, invoices) that no live job carries any more — Redis lost it, or its jobs
// failed for a transient reason — is added again; handlers are idempotent, so re-created work only
// finishes what was left.
//
// One pass at a time across every worker process: a pass holds a Postgres advisory lock
// (transaction-scoped) and the others skip. Postgres rather than a Redis lock because the
// reconciler exists for the moment Redis loses its data: a Redis lock would vanish with it, just
// when recovery starts, and it needs an expiry longer than any pass plus renewal; Postgres drops
// an advisory lock by itself when its holder's connection dies, with no expiry to tune.
//
// Noticing that Redis lost its data: the lock holder keeps a marker hash in Redis, in the queues'
// own hash slot (`<prefix>:reconciler`, state `ok`). Its absence (or `sweeping` left by a holder
// that died mid-sweep) means everything in flight may be lost: the next pass sweeps every
// in-flight row at once, without waiting for the stale threshold, and sets `ok` again only if
// the marker survived the sweep. Every worker checks the marker every second, so a sweep starts
// about a second after Redis is back (reconcile-loop.ts). Otherwise a pass looks only at rows that have not moved for
// the stale threshold, for a bounded time, and the next pass goes on from the id where it stopped
// (cursors in the same hash). Detection is set-based (reconcile-detect.ts); re-creation is bulk.
import type { Knex } from 'knex';
import type { RedisClient } from '../platform/redis.ts';
import type { Logger } from 'pino';
import { findLostWork } from './reconcile-detect.ts';
import type { TrackedWork } from '../jobs/work.ts';
import { luaScript, runScript } from '../platform/redis-keys.ts';
import { emulateScript } from '../platform/pg-redis.ts';
import { withReconcilerLock } from '../db/queries/in-flight.ts';

export { RECONCILER_LOCK } from '../db/queries/in-flight.ts';
/** Rows per page: one query, one Redis pipeline of (rows × jobs) lookups, one bulk add. */
const PAGE_SIZE = 500;

export const markerKey = (queuePrefix: string): string => `${queuePrefix}:reconciler`;

// Ends a sweep: `sweeping` → `ok`, only if the marker is still the one this sweep wrote.
const SETTLE = luaScript(`
if redis.call('hget', KEYS[1], 'state') == ARGV[1] then
  redis.call('hset', KEYS[1], 'state', ARGV[2])
  return 1
end
return 0`);
// Its twin in embedded mode, where Postgres stands in for Redis (platform/pg-redis.ts).
emulateScript(SETTLE, async (tx, [key], [from, to]) => {
  if ((await tx.hget(key!, 'state')) !== from) return 0;
  await tx.hset(key!, { state: to! });
  return 1;
});

export interface ReconcilerOptions {
  db: Knex;
  /** A connection of its own (pipelines and the marker). */
  redis: RedisClient;
  queuePrefix: string;
  log: Logger;
  /** In pass order. */
  work: TrackedWork[];
  /** How long a row may sit without progress before a routine pass looks at it. */
  staleMs: number;
  /** How long a routine pass may walk one kind before it stops (the next one goes on). */
  budgetMs: number;
  pageSize?: number;
  /**
   * Around a sweep: the process stops taking new jobs while it (or, seen from the marker, another
   * process) sweeps, so the sweep that every lost job waits on is not starved of CPU by the jobs
   * it has just re-created. Both calls may come more than once.
   */
  duringSweep?: { start(): Promise<void>; end(): void };
}

export interface PassResult {
  /** False when another process held the lock. */
  ran: boolean;
  /** A sweep of everything in flight (the marker was missing). */
  sweep: boolean;
  /** The sweep ended with the marker intact (false: Redis lost its data again meanwhile). */
  settled: boolean;
  recreated: Record<string, number>;
  scanned: number;
  ms: number;
}

/** One pass, if no other process is running one. */
export async function reconcileOnce(o: ReconcilerOptions): Promise<PassResult> {
  const started = Date.now();
  return underLock(o.db, () => pass(o, started));
}

/**
 * One routine pass from the first row of each kind, whatever the marker says (no sweep), if no
 * other process is running one: what an operator or a test asks for.
 */
export async function routinePass(o: ReconcilerOptions): Promise<PassResult> {
  const started = Date.now();
  return underLock(o.db, () => walk(o, {}, false, started));
}

async function underLock(db: Knex, pass: () => Promise<PassResult>): Promise<PassResult> {
  const result = await withReconcilerLock(db, pass);
  return result ?? { ran: false, sweep: false, settled: false, recreated: {}, scanned: 0, ms: 0 };
}

async function pass(o: ReconcilerOptions, started: number): Promise<PassResult> {
  const key = markerKey(o.queuePrefix);
  const marker = await o.redis.hgetall(key);
  const sweep = marker.state !== 'ok';
  if (!sweep) return walk(o, marker, false, started);
  await o.redis.hset(key, 'state', 'sweeping');
  await o.duringSweep?.start();
  try {
    return await walk(o, marker, true, started);
  } finally {
    o.duringSweep?.end();
  }
}

async function walk(
  o: ReconcilerOptions,
  marker: Record<string, string>,
  sweep: boolean,
  started: number,
): Promise<PassResult> {
  const key = markerKey(o.queuePrefix);
  const pageSize = o.pageSize ?? PAGE_SIZE;
  const recreated: Record<string, number> = {};
  let scanned = 0;
  for (const work of o.work) {
    const kindStarted = Date.now();
    let cursor = sweep ? 0 : Number(marker[`cursor:${work.name}`] ?? 0) || 0;
    let count = 0;
    for (;;) {
      const rows = await work.page(cursor, pageSize, sweep ? null : o.staleMs);
      scanned += rows.length;
      const lost = await findLostWork(o.redis, rows, work.jobsOf);
      if (lost.length) {
        // A job kept under the same id (failed for good) would swallow the new one: it goes first.
        for (const { finished } of lost)
          for (const ref of finished) await ref.queue.remove(ref.id).catch(() => 0);
        await work.recreate(lost.map((l) => l.row));
        count += lost.length;
      }
      if (rows.length < pageSize) {
        cursor = 0; // the end: the next pass starts from the beginning
        break;
      }
      cursor = rows.at(-1)!.id;
      if (!sweep && Date.now() - kindStarted >= o.budgetMs) break;
    }
    recreated[work.name] = count;
    await o.redis.hset(key, `cursor:${work.name}`, cursor);
  }
  const settled = sweep ? (await runScript(o.redis, SETTLE, [key], ['sweeping', 'ok'])) === 1 : true;
  return { ran: true, sweep, settled, recreated, scanned, ms: Date.now() - started };
}
