// Signing: Facturas built (totals + v4.4 XML) and XAdES-EPES signed per second on one core,
// beside the raw RSA-2048 rate and the plain xadesjs rate for the same document. The figures
// come from bench/sign.ts (`npm run bench:sign`, the signing benchmark kept by the signing
// path's owners): through its exported runSignBench() when it has one, otherwise by running
// it as a child process and reading its summary lines. Runs while the service is idle.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../config/index.ts';
import { round } from '../lib/http-load.ts';
import type { BenchContext, TableRow } from '../lib/context.ts';

export interface SignFigures {
  docsPerSecond: number;
  rawRsaPerSecond: number | null;
  xadesjsPerSecond: number | null;
  source: string;
  details?: unknown;
}

const signBench = join(projectRoot, 'bench/sign.ts');

/** Reads a figure from the child's output: the first number after a label matching `re`. */
function figure(out: string, re: RegExp): number | null {
  for (const line of out.split('\n')) {
    if (!re.test(line)) continue;
    const m = /:\s*([\d,.]+)\s*$/.exec(line) ?? /([\d,.]+)\s*(?:\/s|per second)/.exec(line);
    if (m) return Number(m[1]!.replace(/,/g, ''));
  }
  return null;
}

async function viaChild(seconds: number): Promise<SignFigures> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', signBench], {
      cwd: projectRoot,
      env: { ...process.env, BENCH_SECONDS: String(seconds) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`bench/sign.ts exited ${code}:\n${text}`)),
    );
  });
  const docs = figure(out, /built and signed per second/i);
  if (docs === null)
    throw new Error(`bench/sign.ts printed no "built and signed per second" figure:\n${out}`);
  return {
    docsPerSecond: docs,
    rawRsaPerSecond: figure(out, /raw RSA-2048 signatures per second/i),
    xadesjsPerSecond: figure(out, /xadesjs.*sign(ed|s|ing)? .*per second|xadesjs sign/i),
    source: 'npm run bench:sign (child process, output parsed)',
    details: out.trim().split('\n'),
  };
}

type RunSignBench = (opts: { seconds: number }) => Promise<Record<string, unknown>>;

function pickNumber(o: Record<string, unknown>, keys: string[]): number | null {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (v && typeof v === 'object' && typeof (v as { perSecond?: unknown }).perSecond === 'number')
      return (v as { perSecond: number }).perSecond;
  }
  return null;
}

export async function measureSigning(seconds: number): Promise<SignFigures> {
  if (/export\s+(async\s+)?function\s+runSignBench\b/.test(readFileSync(signBench, 'utf8'))) {
    const mod = (await import(pathToFileURL(signBench).href)) as { runSignBench: RunSignBench };
    const r = await mod.runSignBench({ seconds });
    const docs = pickNumber(r, ['docsPerSecond', 'buildSignPerSecond', 'signedPerSecond']);
    if (docs === null)
      throw new Error(`runSignBench() returned no documents-per-second figure: ${JSON.stringify(r)}`);
    return {
      docsPerSecond: docs,
      rawRsaPerSecond: pickNumber(r, ['rawRsaPerSecond', 'rawRsa', 'rsaPerSecond']),
      xadesjsPerSecond: pickNumber(r, ['xadesjsPerSecond', 'xadesjsSignPerSecond', 'xadesjs']),
      source: 'bench/sign.ts runSignBench()',
      details: r,
    };
  }
  return viaChild(seconds);
}

export async function signingStage(
  ctx: BenchContext,
): Promise<{ figures: Record<string, unknown>; rows: TableRow[] }> {
  ctx.log(`signing: bench/sign.ts, ${ctx.params.signSeconds} s per measurement, one core`);
  const s = await measureSigning(ctx.params.signSeconds);
  const rsa = ctx.limits.rsa?.perSecond ?? s.rawRsaPerSecond;
  const docs = round(s.docsPerSecond, 0);
  const figures = {
    docs_built_and_signed_per_s_one_core: docs,
    raw_rsa_per_s_one_core: rsa,
    raw_rsa_per_s_in_sign_bench: s.rawRsaPerSecond,
    xadesjs_sign_per_s_one_core: s.xadesjsPerSecond,
    ratio_to_raw_rsa: rsa ? round(docs / rsa, 3) : null,
    speedup_over_xadesjs: s.xadesjsPerSecond ? round(docs / s.xadesjsPerSecond, 2) : null,
    source: s.source,
    details: s.details,
  };
  ctx.log(
    `signing: ${docs} documents/s per core; raw RSA ${rsa}/s; xadesjs ${s.xadesjsPerSecond ?? 'n/a'}/s`,
  );
  return {
    figures,
    rows: [
      {
        stage: 'signing',
        figure: 'documents built + signed per second, one core',
        value: docs,
        unit: '/s',
        target: '>= 1000/s',
        met: docs >= 1000,
        limit: `raw RSA-2048, one core (xadesjs: ${s.xadesjsPerSecond ?? 'n/a'}/s)`,
        limitValue: rsa,
        ratio: rsa ? round(docs / rsa, 3) : null,
      },
    ],
  };
}
