// Short in-process retries of Hacienda calls that are safe to repeat (a token grant, a status GET,
// a POST whose connection was never made), with p-retry: it runs the attempts and keeps the
// budget; an error the caller does not call retryable ends them at once (p-retry's AbortError,
// which rejects with the original error). The waits, base·2^n between attempts, go through the
// injected Clock (p-retry's documented onFailedAttempt delay), the same clock that times the 429
// waits, so tests with a fake clock run without waiting; p-retry's own timer is set to 0.
import pRetry, { AbortError } from 'p-retry';
import type { Clock } from './http.ts';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** Wait before the first retry, doubled for each next one. */
  baseDelayMs: number;
  clock: Clock;
}

export function withRetries<T>(
  attempt: () => Promise<T>,
  retryable: (err: unknown) => boolean,
  policy: RetryPolicy,
): Promise<T> {
  return pRetry(
    async () => {
      try {
        return await attempt();
      } catch (err) {
        if (!retryable(err) || !(err instanceof Error)) throw new AbortError(err as Error);
        throw err;
      }
    },
    {
      retries: policy.retries,
      minTimeout: 0,
      onFailedAttempt: async ({ attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0) await policy.clock.sleep(policy.baseDelayMs * 2 ** (attemptNumber - 1));
      },
    },
  );
}
