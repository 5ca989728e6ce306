// Postgres work per unit, from the cumulative statistics of the scratch database (nothing else
// uses it): commits and rows written per invoice, which show how many round trips and writes a
// stage's figure is made of. `xact_commit` counts every committed transaction, autocommitted
// single statements (reads included) as well as explicit ones.
// The observer reads from the server's `postgres` database, so its own queries never count in
// the scratch database's figures. Statistics are flushed by backends within about a second, so
// the reading after a stage waits that long first. It also lists the server processes that serve
// the scratch database (for CPU accounting on a server shared with other databases).
import pg from 'pg';
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

export interface DbObserver {
  counters(settle?: boolean): Promise<DbCounters>;
  /**
   * Pids of the scratch database's backends (client connections, its autovacuum and parallel
   * workers) and of the server's own processes (checkpointer, WAL writer…: no database).
   */
  servicePids(): Promise<number[]>;
  /**
   * Rows inserted, updated (HOT or not) and deleted so far, per table of the scratch database. It is
   * read through a connection to that database, so a stage reads it before its first `counters()`
   * and after its last, and the reading's own commit is outside the stage's figures.
   */
  tableWrites(): Promise<TableWrites>;
  close(): Promise<void>;
}

export type TableWrites = Record<string, { ins: number; upd: number; hot: number; del: number }>;

export async function observeDatabase(databaseUrl: string): Promise<DbObserver> {
  const u = new URL(databaseUrl);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  const client = new pg.Client({
    connectionString: u.toString(),
    application_name: 'factura-bench-observer',
  });
  await client.connect();
  let scratch: pg.Client | null = null;
  return {
    async counters(settle = false) {
      if (settle) await new Promise((r) => setTimeout(r, 1200));
      // A fresh snapshot of the statistics on every reading (they are cached per transaction).
      await client.query('select pg_stat_clear_snapshot()');
      const res = await client.query(`select ${FIELDS.join(', ')} from pg_stat_database where datname = $1`, [
        name,
      ]);
      const row = res.rows[0] as Record<string, string>;
      return Object.fromEntries(FIELDS.map((f) => [f, Number(row[f])])) as DbCounters;
    },
    async servicePids() {
      const res = await client.query(
        'select pid from pg_stat_activity where (datname = $1 or datname is null) and pid <> pg_backend_pid()',
        [name],
      );
      return (res.rows as { pid: number }[]).map((r) => Number(r.pid));
    },
    async tableWrites() {
      if (!scratch) {
        scratch = new pg.Client({
          connectionString: databaseUrl,
          application_name: 'factura-bench-observer',
        });
        await scratch.connect();
      }
      await new Promise((r) => setTimeout(r, 1200));
      const res = await scratch.query(
        `select relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del from pg_stat_user_tables`,
      );
      return Object.fromEntries(
        (res.rows as Record<string, string>[]).map((r) => [
          r.relname!,
          {
            ins: Number(r.n_tup_ins),
            upd: Number(r.n_tup_upd),
            hot: Number(r.n_tup_hot_upd),
            del: Number(r.n_tup_del),
          },
        ]),
      );
    },
    close: async () => {
      await scratch?.end();
      await client.end();
    },
  };
}

/** Rows written per unit, per table, between two readings (tables with no writes left out). */
export function tableWritesPerUnit(
  a: TableWrites,
  b: TableWrites,
  per: number,
): Record<string, { ins: number; upd: number; hot: number; del: number }> {
  const out: Record<string, { ins: number; upd: number; hot: number; del: number }> = {};
  for (const [t, w] of Object.entries(b)) {
    const o = a[t] ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    const d = { ins: w.ins - o.ins, upd: w.upd - o.upd, hot: w.hot - o.hot, del: w.del - o.del };
    if (d.ins || d.upd || d.del)
      out[t] = {
        ins: round(d.ins / per, 2),
        upd: round(d.upd / per, 2),
        hot: round(d.hot / per, 2),
        del: round(d.del / per, 2),
      };
  }
  return out;
}

/** Differences between two readings, divided by `per` (e.g. invoices). */
export function perUnit(a: DbCounters, b: DbCounters, per: number): Record<string, number> {
  return Object.fromEntries(
    FIELDS.map((f) => [`${f}_per_unit`, per > 0 ? round((b[f] - a[f]) / per, 2) : NaN]),
  );
}
