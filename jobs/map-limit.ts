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

/** At most `limit` calls of `run` in flight at once across every caller; the rest wait their turn. */
export interface Limiter {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

export function createLimiter(limit: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(fn) {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      active += 1;
      try {
        return await fn();
      } finally {
        active -= 1;
        waiting.shift()?.();
      }
    },
  };
}
