// `npm run bench`: issue 8's benchmark suite in one command. On this machine, next to Postgres
// and Redis, it runs the service's own processes (API, worker, Hacienda simulator) against a
// scratch database and queue prefix of its own, and measures every stage beside the machine's
// own limit measured in the same run:
//
//   signing     documents built + signed per second on one core   | raw RSA-2048, plain xadesjs
//   intake      POST /api/v1/invoices per second, p50/p99          | raw PG one-row commits
//   end to end  invoices accepted with their webhook, per second   | raw RSA-2048 (one core)
//   memory      API and worker RSS during end to end, growth       | RSS at idle
//   batch       10 × 1,000 through the batch API: recorded, accepted | raw PG bulk insert, raw RSA
//   reads       p99 of three queries at 1M invoices / 100k clients | the same SQL, raw
//
// Prints a table and writes bench/results.json (BENCH_RESULTS=<path> elsewhere). BENCH_SCALE=tiny
// runs every stage with a handful of invoices (the smoke test); BENCH_STAGES=intake,reads picks
// stages; BENCH_PROFILE=api,worker runs those processes under --cpu-prof (.local/bench/profiles).
// Every knob is in bench/lib/params.ts. Child processes, the database and the Redis keys are
// removed at the end, on errors and on Ctrl-C.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Queue, type ConnectionOptions } from 'bullmq';
import { loadConfig, projectRoot } from '../config/index.ts';
import { QUEUES } from '../jobs/catalogue.ts';
import { bullConnection, createRedis, waitForRedis } from '../jobs/redis.ts';
import { WEBHOOK_QUEUE } from '../jobs/webhook-deliver.ts';
import type { BenchContext, TableRow } from './lib/context.ts';
import { httpClient, request, round } from './lib/http-load.ts';
import { seedIssuer } from './lib/issuer.ts';
import { rawRsaRate } from './lib/limits.ts';
import { benchParams } from './lib/params.ts';
import {
  benchDir,
  freePort,
  killAllNow,
  startChild,
  stopAll,
  stopChild,
  waitUntil,
  type Child,
} from './lib/processes.ts';
import { hwmMb, rssMb } from './lib/proc-stats.ts';
import { startReceiver, type Receiver } from './lib/receiver.ts';
import { machine, renderTable, writeResults } from './lib/report.ts';
import { createScratchDatabase, deletePrefixKeys, type Scratch } from './lib/scratch.ts';
import { batchStage } from './stages/batch.ts';
import { endToEndStage } from './stages/end-to-end.ts';
import { intakeStage } from './stages/intake.ts';
import { readsStage } from './stages/reads.ts';
import { signingStage } from './stages/signing.ts';

const startedAt = new Date();
const loadAtStart = round(loadavg()[0]!, 2);
const t0 = performance.now();
const log = (m: string) =>
  console.log(`[bench ${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${m}`);

const base = loadConfig();
const params = benchParams(process.env, join(projectRoot, 'bench/results.json'));
const prefix = `{bench${process.pid}}`;
const secretsKey = randomBytes(32);
const redis = createRedis(base.redisUrl, 'api');
let scratch: Scratch | null = null;
let receiver: Receiver | null = null;

// ---- clean-up, whatever happens -------------------------------------------------------------
let cleaning: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll().catch((err: unknown) => console.error('stopping processes:', err));
    await receiver?.close().catch(() => {});
    await scratch?.drop().catch((err: unknown) => console.error('dropping the scratch database:', err));
    try {
      await deletePrefixKeys(redis, prefix);
    } catch (err) {
      console.error('deleting Redis keys:', err);
    }
    redis.disconnect();
  })();
  return cleaning;
}
// `on`, not `once`: a second Ctrl-C (or tsx relaying the first one again) must not end the
// process halfway through its clean-up.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping the bench's processes and dropping its database…`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllNow);

