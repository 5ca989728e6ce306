// A pass run every `everyMs` that never overlaps itself: a tick that finds the previous pass
// still going is skipped. A failed pass is logged and the next tick tries again; stop() waits
// for the pass under way. The webhook and email reconcilers run this way.
import type { Logger } from 'pino';

export interface PeriodicPass {
  stop(): Promise<void>;
}

export function everyWithoutOverlap(
  everyMs: number,
  pass: () => Promise<unknown>,
  log: Pick<Logger, 'warn'>,
  what: string,
): PeriodicPass {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = pass()
      .catch((err: unknown) => log.warn({ err }, `${what} pass failed`))
      .finally(() => (running = null));
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
