// What one `npm run bench` does, as numbers: BENCH_SCALE=full (the default: the sizes the targets
// are stated for) or tiny (a few invoices per stage, for the smoke test), each figure overridable
// by its own BENCH_* variable. Bench scripts are entry points, so they read their own variables here.
import type { DocMix } from './issuer.ts';

export type StageName =
  'intake' | 'light' | 'latency' | 'end_to_end' | 'signing' | 'batch' | 'reads' | 'memory';
export const STAGES: StageName[] = [
  'intake',
  'light',
  'latency',
  'end_to_end',
  'signing',
  'batch',
  'reads',
  'memory',
];

export interface BenchParams {
  scale: 'full' | 'tiny';
  /** Stages to run (memory rides on end_to_end, the floor too; light's 10/s figure is latency's). */
  stages: Set<StageName>;
  /** Keep-alive connections of the intake load, and Postgres connections of its raw baseline. */
  concurrency: number;
  intakeSeconds: number;
  intakeWarmupSeconds: number;
  rawPgSeconds: number;
  rsaSeconds: number;
  /** Worker processes (the Procfile's `worker` scaled), all counted in CPU and memory. */
  /**
   * Run the compiled build with plain node, as the Procfile does in production (the default; the
   * bench compiles into a folder of its own first). BENCH_COMPILED=0 runs the sources through tsx.
   */
  compiled: boolean;
  /** What the stages send: facturas only (default) or four document kinds in turn (bench/lib/issuer.ts). */
  docMix: DocMix;
  workers: number;
  /** Latency stage: invoices per second, for how long, and how long to wait for the webhooks. */
  latencyRate: number;
  latencySeconds: number;
  latencyWarmupSeconds: number;
  latencyTimeoutSeconds: number;
  /** Light load: seconds of idle (no requests), then seconds at one invoice per second. */
  lightIdleSeconds: number;
  lightSeconds: number;
  /** Seconds after the latency stage before the idle window (measured and printed apart). */
  lightSettleSeconds: number;
  /** The settling goes on while the service is still busy, up to this many seconds. */
  lightSettleMaxSeconds: number;
  /** The floor: invoices whose exchanges and rows are written raw (sign: `rsaSeconds`). */
  floorInvoices: number;
  /** The floor again, one invoice at a time at `latencyRate`, for this many invoices (0: not measured). */
  lightFloorInvoices: number;
  e2eInvoices: number;
  /** Invoices carried end to end before the measured ones, not counted. */
  e2eWarmupInvoices: number;
  /** Connections creating the end-to-end invoices. */
  e2eConcurrency: number;
  e2eTimeoutSeconds: number;
  signSeconds: number;
  batches: number;
  batchSize: number;
  batchTimeoutSeconds: number;
  readInvoices: number;
  readClients: number;
  /** Measured requests per query kind, after warmUp more. */
  readRequests: number;
  readWarmup: number;
  /** Where results.json goes. */
  resultsPath: string;
  /** LOG_LEVEL of the API, worker and simulator processes. */
  logLevel: string;
  /** Children to run under `node --cpu-prof`: api, worker, sandbox. */
  profile: Set<string>;
  /** Simulator schema check (xmllint) during the run. */
  simulatorSchema: boolean;
}

type Env = Record<string, string | undefined>;

