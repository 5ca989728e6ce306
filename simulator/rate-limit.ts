// Fixed-window rate limiting as Hacienda advertises it on every response: X-Ratelimit-Limit,
// X-Ratelimit-Remaining and X-Ratelimit-Reset (UTC epoch seconds of the window's end).
// Windows are aligned to multiples of the window length, per user (API) or address (IDP).

export interface RateWindow {
  limit: number;
  remaining: number;
  /** Epoch milliseconds at which the window ends. */
  resetAt: number;
  allowed: boolean;
}

export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number): RateWindow;
  clear(): void;
}

// Stale windows are swept when the map grows past this many keys.
const SWEEP_AT = 10_000;

export function createRateLimiter(now: () => number): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key, limit, windowMs) {
      const t = now();
      const start = windowMs > 0 ? Math.floor(t / windowMs) * windowMs : t;
      let w = windows.get(key);
      if (!w || w.start !== start) {
        if (windows.size >= SWEEP_AT) for (const [k, v] of windows) if (v.start < start) windows.delete(k);
        w = { start, count: 0 };
        windows.set(key, w);
      }
      w.count += 1;
      return {
        limit,
        remaining: Math.max(0, limit - w.count),
        resetAt: start + windowMs,
        allowed: w.count <= limit,
      };
    },
    clear() {
      windows.clear();
    },
  };
}

export function rateHeaders(w: {
  limit: number;
  remaining: number;
  resetAt: number;
}): Record<string, string> {
  return {
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-reset': String(Math.ceil(w.resetAt / 1000)),
  };
}
