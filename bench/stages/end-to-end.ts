// End to end: N invoices created through the API (as fast as `e2eConcurrency` connections go),
// carried by the worker processes through sign → submit → accounting → status against the
// simulator (no artificial delay), until each one's `invoice.accepted` webhook has reached the
// bench's receiver with a valid signature. The rate is N ÷ (last webhook − first request).
// A warm-up of `e2eWarmupInvoices` goes the same way first and is not counted. Right after, with
// the service idle, the floor is measured at the sizes of an invoice of this run (bench/lib/floor.ts).
// Memory of the API and workers is sampled over the same window (the memory stage). Targets: the
// service's CPU (API, workers, Postgres, Redis; not the simulator, Hacienda's, nor the bench's load
// generator and receiver) ≤ 4 × the floor per accepted invoice; ≤ 2 Postgres commits per accepted
// invoice. The rate beside raw RSA-2048 is printed among the other figures.
import { percentile, pool, request, round } from '../lib/http-load.ts';
import type { BenchContext, StageResult } from '../lib/context.ts';
import {
  cpuBetween,
  cpuCeiling,
  cpuSnapshot,
  perInvoice,
  rssMb,
  sampleRss,
  serviceCpuMs,
  type RssSeries,
} from '../lib/proc-stats.ts';
import { perUnit, tableWritesPerUnit } from '../lib/db-activity.ts';
import { measureFloor, type Floor } from '../lib/floor.ts';
import { ratioTarget, type InfoRow } from '../lib/targets.ts';

/** What `xact_commit` counts, printed beside the commits row. */
export const COMMITS_NOTE =
  'xact_commit of the scratch database: every committed transaction, autocommitted single statements (reads included) too';

export interface EndToEndResult extends StageResult {
  floor: Floor;
  memory: Record<string, unknown>;
  memoryInfo: InfoRow[];
}

interface Run {
  sentAt: Map<string, number>;
  /** Bytes of the last create's request body and of its 201 answer. */
  createBytes: { request: number; response: number };
  failures: number;
  t0: number;
  createdS: number;
  all: boolean;
  tEnd: number;
}

/** Creates `n` invoices over `e2eConcurrency` connections and waits for their accepted webhooks. */
async function createAndAwait(ctx: BenchContext, n: number, tag: string): Promise<Run> {
  const p = ctx.params;
  const run = `${tag}-${process.pid}-${Date.now()}`;
  const sentAt = new Map<string, number>();
  const t0 = performance.now();
  let failures = 0;
  const createBytes = { request: 0, response: 0 };
  await pool(
    Array.from({ length: n }, (_, i) => i),
    p.e2eConcurrency,
    async (i) => {
      const t = performance.now();
      const body = ctx.issuer.body();
      const res = await request(ctx.api, 'POST', '/api/v1/invoices', body, {
        'idempotency-key': `${run}-${i}`,
      });
      if (res.status !== 201) {
        failures++;
        return;
      }
      createBytes.request = Buffer.byteLength(JSON.stringify(body));
      createBytes.response = Buffer.byteLength(res.body);
      sentAt.set((JSON.parse(res.body) as { id: string }).id, t);
    },
  );
  const createdS = (performance.now() - t0) / 1000;
  // The timeout counts from the first request, so a slow run still ends in bounded time.
  const left = Math.max(1000, t0 + p.e2eTimeoutSeconds * 1000 - performance.now());
  const all = await ctx.receiver.waitFor(sentAt.keys(), left);
  return { sentAt, createBytes, failures, t0, createdS, all, tEnd: performance.now() };
}

