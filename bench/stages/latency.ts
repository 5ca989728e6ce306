// Latency under light load: invoices created at a steady `latencyRate` per second (10 by default),
// spread evenly, one request at a time, with the simulator answering without delay; for each one
// the time from its `201` to its `invoice.accepted` webhook reaching the bench's receiver (sign,
// submit, status, accounting and the webhook delivery in between). It runs with the pipeline empty,
// before the throughput stages, after `latencyWarmupSeconds` of the same load that is not counted
// (the worker processes have just started). Target: p99 ≤ 1 s. Its service CPU per invoice is the
// light-load figure at 10 invoices per second (bench/stages/light.ts). Beside it, the time of one raw RSA-2048
// signature on one core (the one cryptographic step every accepted invoice needs).
import { percentile, request, round } from '../lib/http-load.ts';
import type { BenchContext, StageResult } from '../lib/context.ts';
import { cpuBetween, cpuSnapshot, perInvoice, serviceCpuMs, serviceLoad } from '../lib/proc-stats.ts';
import { perUnit } from '../lib/db-activity.ts';
import { absoluteTarget } from '../lib/targets.ts';

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - performance.now())));

export async function latencyStage(ctx: BenchContext): Promise<StageResult> {
  const p = ctx.params;
  if (!ctx.service.children.workers.length) throw new Error('latency needs the workers');
  const n = Math.max(1, Math.round(p.latencyRate * p.latencySeconds));
  const warm = Math.round(p.latencyRate * p.latencyWarmupSeconds);
  const interval = 1000 / p.latencyRate;
  ctx.log(
    `latency: ${n} invoices at ${p.latencyRate}/s after ${warm} not counted, one request at a time, 201 → invoice.accepted`,
  );
  const backlog = await ctx.service.queuedJobs();
  const cpu0 = cpuSnapshot(await ctx.cpuGroups());
  const db0 = await ctx.observer.counters();
  const run = `${process.pid}-${Date.now()}`;
  const createdAt = new Map<string, number>();
  let failures = 0;
  let late = 0;
  const warmIds: string[] = [];
  const t0 = performance.now();
  for (let i = 0; i < warm + n; i++) {
    const due = t0 + i * interval;
    if (i >= warm && performance.now() > due + interval) late++;
    await sleepUntil(due);
    const res = await request(ctx.api, 'POST', '/api/v1/invoices', ctx.issuer.body(), {
      'idempotency-key': `latency-${run}-${i}`,
    });
    if (res.status !== 201) {
      failures++;
      continue;
    }
    const id = (JSON.parse(res.body) as { id: string }).id;
    if (i < warm) warmIds.push(id);
    else createdAt.set(id, performance.now());
  }
  const sendS = (performance.now() - t0) / 1000;
  const all = await ctx.receiver.waitFor([...warmIds, ...createdAt.keys()], p.latencyTimeoutSeconds * 1000);
  const cpu = cpuBetween(cpu0, cpuSnapshot(await ctx.cpuGroups()));
  const db1 = await ctx.observer.counters(true);

  const latencies = [...createdAt].flatMap(([id, t]) => {
    const a = ctx.receiver.accepted.get(id);
    return a === undefined ? [] : [a - t];
  });
  const delivered = latencies.length;
  const p50 = round(percentile(latencies, 50), 1);
  const p99 = round(percentile(latencies, 99), 1);
  const rsa = ctx.limits.rsa?.perSecond ?? null;
  const signMs = rsa ? round(1000 / rsa, 3) : null;
  // CPU and commits cover the whole stage, warm-up included: per invoice of all of them.
  const acceptedAll = delivered + warmIds.filter((id) => ctx.receiver.accepted.has(id)).length;
  const perInv = perInvoice(cpu.cpuSeconds, acceptedAll);
  const figures = {
    invoices: n,
    warmup_invoices_not_counted: warm,
    rate_per_s: p.latencyRate,
    achieved_rate_per_s: round((warm + n) / sendS, 2),
    requests_started_late: late,
    create_failures: failures,
    delivered,
    all_delivered: all,
    created_to_accepted_webhook_p50_ms: p50,
    created_to_accepted_webhook_p99_ms: p99,
    created_to_accepted_webhook_max_ms: round(Math.max(0, ...latencies), 1),
    in_flight_from_earlier_stages: backlog,
    raw_rsa_sign_ms_one_core: signMs,
    cpu,
    cpu_ms_per_invoice: perInv,
    service_cpu_ms_per_invoice: serviceCpuMs(perInv),
    service_percent_of_one_core: serviceLoad(cpu).percent_of_one_core,
    other_processes_cpu_percent: cpu.percentOfMachine.other,
    postgres_per_invoice: perUnit(db0, db1, acceptedAll),
  };
  ctx.log(`latency: p50 ${p50} ms, p99 ${p99} ms (${delivered}/${n} accepted with webhooks)`);
  return {
    figures,
    targets: [
      absoluteTarget(
        {
          id: 'latency.p99',
          figure: `p99 201 → invoice.accepted webhook at ${p.latencyRate}/s (p50 ${p50} ms)`,
          value: p99,
          unit: 'ms',
          limit: 'one raw RSA-2048 sign, one core',
          limitValue: signMs,
          require: [
            { ok: failures === 0, why: `${failures} creates failed` },
            { ok: all, why: `${n - delivered} webhooks missing after ${p.latencyTimeoutSeconds} s` },
          ],
        },
        '<=',
        1000,
      ),
    ],
    info: [],
  };
}
