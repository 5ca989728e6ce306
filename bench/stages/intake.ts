// Intake: sustained POST /api/v1/invoices on one series (3-line invoices, a new Idempotency-Key
// each; with BENCH_DOC_MIX=mixed, four document types on four series) from a fixed number of
// keep-alive connections, with the worker process not running (intake is about recording: the flows
// wait in the outbox). Beside it, the raw Postgres rate of one-row insert-and-commit transactions
// from Node at the same concurrency, measured just before. Afterwards the intake invoices' flows
// are taken out of the outbox so that the later stages start with an empty pipeline (those invoices
// stay `pendiente` in the scratch database). Target: p99 ≤ 50 ms; the rate beside the raw commit
// rate is printed among the other figures.
import { closedLoop, percentile, request, round } from '../lib/http-load.ts';
import type { BenchContext, StageResult } from '../lib/context.ts';
import { rawPgCommitRate } from '../lib/limits.ts';
import { cpuBetween, cpuCeiling, cpuSnapshot, perInvoice } from '../lib/proc-stats.ts';
import { perUnit } from '../lib/db-activity.ts';
import { absoluteTarget } from '../lib/targets.ts';

export async function intakeStage(ctx: BenchContext): Promise<StageResult> {
  const p = ctx.params;
  if (ctx.service.children.workers.length) throw new Error('intake runs before the workers start');
  ctx.log(`raw Postgres: one-row insert+commit, ${p.concurrency} connections, ${p.rawPgSeconds} s`);
  const raw = await rawPgCommitRate(ctx.databaseUrl, p.concurrency, p.rawPgSeconds);
  ctx.limits.pg = raw;

  ctx.log(
    `intake: POST /api/v1/invoices, ${p.concurrency} connections, ${p.intakeWarmupSeconds} s warm-up + ${p.intakeSeconds} s`,
  );
  const run = `${process.pid}-${Date.now()}`;
  const pids = await ctx.cpuGroups();
  let cpuStart = cpuSnapshot(pids);
  const db0 = await ctx.observer.counters();
  let created = 0;
  let marked = false;
  const warmEnd = performance.now() + p.intakeWarmupSeconds * 1000;
  const loop = await closedLoop(p.concurrency, p.intakeSeconds, p.intakeWarmupSeconds, async (n) => {
    if (!marked && performance.now() >= warmEnd) {
      marked = true;
      cpuStart = cpuSnapshot(pids);
    }
    const res = await request(ctx.api, 'POST', '/api/v1/invoices', ctx.issuer.body(), {
      'idempotency-key': `intake-${run}-${n}`,
    });
    if (res.status === 201) created++;
    return res.status;
  });
  const cpu = cpuBetween(cpuStart, cpuSnapshot(await ctx.cpuGroups()));
  const dbWork = perUnit(db0, await ctx.observer.counters(true), created);
  const rate = round(loop.count / loop.seconds, 0);
  const perReq = perInvoice(cpu.cpuSeconds, loop.count);
  const ceiling = cpuCeiling(perReq);
  const p50 = round(percentile(loop.latenciesMs, 50), 1);
  const p99 = round(percentile(loop.latenciesMs, 99), 1);

  // Sanity: every answer was a real issue on the series.
  const series = await ctx.db('numbering_series').where({ companyId: ctx.issuer.companyId, livemode: false });
  // The flows of the intake invoices are dropped (the worker was not running; see header).
  const dropped = await ctx.db('outbox').del();
  const check = await request(ctx.api, 'GET', '/api/v1/invoices?limit=1');
  if (check.status !== 200) throw new Error(`GET /api/v1/invoices answered ${check.status}`);

  const figures = {
    workers: 'not running (worker process started after this stage; flows wait in the outbox)',
    concurrency: p.concurrency,
    seconds: round(loop.seconds, 2),
    warmup_seconds: p.intakeWarmupSeconds,
    requests: loop.count,
    errors: loop.errors,
    error_samples: loop.errorSamples,
    rate_per_s: rate,
    p50_ms: p50,
    p99_ms: p99,
    series: series.map((s) => `${s.docType}/${s.branch}/${s.terminal}: last ${s.lastNumber}`),
    raw_pg_commit: raw,
    ratio_to_raw_pg: round(rate / raw.perSecond, 3),
    outbox_rows_dropped: dropped,
    postgres_per_invoice: dbWork,
    cpu_ms_per_request: perReq,
    cpu_ceiling: ceiling,
    other_processes_cpu_percent: cpu.percentOfMachine.other,
    cpu,
  };
  ctx.log(
    `intake: ${rate}/s (p50 ${p50} ms, p99 ${p99} ms, ${loop.errors} errors); raw Postgres ${raw.perSecond}/s (p99 ${raw.p99Ms} ms)`,
  );
  const raw_ = `raw PG one-row insert+commit (${p.concurrency} conns)`;
  const noErrors = { ok: loop.errors === 0, why: `${loop.errors} requests failed` };
  return {
    figures,
    targets: [
      absoluteTarget(
        {
          id: 'intake.p99',
          figure: `p99 of POST /api/v1/invoices (p50 ${p50} ms)`,
          value: p99,
          unit: 'ms',
          limit: 'raw PG insert+commit p99',
          limitValue: raw.p99Ms,
          require: [noErrors],
        },
        '<=',
        50,
      ),
    ],
    info: [
      {
        stage: 'intake',
        figure: `invoices recorded per second (${p.docMix === 'mixed' ? 'four series' : 'one series'})`,
        value: rate,
        unit: '/s',
        limit: raw_,
        limit_value: raw.perSecond,
        ratio: round(rate / raw.perSecond, 3),
      },
      {
        stage: 'intake',
        figure: `rate if the service had the machine (${ceiling.service_cpu_ms_per_unit} CPU ms/invoice)`,
        value: ceiling.ceiling_per_s,
        unit: '/s',
        limit: raw_,
        limit_value: raw.perSecond,
        ratio: round(ceiling.ceiling_per_s / raw.perSecond, 3),
      },
    ],
  };
}
