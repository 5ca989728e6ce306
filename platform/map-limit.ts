// Runs `fn` over `items` with at most `limit` calls in flight; results in the items' order.
// Errors are the callers' to catch inside `fn`: one item's failure must not cut the others short.
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * At most `limit` calls of `run` in flight at once across every caller; the rest wait their turn.
 * Turns are shared between the callers' keys (the company whose call it is) in round robin: a
 * key with thousands of calls waiting does not hold back another key's one call, which runs as
 * soon as a place frees up after at most one call of each other key waiting before it.
 */
export interface Limiter {
  run<T>(fn: () => Promise<T>, key?: string | number): Promise<T>;
}

export function createLimiter(limit: number): Limiter {
  let active = 0;
  // Per key, its callers waiting in order; the keys in the order of their next turn.
  const waiting = new Map<string | number, (() => void)[]>();
  /** Hands a freed place to the next key's first caller; false when nobody waits. */
  const handOver = (): boolean => {
    const first = waiting.entries().next();
    if (first.done) return false;
    const [key, queue] = first.value;
    const resolve = queue.shift()!;
    // The key goes to the back of the round (a Map keeps its insertion order).
    waiting.delete(key);
    if (queue.length) waiting.set(key, queue);
    resolve();
    return true;
  };
  return {
    async run(fn, key = '') {
      if (active < limit) active += 1;
      else {
        // The place is handed over by the call that frees it (`active` stays as it is).
        await new Promise<void>((resolve) => {
          const queue = waiting.get(key);
          if (queue) queue.push(resolve);
          else waiting.set(key, [resolve]);
        });
      }
      try {
        return await fn();
      } finally {
        if (!handOver()) active -= 1;
      }
    },
  };
}
