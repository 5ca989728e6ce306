// Light load: what the service costs when little happens, with the workers started and the
// pipeline empty (after the latency stage, before the throughput stages). First `lightIdleSeconds`
// with no requests at all (after a settling of `lightSettleSeconds` or more, measured apart), then `lightSeconds` at one invoice per second (one request at a time,
// until each one's invoice.accepted webhook arrives); the figure at 10 invoices per second is the
// latency stage's (bench/stages/latency.ts). Each as CPU ms per invoice and % of one core of the
// service (API, workers, Postgres, Redis; the simulator apart). Targets: idle ≤ 2 % of one core;
// CPU per invoice at 10/s ≤ 2 × the same at full load (end to end), set in bench/run.ts.
import { request, round } from '../lib/http-load.ts';
import type { BenchContext, StageResult } from '../lib/context.ts';
import { cpuBetween, cpuSnapshot, serviceLoad } from '../lib/proc-stats.ts';
import { absoluteTarget, ratioTarget, type InfoRow, type TargetRow } from '../lib/targets.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The idle target, % of one core; the settling's steps. */
const IDLE_TARGET = 2;
const SETTLE_STEP_S = 5;
const QUIET_STEPS = 4;

/**
 * Waits in steps of SETTLE_STEP_S (the last one shorter, to end at `maxSeconds`) until at least
 * `minSeconds` have passed and the last QUIET_STEPS steps were each under the idle target, or
 * until `maxSeconds`. `step(seconds)` waits that long and gives the service's % of one core
 * meanwhile. Returns the seconds waited.
 */
export async function settleUntilQuiet(
  minSeconds: number,
  maxSeconds: number,
  step: (seconds: number) => Promise<number>,
): Promise<number> {
  let quiet = 0;
  let waited = 0;
  while (waited < maxSeconds && (waited < minSeconds || quiet < QUIET_STEPS)) {
    const seconds = Math.min(SETTLE_STEP_S, maxSeconds - waited);
    const percent = await step(seconds);
    waited += seconds;
    quiet = percent <= IDLE_TARGET ? quiet + 1 : 0;
  }
  return waited;
}

async function oneASecond(ctx: BenchContext): Promise<Record<string, unknown>> {
  const p = ctx.params;
  const n = Math.max(1, Math.round(p.lightSeconds));
  const run = `light-${process.pid}-${Date.now()}`;
  const ids: string[] = [];
  const cpu0 = cpuSnapshot(await ctx.cpuGroups());
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await sleep(Math.max(0, t0 + i * 1000 - performance.now()));
    const res = await request(ctx.api, 'POST', '/api/v1/invoices', ctx.issuer.body(), {
      'idempotency-key': `${run}-${i}`,
    });
    if (res.status === 201) ids.push((JSON.parse(res.body) as { id: string }).id);
  }
  // The window is n seconds (the last invoice's second included) or until its webhook, if later.
  await sleep(Math.max(0, t0 + n * 1000 - performance.now()));
  const all = await ctx.receiver.waitFor(ids, p.latencyTimeoutSeconds * 1000);
  const cpu = cpuBetween(cpu0, cpuSnapshot(await ctx.cpuGroups()));
  const load = serviceLoad(cpu);
  return {
    invoices: n,
    accepted: ids.filter((id) => ctx.receiver.accepted.has(id)).length,
    all_delivered: all && ids.length === n,
    seconds: round(cpu.seconds, 2),
    service_cpu_ms_per_invoice: round(load.cpu_ms / n, 2),
    percent_of_one_core: load.percent_of_one_core,
    groups_percent_of_one_core: load.groups,
    simulator_cpu_ms_per_invoice: round(((cpu.cpuSeconds.simulator ?? 0) * 1000) / n, 2),
  };
}