// ---- the run ----------------------------------------------------------------------------------
async function main(): Promise<void> {
  log(
    `scale ${params.scale}; stages ${[...params.stages].join(', ')}; load average ${loadAtStart}; logs in ${benchDir}`,
  );
  await waitForRedis(redis);
  scratch = await createScratchDatabase(base.databaseUrl);
  log(`scratch database ${scratch.name}, queue prefix ${prefix}`);
  const issuer = await seedIssuer(scratch.db, secretsKey);
  const limits: BenchContext['limits'] = {};
  limits.rsa = rawRsaRate(issuer.material.privateKeyPkcs8, params.rsaSeconds);
  log(`raw RSA-2048 sign, one core: ${limits.rsa.perSecond}/s`);

  const stages: Record<string, unknown> = {};
  const rows: TableRow[] = [];
  const add = (name: string, r: { figures: Record<string, unknown>; rows: TableRow[] }) => {
    stages[name] = r.figures;
    rows.push(...r.rows);
  };

  // 1. The processes: simulator and API now, the worker after intake.
  const [apiPort, simPort] = [await freePort(), await freePort()];
  const simUrl = `http://127.0.0.1:${simPort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    LOG_LEVEL: params.logLevel,
    DATABASE_URL: scratch.url,
    REDIS_URL: base.redisUrl,
    QUEUE_PREFIX: prefix,
    SECRETS_KEY: secretsKey.toString('base64'),
    PUBLIC_URL: apiUrl,
    ADMIN_PASSWORD: '',
    SIMULATOR_EMBEDDED: 'false',
    SIMULATOR_PORT: String(simPort),
    SIMULATOR_HOST: '127.0.0.1',
    SIMULATOR_PROCESSING_DELAY_MS: '0',
    SIMULATOR_CHECK_SCHEMA: String(params.simulatorSchema),
    HACIENDA_SANDBOX_IDP_URL: `${simUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
    HACIENDA_SANDBOX_API_URL: `${simUrl}/recepcion-sandbox/v1`,
    // The receiver is the bench itself, on 127.0.0.1 (production refuses private addresses by default).
    WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true',
    // The intake stage leaves its invoices `pendiente` on purpose; the reconciler must not revive them.
    RECONCILE_STALE_MS: '86400000',
  };
  const profile = (name: string) => ({ profile: params.profile.has(name) });
  const simulator = startChild('sandbox', 'hacienda/simulator/main.ts', env, profile('sandbox'));
  const api = startChild('api', 'api/server.ts', env, profile('api'));
  await waitUntil('simulator', async () => (await fetch(`${simUrl}/_simulator/stats`)).ok, 60_000, simulator);
  await waitUntil('API', async () => (await fetch(`${apiUrl}/ready`)).ok, 60_000, api);
  const idleRss: Record<string, number> = { api: rssMb(api.pid) ?? NaN };
  const client = httpClient(
    apiUrl,
    { authorization: `Bearer ${issuer.key}` },
    Math.max(params.concurrency, 64),
  );
  receiver = await startReceiver();
  const endpoint = await request(client, 'POST', '/api/v1/webhook_endpoints', {
    url: receiver.url,
    events: ['invoice.accepted'],
    description: 'bench receiver',
  });
  if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${endpoint.body}`);
  receiver.secret = (JSON.parse(endpoint.body) as { secret: string }).secret;
  log(
    `API ${apiUrl} (pid ${api.pid}), simulator ${simUrl} (pid ${simulator.pid}), webhooks to ${receiver.url}`,
  );

  const connection = bullConnection(base.redisUrl) as ConnectionOptions;
  const ctx: BenchContext = {
    params,
    db: scratch.db,
    databaseUrl: scratch.url,
    apiUrl,
    simulatorUrl: simUrl,
    api: client,
    issuer,
    receiver,
    children: { api, simulator, worker: null },
    limits,
    log,
    async startWorker() {
      const worker: Child = startChild('worker', 'workers/main.ts', env, profile('worker'));
      const probes = [QUEUES.sign, WEBHOOK_QUEUE].map((q) => new Queue(q, { connection, prefix }));
      try {
        await waitUntil(
          'worker',
          async () => (await Promise.all(probes.map((q) => q.getWorkersCount()))).every((n) => n > 0),
          60_000,
          worker,
          200,
        );
      } finally {
        await Promise.all(probes.map((q) => q.close()));
      }
      ctx.children.worker = worker;
      return worker;
    },
    async queuedJobs() {
      const names = [...Object.values(QUEUES), WEBHOOK_QUEUE];
      const out: Record<string, number> = {};
      for (const name of names) {
        const q = new Queue(name, { connection, prefix });
        const c = await q.getJobCounts('waiting', 'active', 'delayed', 'waiting-children');
        out[name] = Object.values(c).reduce((a, b) => a + b, 0);
        await q.close();
      }
      return out;
    },
    async stopWorker() {
      if (ctx.children.worker) await stopChild(ctx.children.worker);
      ctx.children.worker = null;
    },
  };

  // 2. The stages, quietest first.
  if (params.stages.has('signing')) add('signing', await signingStage(ctx));
  if (params.stages.has('intake')) add('intake', await intakeStage(ctx));
  else await scratch.db('outbox').whereNull('processed_at').update({ processedAt: scratch.db.fn.now() });
  const needsWorker = ['end_to_end', 'batch'].some((s) => params.stages.has(s as never));
  if (needsWorker) {
    const worker = await ctx.startWorker();
    await new Promise((r) => setTimeout(r, 1000));
    idleRss.worker = rssMb(worker.pid) ?? NaN;
    log(`worker started (pid ${worker.pid}, ${round(idleRss.worker, 1)} MB RSS idle)`);
  }
  if (params.stages.has('end_to_end') || params.stages.has('batch')) {
    // Measured again right beside the stages that are compared with it (the first reading was
    // taken while the processes were starting).
    limits.rsa = rawRsaRate(issuer.material.privateKeyPkcs8, params.rsaSeconds);
    log(`raw RSA-2048 sign, one core: ${limits.rsa.perSecond}/s`);
  }
  if (params.stages.has('end_to_end')) {
    const e = await endToEndStage(ctx, idleRss);
    stages.end_to_end = e.figures;
    rows.push(...e.rows);
    if (params.stages.has('memory')) {
      stages.memory = e.memory;
      rows.push(...e.memoryRows);
    }
  }
  if (params.stages.has('batch')) add('batch', await batchStage(ctx));
  const worker = ctx.children.worker;
  if (params.stages.has('memory') && worker && stages.memory) {
    // The kernel's peak for the worker over everything it did (end to end, then batch).
    const hwm = round(hwmMb(worker.pid) ?? NaN, 1);
    (stages.memory as Record<string, unknown>).worker_vm_hwm_whole_run_mb = hwm;
    rows.push({
      stage: 'memory',
      figure: `worker VmHWM, whole run${params.stages.has('batch') ? ' (incl. batch)' : ''}`,
      value: hwm,
      unit: 'MB',
      target: '<= 300 MB',
      met: hwm <= 300,
      limit: 'worker RSS idle after start',
      limitValue: round(idleRss.worker ?? NaN, 1),
      ratio: round(hwm / (idleRss.worker ?? NaN), 2),
    });
  }
  if (params.stages.has('reads')) add('reads', await readsStage(ctx));

  // 3. Report.
  const order = ['signing', 'intake', 'end to end', 'memory', 'batch', 'reads'];
  rows.sort((a, b) => order.indexOf(a.stage) - order.indexOf(b.stage));
  const durationS = round((performance.now() - t0) / 1000, 1);
  const pgVersion = (await scratch.db.raw('show server_version')).rows[0].server_version as string;
  const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  const results = {
    timestamp: startedAt.toISOString(),
    load_average_1m: { at_start: loadAtStart, at_end: round(loadavg()[0]!, 2) },
    duration_seconds: durationS,
    scale: params.scale,
    machine: { ...machine(), postgres: pgVersion, redis: redisVersion },
    setup: {
      processes:
        'API, worker and Hacienda simulator as separate node processes (node --import tsx), as in the Procfile',
      node_env: env.NODE_ENV,
      log_level: params.logLevel,
      simulator: `processing delay 0 ms; schema check ${params.simulatorSchema ? 'on' : 'off'}; signature, clave, consecutivo and totals checks on`,
      queue_prefix: prefix,
      database: scratch.name,
    },
    params: { ...params, stages: [...params.stages], profile: [...params.profile] },
    stages,
    table: rows,
  };
  writeResults(params.resultsPath, results);
  console.log(
    `\nBenchmark (${params.scale}) on ${results.machine.cpu_model}, ${results.machine.cores} cores, Node ${process.version}; ${durationS} s\n`,
  );
  console.log(renderTable(rows));
  const others = ['intake', 'end_to_end', 'batch']
    .map(
      (k) =>
        [k, (stages[k] as { cpu?: { percentOfMachine: Record<string, number> } } | undefined)?.cpu] as const,
    )
    .filter(([, c]) => c)
    .map(([k, c]) => `${k.replace(/_/g, ' ')} ${c!.percentOfMachine.other}%`);
  if (others.length)
    console.log(`\nCPU used by other processes on this machine during the stage: ${others.join(', ')}`);
  console.log(`\nresults: ${params.resultsPath}`);
}

let failed = false;
try {
  await main();
} catch (err) {
  failed = true;
  if (!interrupted) console.error('\nbench failed:', err);
} finally {
  await cleanup();
}
process.exit(interrupted ? 130 : failed ? 1 : 0);
