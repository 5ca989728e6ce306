// Batch: `batches` × `batchSize` invoices through POST /api/v1/invoices/batch (each item with its
// own idempotency_key), all batches sent at once. Two times from the first request: until every
// item is recorded (no batch item left `pending`), and until every invoice is `aceptada`. The
// bench watches the scratch database every 200 ms (a GET of a 1,000-item batch would load the
// API it is measuring) and checks the counts through GET /api/v1/batches/{id} at the end.
// Beside them: the raw Postgres time to insert as many invoice-sized rows in chunks of 500, and
// the raw time to make that many RSA-2048 signatures on one core.
import { pool, request, round } from '../lib/http-load.ts';
import type { BenchContext, TableRow } from '../lib/context.ts';
import { rawPgBulkInsert } from '../lib/limits.ts';
import { cpuBetween, cpuSnapshot, hwmMb, rssMb } from '../lib/proc-stats.ts';
import { dbCounters, perUnit } from '../lib/db-activity.ts';
import { perInvoice } from './end-to-end.ts';

async function until(probe: () => Promise<boolean>, deadline: number, everyMs = 200): Promise<number | null> {
  for (;;) {
    if (await probe()) return performance.now();
    if (performance.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function batchStage(
  ctx: BenchContext,
): Promise<{ figures: Record<string, unknown>; rows: TableRow[] }> {
  const p = ctx.params;
  const worker = ctx.children.worker;
  if (!worker) throw new Error('batch needs the worker');
  const total = p.batches * p.batchSize;
  const run = `${process.pid}-${Date.now()}`;
  const sample = ctx.issuer.body();

  const rawBulkS = await rawPgBulkInsert(
    ctx.databaseUrl,
    total,
    JSON.stringify({ ...sample, pad: 'x'.repeat(900) }),
  );
  ctx.log(
    `batch: ${p.batches} × ${p.batchSize} invoices (raw PG bulk insert of ${total} rows: ${round(rawBulkS, 2)} s)`,
  );

  // Jobs of earlier stages still queued (an end-to-end run that timed out) share the worker.
  const backlog = await ctx.queuedJobs();
  const pids = { api: ctx.children.api.pid, worker: worker.pid, simulator: ctx.children.simulator.pid };
  const cpu0 = cpuSnapshot(pids);
  const db0 = await dbCounters(ctx.db);
  const t0 = performance.now();
  const batchIds = await pool(
    Array.from({ length: p.batches }, (_, b) => b),
    p.batches,
    async (b) => {
      const invoices = Array.from({ length: p.batchSize }, (_, i) => ({
        ...ctx.issuer.body(),
        idempotency_key: `batch-${run}-${b}-${i}`,
      }));
      const res = await request(ctx.api, 'POST', '/api/v1/invoices/batch', { invoices });
      if (res.status !== 202)
        throw new Error(`POST /api/v1/invoices/batch answered ${res.status}: ${res.body.slice(0, 300)}`);
      return (JSON.parse(res.body) as { id: string }).id;
    },
  );
  const postedS = (performance.now() - t0) / 1000;
  const ids = batchIds.map((id) => Number(id.slice(4)));
  const deadline = t0 + p.batchTimeoutSeconds * 1000;

  const recordedAt = await until(async () => {
    const r = await ctx
      .db('batch_items')
      .whereIn('batch_id', ids)
      .where('status', 'pending')
      .count('* as n')
      .first();
    return Number(r?.n) === 0;
  }, deadline);
  let accepted = 0;
  let rejected = 0;
  const acceptedAt = await until(
    async () => {
      const rows = await ctx
        .db('batch_items as b')
        .join('invoices as i', 'i.id', 'b.invoice_id')
        .whereIn('b.batch_id', ids)
        .whereIn('i.status', ['aceptada', 'rechazada'])
        .groupBy('i.status')
        .select('i.status')
        .count('* as n');
      accepted = Number(rows.find((r) => r.status === 'aceptada')?.n ?? 0);
      rejected = Number(rows.find((r) => r.status === 'rechazada')?.n ?? 0);
      return accepted + rejected >= total;
    },
    deadline,
    500,
  );
  const tEnd = performance.now();
  const cpu = cpuBetween(cpu0, cpuSnapshot(pids));
  const db1 = await dbCounters(ctx.db, true);
  const counts = { pending: 0, created: 0, replayed: 0, failed: 0 };
  for (const id of batchIds) {
    const res = await request(ctx.api, 'GET', `/api/v1/batches/${id}`);
    const c = (JSON.parse(res.body) as { counts: typeof counts }).counts;
    for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += c[k];
  }

  const recordedS = recordedAt === null ? null : round((recordedAt - t0) / 1000, 2);
  const acceptedS = acceptedAt === null || rejected > 0 ? null : round((acceptedAt - t0) / 1000, 2);
  const rsa = ctx.limits.rsa?.perSecond ?? null;
  const rawSignS = rsa ? round(total / rsa, 3) : null;
  const figures = {
    batches: p.batches,
    batch_size: p.batchSize,
    invoices: total,
    posted_in_seconds: round(postedS, 2),
    in_flight_from_earlier_stages: backlog,
    recorded_seconds: recordedS,
    accepted_seconds: acceptedS,
    accepted,
    rejected,
    accepted_per_s: round(accepted / ((tEnd - t0) / 1000), 1),
    counts_via_api: counts,
    timeout_seconds: p.batchTimeoutSeconds,
    raw_pg_bulk_insert_seconds: round(rawBulkS, 2),
    raw_rsa_seconds_one_core: rawSignS,
    worker_rss_after_mb: round(rssMb(worker.pid) ?? NaN, 1),
    worker_vm_hwm_mb: round(hwmMb(worker.pid) ?? NaN, 1),
    cpu,
    cpu_ms_per_accepted_invoice: perInvoice(cpu.cpuSeconds, accepted),
    postgres_per_accepted_invoice: perUnit(db0, db1, accepted),
  };
  ctx.log(
    `batch: recorded in ${recordedS ?? `> ${p.batchTimeoutSeconds}`} s, accepted in ${acceptedS ?? `> ${p.batchTimeoutSeconds} (${accepted} accepted, ${rejected} rejected)`} s`,
  );
  return {
    figures,
    rows: [
      {
        stage: 'batch',
        figure: `${total} invoices recorded (s)`,
        value: recordedS,
        unit: 's',
        target: `<= ${round(total / 1000, 2)} s`,
        met: recordedS !== null && recordedS <= total / 1000 && counts.failed === 0,
        limit: `raw PG insert of ${total} rows, chunks of 500`,
        limitValue: round(rawBulkS, 3),
        ratio: recordedS === null ? null : round(recordedS / rawBulkS, 1),
      },
      {
        stage: 'batch',
        figure: `${total} invoices accepted (s)`,
        value: acceptedS,
        unit: 's',
        target: `<= ${round((total * 60) / 10_000, 2)} s`,
        met: acceptedS !== null && acceptedS <= (total * 60) / 10_000,
        limit: `${total} raw RSA-2048 signs, one core`,
        limitValue: rawSignS,
        ratio: acceptedS === null || rawSignS === null ? null : round(acceptedS / rawSignS, 1),
      },
    ],
  };
}
