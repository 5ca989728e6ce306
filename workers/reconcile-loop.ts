// When the reconciler runs, in every worker process: a pass every RECONCILE_EVERY_MS, and at once
// when the marker in Redis says Redis lost its data (checked every second: one HGET, cheap enough
// to notice an empty Redis within a second of its return). While another process sweeps (marker
// `sweeping`), this one takes no new invoice or batch jobs either, so the sweep has the machine;
// it takes them again when the marker says `ok`, or after MAX_HOLD_MS whatever it says (a sweeper
// that hangs must not stop the cluster; one that dies loses the lock and the next pass sweeps).
import { markerKey, reconcileOnce, type PassResult, type ReconcilerOptions } from './reconciler.ts';

/** Longest time a process holds back its jobs for another process's sweep. */
const MAX_HOLD_MS = 60_000;

export interface ReconcilerLoop {
  /** Runs a pass now (or joins the one under way). */
  runNow(): Promise<PassResult | null>;
  stop(): Promise<void>;
}

export function startReconciler(
  o: ReconcilerOptions & { everyMs: number; watchMs?: number },
): ReconcilerLoop {
  let running: Promise<PassResult | null> | null = null;
  const runNow = () => {
    running ??= reconcileOnce(o)
      .then((r) => {
        const total = Object.values(r.recreated).reduce((a, b) => a + b, 0);
        const fields = { ...r.recreated, scanned: r.scanned, ms: r.ms, settled: r.settled };
        if (r.sweep && total)
          o.log.warn(fields, 'Redis had lost its data: every piece of work in flight re-created');
        else if (r.sweep && r.ran) o.log.info(fields, 'reconciler swept everything in flight');
        else if (total) o.log.info(fields, 'reconciler re-created lost work');
        return r;
      })
      .catch((err: unknown) => {
        o.log.warn({ err }, 'reconciler pass failed');
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  // Holding back for another process's sweep.
  let heldSince: number | null = null;
  let heldTooLong = false;
  const observe = (state: string | null) => {
    if (state !== 'sweeping') {
      if (heldSince !== null) o.duringSweep?.end();
      heldSince = null;
      heldTooLong = false;
    } else if (heldSince === null && !heldTooLong) {
      heldSince = Date.now();
      void o.duringSweep?.start();
    } else if (heldSince !== null && Date.now() - heldSince > MAX_HOLD_MS) {
      o.log.warn({ heldMs: Date.now() - heldSince }, 'a sweep is taking too long; taking jobs again');
      o.duringSweep?.end();
      heldSince = null;
      heldTooLong = true;
    }
  };

  const timer = setInterval(() => void runNow(), o.everyMs);
  let watching = false;
  const watch = setInterval(() => {
    if (running || watching) return;
    watching = true;
    o.redis
      .hget(markerKey(o.queuePrefix), 'state')
      .then((state) => {
        observe(state);
        if (state !== 'ok') void runNow();
      })
      .catch(() => {}) // Redis unreachable: nothing to sweep into yet
      .finally(() => {
        watching = false;
      });
  }, o.watchMs ?? 1000);
  return {
    runNow,
    async stop() {
      clearInterval(timer);
      clearInterval(watch);
      await running;
      if (heldSince !== null) o.duringSweep?.end();
    },
  };
}
