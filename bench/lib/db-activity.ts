// Postgres work per unit, from the cumulative statistics of the scratch database (nothing else
// uses it): commits and rows written per invoice, which show how many round trips and writes a
// stage's figure is made of. Statistics are flushed by backends within about a second, so the
// reading after a stage waits that long first.
import type { Db } from '../../db/connection.ts';
import { round } from './http-load.ts';

const FIELDS = [
  'xact_commit',
  'xact_rollback',
  'tup_inserted',
  'tup_updated',
  'tup_deleted',
  'tup_fetched',
] as const;
export type DbCounters = Record<(typeof FIELDS)[number], number>;

export async function dbCounters(db: Db, settle = false): Promise<DbCounters> {
  if (settle) await new Promise((r) => setTimeout(r, 1200));
  const res = await db.raw(
    `select ${FIELDS.join(', ')} from pg_stat_database where datname = current_database()`,
  );
  const row = res.rows[0] as Record<string, string>;
  return Object.fromEntries(FIELDS.map((f) => [f, Number(row[f])])) as DbCounters;
}

/** Differences between two readings, divided by `per` (e.g. invoices). */
export function perUnit(a: DbCounters, b: DbCounters, per: number): Record<string, number> {
  return Object.fromEntries(
    FIELDS.map((f) => [`${f}_per_unit`, per > 0 ? round((b[f] - a[f]) / per, 2) : NaN]),
  );
}
