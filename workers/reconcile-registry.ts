// The reconciler of a worker process over the registry: every work module's tracked work
// (jobs/registry.ts), walked in registry order by the one mechanism of reconciler.ts (a page of
// rows Postgres says are in flight → one pipelined lookup of the jobs that carry them → the lost
// ones added again in bulk). The Workers of the modules that hold for a sweep (the invoice flow
// and batches) stop taking jobs while a sweep after a Redis data loss runs.
import { reconcilerWork, type RunningRegistry } from '../jobs/registry.ts';
import type { WorkDeps } from '../jobs/work.ts';
import { openStore } from '../platform/queue-store.ts';
import type { RedisClient } from '../platform/redis.ts';
import { startReconciler, type ReconcilerLoop } from './reconcile-loop.ts';
import { routinePass, type PassResult, type ReconcilerOptions } from './reconciler.ts';

export interface RegistryReconciler {
  /** The periodic passes (null when turned off). */
  loop: ReconcilerLoop | null;
  /** One routine pass now over the tracked work named (all when none). */
  routinePass(o: { staleMs: number; only?: string[] }): Promise<PassResult>;
  stop(): Promise<void>;
}

export function startRegistryReconciler(
  d: Pick<WorkDeps, 'config' | 'db' | 'log'>,
  running: RunningRegistry,
  settings: { everyMs: number; staleMs: number } | false | undefined,
): RegistryReconciler {
  const { tracked, holding } = reconcilerWork(running);
  const redis: RedisClient[] = [];
  // The loop's connection fails fast while Redis is away (its marker check must not queue up
  // behind an outage); a pass asked for by hand waits for its connection.
  const connect = (failFast: boolean) => {
    const r = openStore(
      d.config,
      'worker',
      failFast ? { maxRetriesPerRequest: 1, enableOfflineQueue: false } : {},
    );
    r.on('error', (err) => d.log.debug({ err: err.message }, 'reconciler Redis connection error'));
    redis.push(r);
    return r;
  };
  const options = (r: RedisClient, staleMs: number, everyMs: number): ReconcilerOptions => ({
    db: d.db,
    redis: r,
    queuePrefix: d.config.queuePrefix,
    log: d.log,
    work: tracked,
    staleMs,
    budgetMs: Math.max(500, everyMs / 2),
    duringSweep: {
      start: async () => {
        await Promise.all(holding.map((w) => w.pause(true)));
      },
      end: () => holding.forEach((w) => void w.resume()),
    },
  });
  let loop: ReconcilerLoop | null = null;
  if (settings !== false) {
    const s = settings ?? { everyMs: 30_000, staleMs: 120_000 };
    loop = startReconciler({ ...options(connect(true), s.staleMs, s.everyMs), everyMs: s.everyMs });
  }
  let byHand: RedisClient | null = null;
  return {
    loop,
    routinePass: ({ staleMs, only }) =>
      routinePass({
        ...options((byHand ??= connect(false)), staleMs, 120_000),
        work: only ? tracked.filter((t) => only.includes(t.name)) : tracked,
      }),
    async stop() {
      await loop?.stop();
      for (const r of redis) r.disconnect();
    },
  };
}