export async function lightStage(ctx: BenchContext): Promise<StageResult> {
  const p = ctx.params;
  if (!ctx.service.children.workers.length) throw new Error('light load needs the workers');
  ctx.log(
    `light load: ${p.lightSettleSeconds}–${p.lightSettleMaxSeconds} s settling, ${p.lightIdleSeconds} s idle, then ${p.lightSeconds} s at 1 invoice/s`,
  );
  // The first minutes after a busy stage are not idle yet: V8's memory reducer runs up to three
  // full collections of the heap the busy stage grew (0.5–1.3 s of the API's CPU on this kind of
  // machine, once per turn from busy to idle). It starts 8 s after a full collection when allocation
  // has slowed, and otherwise on its watchdog, 100 s after the process's last full collection
  // (V8's memory-reducer.cc: kLongDelayMs 8,000, kWatchdogDelayMs 100,000): seen here 47 s after the
  // latency stage, when the last full collection had been during intake. The settling is measured
  // and printed apart; the idle figure is the steady state after it. So the settling lasts at least
  // lightSettleSeconds (110 s, past the watchdog and its 8 s timer) and goes on, SETTLE_STEP_S at a
  // time, until the last QUIET_STEPS steps (20 s) were all under the idle target, up to
  // lightSettleMaxSeconds. A service that never settles is then measured as it is.
  const settle0 = cpuSnapshot(await ctx.cpuGroups());
  await settleUntilQuiet(p.lightSettleSeconds, p.lightSettleMaxSeconds, async (seconds) => {
    const step0 = cpuSnapshot(await ctx.cpuGroups());
    await sleep(seconds * 1000);
    return serviceLoad(cpuBetween(step0, cpuSnapshot(await ctx.cpuGroups()))).percent_of_one_core;
  });
  const settleCpu = cpuBetween(settle0, cpuSnapshot(await ctx.cpuGroups()));
  const settle = { seconds: round(settleCpu.seconds, 2), ...serviceLoad(settleCpu) };
  const idle0 = cpuSnapshot(await ctx.cpuGroups());
  await sleep(p.lightIdleSeconds * 1000);
  const idleCpu = cpuBetween(idle0, cpuSnapshot(await ctx.cpuGroups()));
  const idle = { seconds: round(idleCpu.seconds, 2), ...serviceLoad(idleCpu) };
  const one = await oneASecond(ctx);
  ctx.log(
    `light load: idle ${idle.percent_of_one_core} % of one core; 1/s ${String(one.service_cpu_ms_per_invoice)} ms per invoice, ${String(one.percent_of_one_core)} % of one core`,
  );
  const withoutRedis = round(idle.percent_of_one_core - (idle.groups.redis ?? 0), 2);
  const info: InfoRow[] = [
    {
      stage: 'light',
      figure: `service CPU in the ${settle.seconds} s after the latency stage, before the idle window`,
      value: settle.percent_of_one_core,
      unit: '%',
      limit: 'one core',
      limit_value: 100,
      ratio: round(settle.percent_of_one_core / 100, 4),
    },
    {
      stage: 'light',
      figure: 'service CPU at idle without redis-server (shared with other users of this Redis)',
      value: withoutRedis,
      unit: '%',
      limit: 'one core',
      limit_value: 100,
      ratio: round(withoutRedis / 100, 4),
    },
    {
      stage: 'light',
      figure: `service CPU per invoice at 1 invoice/s (${String(one.percent_of_one_core)} % of one core)`,
      value: one.service_cpu_ms_per_invoice as number,
      unit: 'ms',
      limit: '',
      limit_value: null,
      ratio: null,
    },
  ];
  return {
    figures: {
      settling: settle,
      idle: { ...idle, percent_of_one_core_without_redis: withoutRedis },
      one_per_second: one,
    },
    targets: [
      absoluteTarget(
        {
          id: 'light.idle_cpu',
          figure: `service CPU at idle, no requests, ${ctx.service.children.workers.length} worker (${p.lightIdleSeconds} s)`,
          value: idle.percent_of_one_core,
          unit: '%',
          limit: 'one core',
          limitValue: 100,
          limitMeasured: false,
          note: 'redis-server and the Postgres server processes are shared with other users of this machine',
        },
        '<=',
        IDLE_TARGET,
      ),
    ],
    info,
  };
}

/** Service CPU per invoice at 10/s (latency) ÷ the same at full load (end to end). */
export function lightToFullTarget(at10: number | null, full: number | null, rate: number): TargetRow {
  return ratioTarget(
    {
      id: 'light.cpu_at_10_per_s',
      figure: `service CPU per invoice at ${rate} invoices/s (latency stage)`,
      value: at10,
      unit: 'ms',
      limit: 'the same at full load (end to end)',
      limitValue: full,
    },
    '<=',
    2,
  );
}
