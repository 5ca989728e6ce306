// Usage rows (requests per minute or hour, key, route and status class) → the `usage` object's
// totals and series: one bucket per (start, key, route) with its counts per status class.
import type { UsageRow } from '../../db/queries/usage.ts';
import { formatId } from '../../domain/ids.ts';

type Counts = { requests: number; '2xx': number; '3xx': number; '4xx': number; '5xx': number; '429': number };
const zero = (): Counts => ({ requests: 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, '429': 0 });

export function usageSeries(rows: readonly UsageRow[]) {
  const totals = zero();
  const buckets = new Map<string, Counts & { start: string; key_id: string; route: string }>();
  for (const r of rows) {
    const id = `${r.start.toISOString()}|${r.keyId}|${r.route}`;
    let b = buckets.get(id);
    if (!b) {
      b = {
        start: r.start.toISOString(),
        key_id: formatId('apiKey', r.keyId),
        route: r.route,
        ...zero(),
      };
      buckets.set(id, b);
    }
    const cls = r.statusClass === '1xx' ? '2xx' : r.statusClass;
    b[cls] += r.count;
    b.requests += r.count;
    totals[cls] += r.count;
    totals.requests += r.count;
  }
  return { totals, data: [...buckets.values()] };
}
