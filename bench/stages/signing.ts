// Signing: Facturas built (totals + v4.4 XML) and XAdES-EPES signed per second on one core,
// beside the raw RSA-2048 rate and the plain xadesjs rate for the same document. The figures
// come from bench/sign.ts's runSignBench() (the signing benchmark kept by the signing path's
// owners, also `npm run bench:sign`), run in a process of its own (bench/lib/sign-child.ts)
// while the service is idle. Target: documents built and signed per second ≥ 0.75 × the raw
// RSA-2048 signatures per second of the same process (the signing path keeps three quarters of
// the one operation it cannot avoid).
import { readFileSync } from 'node:fs';
import { round } from '../lib/http-load.ts';
import type { BenchContext, StageResult } from '../lib/context.ts';
import { ratioTarget } from '../lib/targets.ts';
import { startChild } from '../lib/processes.ts';
import type { SignBenchResult } from '../sign.ts';

export async function measureSigning(seconds: number): Promise<SignBenchResult> {
  const child = startChild('sign', 'bench/lib/sign-child.ts', { BENCH_SECONDS: String(seconds) });
  await child.exited;
  const out = readFileSync(child.log, 'utf8');
  const line = out.trim().split('\n').pop() ?? '';
  if (child.process.exitCode !== 0 || !line.startsWith('{'))
    throw new Error(`the signing benchmark failed (exit ${child.process.exitCode}):\n${out}`);
  return JSON.parse(line) as SignBenchResult;
}

export async function signingStage(ctx: BenchContext): Promise<StageResult> {
  ctx.log(`signing: bench/sign.ts, ${ctx.params.signSeconds} s per measurement, one core`);
  const s = await measureSigning(ctx.params.signSeconds);
  // The raw rate measured by the same process just before its signing loops.
  const rsa = s.rawRsaPerSecond;
  const xadesjs = s.xadesjsDocsPerSecond;
  const docs = round(s.docsPerSecond, 0);
  const figures = {
    docs_built_and_signed_per_s_one_core: docs,
    raw_rsa_per_s_one_core: rsa,
    raw_rsa_per_s_bench_process: ctx.limits.rsa?.perSecond ?? null,
    xadesjs_sign_per_s_one_core: xadesjs,
    fast_verify_per_s_one_core: s.verifyPerSecond,
    xadesjs_verify_per_s_one_core: s.xadesjsVerifyPerSecond,
    ratio_to_raw_rsa: rsa ? round(docs / rsa, 3) : null,
    speedup_over_xadesjs: xadesjs ? round(docs / xadesjs, 2) : null,
    source: 'bench/sign.ts runSignBench(), own process',
    measurements: s.measurements,
  };
  ctx.log(`signing: ${docs} documents/s per core; raw RSA ${rsa}/s; xadesjs ${xadesjs}/s`);
  return {
    figures,
    targets: [
      ratioTarget(
        {
          id: 'signing.docs_per_raw_rsa',
          figure: `documents built + signed per second, one core (xadesjs: ${xadesjs}/s)`,
          value: docs,
          unit: '/s',
          limit: 'raw RSA-2048 signs, one core',
          limitValue: rsa,
        },
        '>=',
        0.75,
      ),
    ],
    info: [],
  };
}
