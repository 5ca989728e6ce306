// The machine's own limits, measured in the same run as the stage figures they sit beside:
//   - raw RSA-2048: node:crypto sign('sha256') back to back on one core (every signed document
//     needs exactly one of these);
//   - raw Postgres commits: one-row INSERTs, each its own transaction (autocommit), from Node's
//     pg client at the intake concurrency, into a scratch table (the durable-write floor);
//   - raw Postgres bulk insert: the batch stage's row count of invoice-sized rows, multi-row
//     INSERTs of 500 in one transaction each (printed beside the batch's recording; the batch's
//     target is against the rows it wrote, written again raw: batch-rows.ts).
import { createPrivateKey, sign as rsaSign } from 'node:crypto';
import pg from 'pg';
import { percentile, round } from './http-load.ts';

export interface RateFigure {
  perSecond: number;
  ops: number;
  seconds: number;
}

/** Runs `op` back to back for ~`seconds` after a short warm-up, on this (one) core. */
export function measureSync(seconds: number, op: (i: number) => unknown, warmupMs = 200): RateFigure {
  let i = 0;
  const warmEnd = performance.now() + warmupMs;
  while (performance.now() < warmEnd) op(i++);
  const start = performance.now();
  const end = start + seconds * 1000;
  let ops = 0;
  while (performance.now() < end) {
    op(i++);
    ops++;
  }
  const s = (performance.now() - start) / 1000;
  return { perSecond: round(ops / s, 0), ops, seconds: round(s, 2) };
}

export function rawRsaRate(privateKeyPkcs8: Buffer, seconds: number): RateFigure {
  const key = createPrivateKey({ key: privateKeyPkcs8, format: 'der', type: 'pkcs8' });
  const data = Buffer.alloc(4096, 'factura');
  return measureSync(seconds, () => rsaSign('sha256', data, key));
}

export interface RawPgFigure extends RateFigure {
  p50Ms: number;
  p99Ms: number;
  concurrency: number;
}

export async function rawPgCommitRate(
  url: string,
  concurrency: number,
  seconds: number,
): Promise<RawPgFigure> {
  const pool = new pg.Pool({
    connectionString: url,
    max: concurrency,
    application_name: 'factura-bench-raw',
  });
  try {
    await pool.query(
      'create table if not exists bench_raw_commits (id bigserial primary key, company_id bigint not null, note text not null, created_at timestamptz not null default now())',
    );
    const latencies: number[] = [];
    const warmEnd = performance.now() + 500;
    const start = warmEnd;
    const end = start + seconds * 1000;
    let last = start;
    const loop = async (c: number) => {
      const client = await pool.connect();
      try {
        while (performance.now() < end) {
          const t0 = performance.now();
          await client.query('insert into bench_raw_commits (company_id, note) values ($1, $2)', [c, 'raw']);
          const t1 = performance.now();
          if (t0 >= start) {
            latencies.push(t1 - t0);
            last = Math.max(last, t1);
          }
        }
      } finally {
        client.release();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, c) => loop(c)));
    const s = (last - start) / 1000;
    return {
      perSecond: round(latencies.length / s, 0),
      ops: latencies.length,
      seconds: round(s, 2),
      p50Ms: round(percentile(latencies, 50), 2),
      p99Ms: round(percentile(latencies, 99), 2),
      concurrency,
    };
  } finally {
    await pool.end();
  }
}

/** Seconds to insert `rows` copies of an invoice-sized row in chunks of 500 (one transaction each). */
export async function rawPgBulkInsert(url: string, rows: number, rowJson: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, application_name: 'factura-bench-raw' });
  await client.connect();
  try {
    await client.query(
      'create table if not exists bench_raw_bulk (id bigserial primary key, company_id bigint not null, number bigint not null, doc jsonb not null, unique (company_id, number))',
    );
    const t0 = performance.now();
    for (let i = 0; i < rows; i += 500) {
      const n = Math.min(500, rows - i);
      const values: string[] = [];
      const params: unknown[] = [];
      for (let k = 0; k < n; k++) {
        values.push(`(1, $${2 * k + 1}, $${2 * k + 2})`);
        params.push(i + k, rowJson);
      }
      await client.query(
        `insert into bench_raw_bulk (company_id, number, doc) values ${values.join(', ')}`,
        params,
      );
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await client.end();
  }
}
