// Usage per key: adding per-minute counts (from the Redis counters) and reading them back as a
// series by minute, hour or day for one company and mode.
import type { Knex } from 'knex';

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', '429'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number] | '1xx';

/** The status class a response counts under: 429 apart from the other 4xx. */
export function statusClassOf(status: number): StatusClass {
  if (status === 429) return '429';
  if (status < 200) return '1xx';
  if (status < 300) return '2xx';
  if (status < 400) return '3xx';
  if (status < 500) return '4xx';
  return '5xx';
}

export interface UsageIncrement {
  keyId: number;
  /** Start of the minute. */
  minute: Date;
  route: string;
  statusClass: StatusClass;
  count: number;
}

/**
 * Adds counts in one statement: several processes may flush the same (key, minute, route,
 * class) and the upsert adds rather than overwrites. Keys deleted meanwhile are skipped.
 */
export async function addUsage(db: Knex, rows: UsageIncrement[]): Promise<void> {
  if (!rows.length) return;
  await db.raw(
    `insert into usage_minutes (key_id, company_id, livemode, minute, route, status_class, count)
     select v.key_id, k.company_id, k.livemode, v.minute, v.route, v.status_class, v.count
       from unnest(?::bigint[], ?::timestamptz[], ?::text[], ?::text[], ?::bigint[])
            as v(key_id, minute, route, status_class, count)
       join api_keys k on k.id = v.key_id
     on conflict on constraint usage_minutes_key_minute_route_class_key
     do update set count = usage_minutes.count + excluded.count`,
    [
      rows.map((r) => r.keyId),
      rows.map((r) => r.minute.toISOString()),
      rows.map((r) => r.route),
      rows.map((r) => r.statusClass),
      rows.map((r) => r.count),
    ],
  );
}

export type Granularity = 'minute' | 'hour' | 'day';

export interface UsageRow {
  start: Date;
  keyId: number;
  route: string;
  statusClass: StatusClass;
  count: number;
}

/** Counts per (bucket, key, route, status class) of one company and mode in [from, to). */
export async function readUsage(
  db: Knex,
  q: {
    companyId: number;
    livemode: boolean;
    keyId?: number;
    from: Date;
    to: Date;
    granularity: Granularity;
  },
): Promise<UsageRow[]> {
  const rows = await db('usage_minutes')
    .where({ companyId: q.companyId, livemode: q.livemode })
    .modify((b) => {
      if (q.keyId !== undefined) b.where({ keyId: q.keyId });
    })
    .where('minute', '>=', q.from)
    .where('minute', '<', q.to)
    .groupByRaw('1, 2, 3, 4')
    .orderByRaw('1, 2, 3, 4')
    .select(
      db.raw(`date_trunc(?, minute, 'UTC') as start`, [q.granularity]),
      'key_id',
      'route',
      'status_class',
      db.raw('sum(count)::bigint as count'),
    );
  return (
    rows as { start: Date; keyId: string; route: string; statusClass: StatusClass; count: string }[]
  ).map((r) => ({
    start: new Date(r.start),
    keyId: Number(r.keyId),
    route: r.route,
    statusClass: r.statusClass,
    count: Number(r.count),
  }));
}
