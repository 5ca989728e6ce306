// Batch: `batches` × `batchSize` invoices through POST /api/v1/invoices/batch (each item with its
// own idempotency_key), all batches sent at once. Two times from the first request: until every
// item is recorded (no batch item left `pending`, watched in the scratch database every 200 ms
// through the pending-items index: a GET of a 1,000-item batch would load the API it measures),
// and until every invoice is `aceptada` with its webhook delivered (watched by the receiver).
// The counts are checked through GET /api/v1/batches/{id} at the end.
// Target: recorded in ≤ 10 × the time to write the same rows raw (../lib/batch-rows.ts: the
// invoices, events, idempotency records, outbox rows, items' outcomes and series the recording
// wrote, read back at the end and written again into scratch copies of their tables, 500 invoices
// a transaction). Among the other figures: the acceptance rate beside raw RSA-2048, and the
// recording beside the raw insert of one invoice-sized row per invoice (the earlier limit).
import { formatId } from '../../domain/ids.ts';
import { pool, request, round } from '../lib/http-load.ts';
import type { BenchContext, StageResult } from '../lib/context.ts';
import { rawPgBulkInsert } from '../lib/limits.ts';
import { rawBatchRows } from '../lib/batch-rows.ts';
import {
  cpuBetween,
  cpuCeiling,
  cpuSnapshot,
  hwmMb,
  perInvoice,
  rssMb,
  serviceCpuMs,
} from '../lib/proc-stats.ts';
import { perUnit } from '../lib/db-activity.ts';
import { ratioTarget } from '../lib/targets.ts';

async function until(probe: () => Promise<boolean>, deadline: number, everyMs = 200): Promise<number | null> {
  for (;;) {
    if (await probe()) return performance.now();
    if (performance.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function batchStage(ctx: BenchContext): Promise<StageResult> {
  const p = ctx.params;
  const workers = ctx.service.children.workers;
  if (!workers.length) throw new Error('batch needs the workers');
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
  const backlog = await ctx.service.queuedJobs();
  const cpu0 = cpuSnapshot(await ctx.cpuGroups());
  const db0 = await ctx.observer.counters();
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
  // Accepted = `aceptada` with its invoice.accepted webhook delivered (as in end to end), watched
  // through the receiver, so the bench adds no queries while the service works.
  const invoiceIds = (
    await ctx.db('batch_items').whereIn('batch_id', ids).whereNotNull('invoice_id').pluck('invoice_id')
  ).map((id: number) => formatId('invoice', Number(id)));
  const allAccepted = await ctx.receiver.waitFor(invoiceIds, Math.max(1000, deadline - performance.now()));
  const arrivals = invoiceIds
    .map((id) => ctx.receiver.accepted.get(id))
    .filter((x): x is number => x !== undefined);
  const accepted = arrivals.length;
  const acceptedAt = allAccepted && invoiceIds.length === total ? Math.max(...arrivals) : null;
  const states = await ctx
    .db('invoices')
    .whereIn(
      'id',
      invoiceIds.map((id) => Number(id.slice(4))),
    )
    .groupBy('status')
    .select('status')
    .count('* as n');
  const statuses = Object.fromEntries(states.map((r) => [r.status, Number(r.n)]));
  const rejected = statuses.rechazada ?? 0;
  const tEnd = performance.now();
  const cpu = cpuBetween(cpu0, cpuSnapshot(await ctx.cpuGroups()));
  const db1 = await ctx.observer.counters(true);
  const counts = { pending: 0, created: 0, replayed: 0, failed: 0 };
  for (const id of batchIds) {
    const res = await request(ctx.api, 'GET', `/api/v1/batches/${id}`);
    const c = (JSON.parse(res.body) as { counts: typeof counts }).counts;
    for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += c[k];
  }

  // The same rows written raw, with the service idle again (it times the wall clock).
  const same =
    counts.failed === 0 && recordedAt !== null
      ? await rawBatchRows(ctx.databaseUrl, ids, (id) => formatId('invoice', id))
      : null;
  const recordedS = recordedAt === null ? null : round((recordedAt - t0) / 1000, 2);
  const acceptedS = acceptedAt === null || rejected > 0 ? null : round((acceptedAt - t0) / 1000, 2);
  const rsa = ctx.limits.rsa?.perSecond ?? null;
  const rawSignS = rsa ? round(total / rsa, 3) : null;
  const lastArrival = arrivals.length ? Math.max(...arrivals) : tEnd;
  const acceptedPerS = round(accepted / ((lastArrival - t0) / 1000), 1);
  const perInv = perInvoice(cpu.cpuSeconds, accepted);
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
    accepted_per_s: acceptedPerS,
    statuses,
    counts_via_api: counts,
    timeout_seconds: p.batchTimeoutSeconds,
    raw_pg_bulk_insert_seconds: round(rawBulkS, 2),
    raw_same_rows: same,
    raw_rsa_seconds_one_core: rawSignS,
    worker_processes: workers.length,
    worker_rss_after_mb: Object.fromEntries(workers.map((w) => [w.name, round(rssMb(w.pid) ?? NaN, 1)])),
    worker_vm_hwm_mb: Object.fromEntries(workers.map((w) => [w.name, round(hwmMb(w.pid) ?? NaN, 1)])),
    cpu,
    cpu_ms_per_accepted_invoice: perInv,
    service_cpu_ms_per_accepted_invoice: serviceCpuMs(perInv),
    cpu_ceiling: cpuCeiling(perInv),
    other_processes_cpu_percent: cpu.percentOfMachine.other,
    postgres_per_accepted_invoice: perUnit(db0, db1, accepted),
  };
  ctx.log(
    `batch: recorded in ${recordedS ?? `> ${p.batchTimeoutSeconds}`} s, accepted in ${acceptedS ?? `> ${p.batchTimeoutSeconds} (${accepted} accepted, ${rejected} rejected)`} s`,
  );
  const everyOne = [
    { ok: counts.failed === 0, why: `${counts.failed} batch items failed` },
    { ok: rejected === 0, why: `${rejected} rejected` },
    {
      ok: accepted === total,
      why: `${accepted} of ${total} accepted with their webhook within ${p.batchTimeoutSeconds} s`,
    },
  ];
  return {
    figures,
    targets: [
      ratioTarget(
        {
          id: 'batch.recorded',
          figure: `${p.batches} × ${p.batchSize} invoices recorded`,
          value: recordedS,
          unit: 's',
          limit: `the same rows written raw, chunks of 500`,
          limitValue: same?.seconds ?? null,
          require: [
            { ok: recordedS !== null, why: `not all recorded within ${p.batchTimeoutSeconds} s` },
            everyOne[0]!,
          ],
        },
        '<=',
        10,
      ),
    ],
    info: [
      {
        stage: 'batch',
        figure: `${p.batches} × ${p.batchSize} invoices recorded, beside one invoice-sized row per invoice`,
        value: recordedS,
        unit: 's',
        limit: `raw PG insert of ${total} rows, chunks of 500`,
        limit_value: round(rawBulkS, 3),
        ratio: recordedS === null ? null : round(recordedS / rawBulkS, 3),
      },
      {
        stage: 'batch',
        figure: `${p.batches} × ${p.batchSize} accepted with webhook, per second${everyOne.every((q) => q.ok) ? '' : ' (not all accepted)'}`,
        value: acceptedPerS,
        unit: '/s',
        limit: 'raw RSA-2048 signs, one core',
        limit_value: rsa,
        ratio: rsa ? round(acceptedPerS / rsa, 3) : null,
      },
    ],
  };
}
