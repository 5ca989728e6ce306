// End to end: N invoices created through the API (as fast as `e2eConcurrency` connections go),
// carried by the worker through sign → submit → accounting → status against the simulator (no
// artificial delay), until each one's `invoice.accepted` webhook has reached the bench's
// receiver with a valid signature. The figure is N ÷ (last webhook − first request). Memory of
// the API and worker is sampled over the same window (the memory stage). Beside it, the raw
// single-core RSA-2048 signing rate: each accepted invoice needs one such signature.
import { percentile, pool, request, round } from '../lib/http-load.ts';
import type { BenchContext, TableRow } from '../lib/context.ts';
import {
  cpuBetween,
  cpuCeiling,
  cpuSnapshot,
  perInvoice,
  rssMb,
  sampleRss,
  type RssSeries,
} from '../lib/proc-stats.ts';
import { dbCounters, perUnit } from '../lib/db-activity.ts';

export interface EndToEndResult {
  figures: Record<string, unknown>;
  memory: Record<string, unknown>;
  rows: TableRow[];
  memoryRows: TableRow[];
}

export async function endToEndStage(
  ctx: BenchContext,
  idleRss: Record<string, number>,
): Promise<EndToEndResult> {
  const p = ctx.params;
  const worker = ctx.children.worker;
  if (!worker) throw new Error('end to end needs the worker');
  const n = p.e2eInvoices;
  ctx.log(
    `end to end: ${n} invoices, ${p.e2eConcurrency} connections, until every invoice.accepted webhook arrives`,
  );
  const pids = { api: ctx.children.api.pid, worker: worker.pid, simulator: ctx.children.simulator.pid };
  const rss = sampleRss({ api: pids.api, worker: pids.worker }, 200);
  const cpu0 = cpuSnapshot(pids);
  const db0 = await dbCounters(ctx.db);
  const run = `${process.pid}-${Date.now()}`;
  const sentAt = new Map<string, number>();
  const t0 = performance.now();
  let failures = 0;
  await pool(
    Array.from({ length: n }, (_, i) => i),
    p.e2eConcurrency,
    async (i) => {
      const t = performance.now();
      const res = await request(ctx.api, 'POST', '/api/v1/invoices', ctx.issuer.body(), {
        'idempotency-key': `e2e-${run}-${i}`,
      });
      if (res.status !== 201) {
        failures++;
        return;
      }
      sentAt.set((JSON.parse(res.body) as { id: string }).id, t);
    },
  );
  const createdS = (performance.now() - t0) / 1000;
  // The timeout counts from the first request, so a slow run still ends in bounded time.
  const left = Math.max(1000, t0 + p.e2eTimeoutSeconds * 1000 - performance.now());
  const all = await ctx.receiver.waitFor(sentAt.keys(), left);
  const tEnd = performance.now();
  const memory = rss.stop();
  const cpu = cpuBetween(cpu0, cpuSnapshot(pids));
  const db1 = await dbCounters(ctx.db, true);

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

  const figures = {
    invoices: n,
    create_failures: failures,
    all_delivered: all,
    delivered,
    seconds: round(seconds, 2),
    created_in_seconds: round(createdS, 2),
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
    raw_rsa_per_s_one_core: rsa,
    ratio_to_raw_rsa: rsa ? round(rate / rsa, 3) : null,
    cpu,
    cpu_ms_per_invoice: perInv,
    cpu_ceiling: ceiling,
    other_processes_cpu_percent: cpu.percentOfMachine.other,
    postgres_per_invoice: perUnit(db0, db1, delivered),
  };
  ctx.log(
    `end to end: ${delivered}/${n} accepted with webhooks in ${round(seconds, 1)} s = ${rate}/s (created in ${round(createdS, 1)} s); raw RSA ${rsa}/s`,
  );
  const rows: TableRow[] = [
    {
      stage: 'end to end',
      figure: 'accepted with webhook delivered, per second',
      value: rate,
      unit: '/s',
      target: '>= 300/s',
      met: all && failures === 0 && rate >= 300,
      limit: 'raw RSA-2048 signs, one core',
      limitValue: rsa,
      ratio: rsa ? round(rate / rsa, 3) : null,
    },
    {
      stage: 'end to end',
      figure: `rate if the service had the machine (${ceiling.service_cpu_ms_per_unit} CPU ms/invoice)`,
      value: ceiling.ceiling_per_s,
      unit: '/s',
      target: 'estimate',
      met: null,
      limit: 'raw RSA-2048 signs, one core',
      limitValue: rsa,
      ratio: rsa ? round(ceiling.ceiling_per_s / rsa, 3) : null,
    },
  ];

  const m = (name: 'api' | 'worker') => {
    const s: RssSeries | undefined = memory[name];
    return {
      peak_rss_mb: round(s?.peakMb ?? NaN, 1),
      vm_hwm_mb: round(s?.hwmMb ?? NaN, 1),
      samples: s?.samples.length ?? 0,
      growth_last_quarter_over_second: round(s?.growth ?? NaN, 3),
      idle_rss_mb: round(idleRss[name] ?? NaN, 1),
    };
  };
  const w = m('worker');
  const a = m('api');
  const growing = (memory.worker?.growth ?? 1) > 1.1;
  const memoryFigures = {
    during: 'end to end',
    sample_every_ms: 200,
    api: a,
    worker: w,
    worker_growing: growing,
    worker_rss_after_mb: round(rssMb(worker.pid) ?? NaN, 1),
  };
  const memoryRows: TableRow[] = [
    {
      stage: 'memory',
      figure: 'worker peak RSS (end to end)',
      value: w.peak_rss_mb,
      unit: 'MB',
      target: '<= 300 MB',
      met: w.peak_rss_mb <= 300,
      limit: 'worker RSS idle after start',
      limitValue: w.idle_rss_mb,
      ratio: round(w.peak_rss_mb / w.idle_rss_mb, 2),
    },
    {
      stage: 'memory',
      figure: 'worker RSS last quarter / second quarter',
      value: w.growth_last_quarter_over_second,
      unit: 'x',
      target: 'not growing (<= 1.10)',
      met: !growing,
      limit: '',
      limitValue: null,
      ratio: null,
    },
    {
      stage: 'memory',
      figure: 'API peak RSS (end to end)',
      value: a.peak_rss_mb,
      unit: 'MB',
      target: '(none)',
      met: null,
      limit: 'API RSS idle after start',
      limitValue: a.idle_rss_mb,
      ratio: round(a.peak_rss_mb / a.idle_rss_mb, 2),
    },
  ];
  return { figures, memory: memoryFigures, rows, memoryRows };
}