function num(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a non-negative number, got "${raw}"`);
  return n;
}

function list(env: Env, name: string): string[] | null {
  const raw = env[name];
  if (!raw) return null;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function docMix(raw: string | undefined): DocMix {
  if (!raw || raw === 'facturas') return 'facturas';
  if (raw === 'mixed') return 'mixed';
  throw new Error(`BENCH_DOC_MIX: expected facturas or mixed, got "${raw}"`);
}

export function benchParams(env: Env, defaultResults: string): BenchParams {
  const scale = env.BENCH_SCALE === 'tiny' ? 'tiny' : 'full';
  if (env.BENCH_SCALE && !['tiny', 'full'].includes(env.BENCH_SCALE))
    throw new Error(`BENCH_SCALE: expected full or tiny, got "${env.BENCH_SCALE}"`);
  const full = scale === 'full';
  const stageList = list(env, 'BENCH_STAGES') ?? STAGES;
  for (const s of stageList)
    if (!STAGES.includes(s as StageName))
      throw new Error(`BENCH_STAGES: unknown stage "${s}" (known: ${STAGES.join(', ')})`);
  const stages = new Set(stageList as StageName[]);
  if (stages.has('memory')) stages.add('end_to_end');
  if (stages.has('light')) stages.add('latency');
  return {
    scale,
    stages,
    concurrency: num(env, 'BENCH_CONCURRENCY', full ? 32 : 4),
    intakeSeconds: num(env, 'BENCH_INTAKE_SECONDS', full ? 20 : 3),
    intakeWarmupSeconds: num(env, 'BENCH_INTAKE_WARMUP_SECONDS', full ? 3 : 2),
    rawPgSeconds: num(env, 'BENCH_RAW_PG_SECONDS', full ? 5 : 0.5),
    rsaSeconds: num(env, 'BENCH_RSA_SECONDS', full ? 2 : 0.3),
    workers: Math.max(1, Math.floor(num(env, 'BENCH_WORKERS', 1))),
    latencyRate: Math.max(0.1, num(env, 'BENCH_LATENCY_RATE', 10)),
    latencySeconds: num(env, 'BENCH_LATENCY_SECONDS', full ? 30 : 1),
    latencyWarmupSeconds: num(env, 'BENCH_LATENCY_WARMUP_SECONDS', full ? 3 : 0),
    latencyTimeoutSeconds: num(env, 'BENCH_LATENCY_TIMEOUT_SECONDS', 60),
    lightIdleSeconds: num(env, 'BENCH_LIGHT_IDLE_SECONDS', full ? 20 : 2),
    lightSeconds: num(env, 'BENCH_LIGHT_SECONDS', full ? 20 : 3),
    lightSettleSeconds: num(env, 'BENCH_LIGHT_SETTLE_SECONDS', full ? 110 : 2),
    lightSettleMaxSeconds: num(env, 'BENCH_LIGHT_SETTLE_MAX_SECONDS', full ? 180 : 2),
    floorInvoices: Math.max(100, num(env, 'BENCH_FLOOR_INVOICES', full ? 2000 : 200)),
    lightFloorInvoices: num(env, 'BENCH_LIGHT_FLOOR_INVOICES', full ? 100 : 5),
    e2eInvoices: num(env, 'BENCH_E2E_INVOICES', full ? 3000 : 12),
    e2eWarmupInvoices: num(env, 'BENCH_E2E_WARMUP_INVOICES', full ? 1000 : 4),
    e2eConcurrency: num(env, 'BENCH_E2E_CONCURRENCY', full ? 16 : 4),
    e2eTimeoutSeconds: num(env, 'BENCH_E2E_TIMEOUT_SECONDS', full ? 150 : 60),
    signSeconds: num(env, 'BENCH_SIGN_SECONDS', full ? 3 : 0.3),
    batches: num(env, 'BENCH_BATCHES', full ? 10 : 2),
    batchSize: num(env, 'BENCH_BATCH_SIZE', full ? 1000 : 5),
    batchTimeoutSeconds: num(env, 'BENCH_BATCH_TIMEOUT_SECONDS', full ? 150 : 60),
    readInvoices: num(env, 'BENCH_READ_INVOICES', full ? 1_000_000 : 2_000),
    readClients: num(env, 'BENCH_READ_CLIENTS', full ? 100_000 : 500),
    readRequests: num(env, 'BENCH_READ_REQUESTS', full ? 400 : 20),
    readWarmup: num(env, 'BENCH_READ_WARMUP', full ? 50 : 5),
    resultsPath: env.BENCH_RESULTS || defaultResults,
    logLevel: env.BENCH_LOG_LEVEL || 'warn',
    profile: new Set(list(env, 'BENCH_PROFILE') ?? []),
    simulatorSchema: ['1', 'true', 'yes'].includes((env.BENCH_SIMULATOR_SCHEMA ?? '').toLowerCase()),
    compiled: !['0', 'false', 'no'].includes((env.BENCH_COMPILED ?? '').toLowerCase()),
    docMix: docMix(env.BENCH_DOC_MIX),
  };
}