export async function endToEndStage(ctx: BenchContext): Promise<EndToEndResult> {
  const p = ctx.params;
  const workers = ctx.service.children.workers;
  if (!workers.length) throw new Error('end to end needs the workers');
  const n = p.e2eInvoices;
  // A warm-up, not counted (as intake and latency have): a service runs for days, and the first
  // thousand invoices after a start also pay for compiling its code (measured: a third of the
  // CPU of a cold run). Its own CPU per invoice is reported beside the figures.
  let warmup: { invoices: number; accepted: boolean; service_cpu_ms_per_invoice: number } | null = null;
  if (p.e2eWarmupInvoices > 0) {
    ctx.log(`end to end: warm-up of ${p.e2eWarmupInvoices} invoices (not counted)`);
    const w0 = cpuSnapshot(await ctx.cpuGroups());
    const w = await createAndAwait(ctx, p.e2eWarmupInvoices, 'e2e-warmup');
    const wCpu = cpuBetween(w0, cpuSnapshot(await ctx.cpuGroups()));
    warmup = {
      invoices: p.e2eWarmupInvoices,
      accepted: w.all && w.failures === 0,
      service_cpu_ms_per_invoice: serviceCpuMs(perInvoice(wCpu.cpuSeconds, Math.max(1, w.sentAt.size))),
    };
  }
  ctx.log(
    `end to end: ${n} invoices, ${p.e2eConcurrency} connections, until every invoice.accepted webhook arrives`,
  );
  const rss = sampleRss(
    Object.fromEntries([ctx.service.children.api, ...workers].map((c) => [c.name, c.pid])),
    200,
  );
  const backlog = await ctx.service.queuedJobs();
  const cpu0 = cpuSnapshot(await ctx.cpuGroups());
  const tables0 = await ctx.observer.tableWrites();
  const db0 = await ctx.observer.counters();
  const { sentAt, createBytes, failures, t0, createdS, all, tEnd } = await createAndAwait(ctx, n, 'e2e');
  const memory = rss.stop();
  const cpu = cpuBetween(cpu0, cpuSnapshot(await ctx.cpuGroups()));
  const db1 = await ctx.observer.counters(true);
  const tables1 = await ctx.observer.tableWrites();
  ctx.log("floor: raw signature, HTTP exchanges and rows of one invoice, at this run's sizes");
  const floor = await measureFloor(ctx, createBytes);
  ctx.log(
    `floor: ${floor.cpu_ms_per_invoice} CPU ms per invoice (sign ${floor.parts.sign}, http ${floor.parts.http}, rows ${floor.parts.rows})`,
  );

  const ids = [...sentAt.keys()];
  const arrivals = ids.map((id) => ctx.receiver.accepted.get(id)).filter((x): x is number => x !== undefined);
  const lastArrival = arrivals.length ? Math.max(...arrivals) : tEnd;
  const seconds = (lastArrival - t0) / 1000;
  const delivered = arrivals.length;
  const rate = round(delivered / seconds, 1);
  const latencies = ids.flatMap((id) => {
    const a = ctx.receiver.accepted.get(id);
    return a === undefined ? [] : [a - sentAt.get(id)!];
  });
  const statuses = await ctx
    .db('invoices')
    .whereIn(
      'id',
      ids.map((id) => Number(id.slice(4))),
    )
    .groupBy('status')
    .select('status')
    .count('* as n');
  const rsa = ctx.limits.rsa?.perSecond ?? null;
  const perInv = perInvoice(cpu.cpuSeconds, delivered);
  const ceiling = cpuCeiling(perInv);
  const serviceMs = serviceCpuMs(perInv);
  const signMs = rsa ? round(1000 / rsa, 3) : null;
  const pgWork = perUnit(db0, db1, delivered);

  const figures = {
    invoices: n,
    warmup,
    create_failures: failures,
    all_delivered: all,
    delivered,
    seconds: round(seconds, 2),
    created_in_seconds: round(createdS, 2),
    create_bytes: createBytes,
    rate_per_s: rate,
    creation_to_webhook_p50_ms: round(percentile(latencies, 50), 0),
    creation_to_webhook_p99_ms: round(percentile(latencies, 99), 0),
    statuses: Object.fromEntries(statuses.map((r) => [r.status, Number(r.n)])),
    webhooks: {
      deliveries: ctx.receiver.deliveries,
      duplicates: ctx.receiver.duplicates,
      bad_signatures: ctx.receiver.badSignatures,
    },
    simulator: { processing_delay_ms: 0, schema_check: p.simulatorSchema, other_checks: 'on' },
    worker_processes: workers.length,
    in_flight_from_earlier_stages: backlog,
    raw_rsa_per_s_one_core: rsa,
    raw_rsa_sign_ms_one_core: signMs,
    ratio_to_raw_rsa: rsa ? round(rate / rsa, 3) : null,
    cpu,
    cpu_ms_per_invoice: perInv,
    service_cpu_ms_per_invoice: serviceMs,
    bench_cpu_ms_per_invoice: perInv.bench,
    simulator_cpu_ms_per_invoice: perInv.simulator,
    floor_cpu_ms_per_invoice: floor.cpu_ms_per_invoice,
    service_cpu_over_floor: round(serviceMs / floor.cpu_ms_per_invoice, 2),
    cpu_ceiling: ceiling,
    other_processes_cpu_percent: cpu.percentOfMachine.other,
    postgres_per_invoice: pgWork,
    postgres_rows_per_invoice_by_table: tableWritesPerUnit(tables0, tables1, delivered),
    postgres_commits_note: COMMITS_NOTE,
  };
  ctx.log(
    `end to end: ${delivered}/${n} accepted with webhooks in ${round(seconds, 1)} s = ${rate}/s (created in ${round(createdS, 1)} s); raw RSA ${rsa}/s`,
  );
  const allAccepted = [
    { ok: failures === 0, why: `${failures} creates failed` },
    { ok: all, why: `${n - delivered} of ${n} not accepted with their webhook in time` },
  ];
  const targets = [
    ratioTarget(
      {
        id: 'end_to_end.service_cpu',
        figure: 'service CPU per accepted invoice (API, workers, PG, Redis)',
        value: serviceMs,
        unit: 'ms',
        limit: 'the floor: raw sign + HTTP + rows',
        limitValue: floor.cpu_ms_per_invoice,
        require: allAccepted,
        note: `not counted: the simulator (Hacienda's), ${perInv.simulator} ms/invoice, and the bench's load generator and receiver, ${perInv.bench} ms/invoice; redis-server is shared with other users of this Redis`,
      },
      '<=',
      4,
    ),
    ratioTarget(
      {
        id: 'end_to_end.pg_commits',
        figure: 'Postgres commits per accepted invoice',
        value: pgWork.xact_commit_per_unit ?? null,
        unit: 'commits',
        limit: 'one commit per invoice (definition)',
        limitValue: 1,
        limitMeasured: false,
        require: allAccepted,
        note: COMMITS_NOTE,
      },
      '<=',
      2,
    ),
  ];
  const info: InfoRow[] = [
    {
      stage: 'end to end',
      figure: 'accepted with webhook delivered, per second',
      value: rate,
      unit: '/s',
      limit: 'raw RSA-2048 signs, one core',
      limit_value: rsa,
      ratio: rsa ? round(rate / rsa, 3) : null,
    },
    {
      stage: 'end to end',
      figure: "simulator CPU per accepted invoice (Hacienda's, not the service's)",
      value: perInv.simulator ?? null,
      unit: 'ms',
      limit: 'the floor',
      limit_value: floor.cpu_ms_per_invoice,
      ratio: perInv.simulator !== undefined ? round(perInv.simulator / floor.cpu_ms_per_invoice, 3) : null,
    },
    ...(warmup
      ? [
          {
            stage: 'end to end',
            figure: `warm-up, not counted: service CPU per invoice of the first ${warmup.invoices}`,
            value: warmup.service_cpu_ms_per_invoice,
            unit: 'ms',
            limit: 'the floor',
            limit_value: floor.cpu_ms_per_invoice,
            ratio: round(warmup.service_cpu_ms_per_invoice / floor.cpu_ms_per_invoice, 3),
          },
        ]
      : []),
    {
      stage: 'end to end',
      figure: `rate if the service had the machine (${ceiling.service_cpu_ms_per_unit} CPU ms/invoice)`,
      value: ceiling.ceiling_per_s,
      unit: '/s',
      limit: 'raw RSA-2048 signs, one core',
      limit_value: rsa,
      ratio: rsa ? round(ceiling.ceiling_per_s / rsa, 3) : null,
    },
  ];

  const m = (name: string) => {
    const series: RssSeries | undefined = memory[name];
    return {
      peak_rss_mb: round(series?.peakMb ?? NaN, 1),
      vm_hwm_mb: round(series?.hwmMb ?? NaN, 1),
      samples: series?.samples.length ?? 0,
      growth_last_quarter_over_second: round(series?.growth ?? NaN, 3),
      idle_rss_mb: round(ctx.idleRss[name] ?? NaN, 1),
    };
  };
  const perWorker = Object.fromEntries(workers.map((w) => [w.name, m(w.name)]));
  const top = Object.values(perWorker).reduce((a, b) => (b.peak_rss_mb > a.peak_rss_mb ? b : a));
  const growth = Math.max(...Object.values(perWorker).map((w) => w.growth_last_quarter_over_second));
  const a = m('api');
  const memoryFigures = {
    during: 'end to end',
    sample_every_ms: 200,
    api: a,
    // The worker with the highest peak; every worker process is in `workers`.
    worker: { ...top, growth_last_quarter_over_second: growth },
    workers: perWorker,
    worker_growing: growth > 1.1,
    worker_rss_after_mb: Object.fromEntries(workers.map((w) => [w.name, round(rssMb(w.pid) ?? NaN, 1)])),
  };
  const memoryInfo: InfoRow[] = [
    {
      stage: 'memory',
      figure: `worker peak RSS during end to end${workers.length > 1 ? ` (highest of ${workers.length})` : ''}`,
      value: top.peak_rss_mb,
      unit: 'MB',
      limit: 'worker RSS idle after start',
      limit_value: top.idle_rss_mb,
      ratio: round(top.peak_rss_mb / top.idle_rss_mb, 2),
    },
    {
      stage: 'memory',
      figure: 'worker RSS, last quarter ÷ second quarter of end to end',
      value: growth,
      unit: 'x',
      limit: '',
      limit_value: null,
      ratio: null,
    },
    {
      stage: 'memory',
      figure: 'API peak RSS during end to end',
      value: a.peak_rss_mb,
      unit: 'MB',
      limit: 'API RSS idle after start',
      limit_value: a.idle_rss_mb,
      ratio: round(a.peak_rss_mb / a.idle_rss_mb, 2),
    },
  ];
  return { figures, targets, info, floor, memory: memoryFigures, memoryInfo };
}
