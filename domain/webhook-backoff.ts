// The retry schedule of webhook deliveries: exponential with jitter. After the n-th failed
// attempt the next one waits base × 2^(n−1), scaled by a random factor in [0.8, 1.2). With the
// production defaults (base 126 s, 12 attempts) the 11 waits add up to 2047 × 126 s ≈ 3 days;
// each wait is at least 0.8 × 2 = 1.6 times the previous one's nominal value, so the spacing
// always grows (tests rely on it with a shortened base).
export const JITTER = 0.2;

export function webhookRetryDelay(
  attemptsMade: number,
  baseMs: number,
  random: () => number = Math.random,
): number {
  const n = Math.max(1, attemptsMade);
  const nominal = baseMs * 2 ** (n - 1);
  return Math.round(nominal * (1 - JITTER + 2 * JITTER * random()));
}

/** The nominal total wait from the first attempt to the last (for docs and checks). */
export function nominalSchedule(maxAttempts: number, baseMs: number): number[] {
  return Array.from({ length: Math.max(0, maxAttempts - 1) }, (_, i) => baseMs * 2 ** i);
}
