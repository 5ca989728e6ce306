// `npm run bench`: the pipeline's targets in one command. On this machine, next to Postgres and
// Redis, it runs the service's own processes (API, N workers) and the Hacienda simulator against
// a scratch database and queue prefix of its own, measures the machine's own limits in the same
// run and states every target as a ratio to one of them (bench/lib/targets.ts):
//
//   signing     documents built + signed per second, one core, ÷ raw RSA-2048 signatures
//   intake      p99 of POST /api/v1/invoices, one series, 32 connections, workers not running
//   latency     10 invoices/s: p99 from the 201 to the invoice.accepted webhook; service CPU each
//   light       service CPU at idle, and per invoice at 1/s (10/s: the latency stage's figure)
//   end to end  invoices accepted with their webhook; service CPU each ÷ the floor; commits each
//   floor       what one accepted invoice cannot avoid, raw, at this run's sizes (bench/lib/floor.ts):
//               one RSA-2048 signature and its digests, four HTTP exchanges, its rows
//   memory      API and worker RSS during end to end; worker VmHWM over the whole run
//   batch       10 × 1,000 through the batch API: recorded ÷ raw bulk insert; accepted
//   reads       p99 of three queries at 1M invoices / 100k clients
//
// The service's CPU is the API's, the workers', Postgres's and Redis's; the simulator's (Hacienda's
// work) and the bench's own are printed apart. Prints the targets (figure, limit, ratio, target
// ratio, met), the floor's parts, the other figures and the targets again as a Markdown table, and
// writes it all to bench/results.json (BENCH_RESULTS=<path> elsewhere; the table under
// `markdown`, the floor under `floor`). BENCH_SCALE=tiny runs every stage with a handful of
// invoices (the smoke test); BENCH_STAGES=intake,reads picks stages; BENCH_WORKERS=N runs N worker
// processes; BENCH_PROFILE=api,worker runs those processes under --cpu-prof
// (.local/bench/profiles). The processes run the compiled build with plain node, as the Procfile
// runs them: the bench compiles into a folder of its own first (.local/bench/build-<pid>);
// BENCH_COMPILED=0 runs the sources through tsx instead. Every knob is in bench/lib/params.ts.
// Child processes, the build, the database and the Redis keys are removed at the end, on errors
// and on Ctrl-C.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { loadConfig, projectRoot } from '../config/index.ts';
import { createRedis, waitForRedis } from '../platform/redis.ts';
import { buildService } from '../scripts/build.ts';
import type { BenchContext, StageResult } from './lib/context.ts';
import { observeDatabase, type DbObserver } from './lib/db-activity.ts';
import { httpClient, request, round } from './lib/http-load.ts';
import { seedIssuer } from './lib/issuer.ts';
import { rawRsaRate } from './lib/limits.ts';
import { benchParams } from './lib/params.ts';
import { benchDir, killAllNow, stopAll, type Child } from './lib/processes.ts';
import { SERVICE_GROUPS, hwmMb, rssMb } from './lib/proc-stats.ts';
import { startReceiver, type Receiver } from './lib/receiver.ts';
import { renderFloor, type Floor } from './lib/floor.ts';
import { machine, renderInfo, renderMarkdown, renderTargets, writeResults } from './lib/report.ts';
import { createScratchDatabase, deletePrefixKeys, type Scratch } from './lib/scratch.ts';
import { startService } from './lib/service.ts';
import { TARGET_IDS, absoluteTarget, type InfoRow, type TargetRow } from './lib/targets.ts';
import { batchStage } from './stages/batch.ts';
import { COMMITS_NOTE, endToEndStage } from './stages/end-to-end.ts';
import { intakeStage } from './stages/intake.ts';
import { latencyStage } from './stages/latency.ts';
import { lightStage, lightToFullTarget } from './stages/light.ts';
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
const buildDir = params.compiled ? join(benchDir, `build-${process.pid}`) : null;
const redis = createRedis(base.redisUrl, 'api');
let scratch: Scratch | null = null;
let observer: DbObserver | null = null;
let receiver: Receiver | null = null;

const CPU_NOTE =
  `service CPU = ${SERVICE_GROUPS.join(' + ')} (Postgres: the scratch database's backends and the ` +
  "server's own processes; redis-server is shared with other users of this Redis); the Hacienda " +
  "simulator (Hacienda's work) is reported apart (`simulator`), as are the bench's load generator and " +
  'webhook receiver (`bench`) and other processes (`other`)';

// ---- clean-up, whatever happens -------------------------------------------------------------
let cleaning: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll().catch((err: unknown) => console.error('stopping processes:', err));
    await receiver?.close().catch(() => {});
    await observer?.close().catch(() => {});
    await scratch?.drop().catch((err: unknown) => console.error('dropping the scratch database:', err));
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
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
    `scale ${params.scale}; stages ${[...params.stages].join(', ')}; ${params.workers} worker process(es); load average ${loadAtStart}; logs in ${benchDir}`,
  );
  await waitForRedis(redis);
  if (buildDir) {
    const tb = performance.now();
    await buildService(buildDir);
    log(`compiled build in ${round((performance.now() - tb) / 1000, 1)} s (${buildDir})`);
  }
  scratch = await createScratchDatabase(base.databaseUrl);
  observer = await observeDatabase(scratch.url);
  log(`scratch database ${scratch.name}, queue prefix ${prefix}`);
  const issuer = await seedIssuer(scratch.db, secretsKey, params.docMix);
  const limits: BenchContext['limits'] = {};
  limits.rsa = rawRsaRate(issuer.material.privateKeyPkcs8, params.rsaSeconds);
  log(`raw RSA-2048 sign, one core: ${limits.rsa.perSecond}/s`);

  // 1. The service: simulator and API now, the workers after intake.
  const service = await startService({
    params,
    buildDir,
    databaseUrl: scratch.url,
    redisUrl: base.redisUrl,
    queuePrefix: prefix,
    secretsKey,
  });
  const { api, simulator } = service.children;
  const idleRss: Record<string, number> = {
    api: rssMb(api.pid) ?? NaN,
    [simulator.name]: rssMb(simulator.pid) ?? NaN,
  };
  const client = httpClient(
    service.apiUrl,
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
    `API ${service.apiUrl} (pid ${api.pid}), simulator ${service.simulatorUrl} (pid ${simulator.pid}), webhooks to ${receiver.url}`,
  );

  const obs = observer;
  const ctx: BenchContext = {
    params,
    db: scratch.db,
    databaseUrl: scratch.url,
    observer: obs,
    api: client,
    issuer,
    receiver,
    service,
    idleRss,
    limits,
    log,
    cpuGroups: async () => ({
      api: [api.pid],
      worker: service.children.workers.map((w) => w.pid),
      simulator: [simulator.pid],
      postgres: await obs.servicePids(),
    }),
  };
  const stages: Record<string, unknown> = {};
  const targets: TargetRow[] = [];
  const info: InfoRow[] = [];
  const add = (name: string, r: StageResult) => {
    stages[name] = r.figures;
    targets.push(...r.targets);
    info.push(...r.info);
  };

  // 2. The stages, quietest first; latency and light load with the pipeline empty, before the
  // throughput stages.
  if (params.stages.has('signing')) add('signing', await signingStage(ctx));
  if (params.stages.has('intake')) add('intake', await intakeStage(ctx));
  else await scratch.db('outbox').del();
  const workersStarted: Child[] = [];
  const needsWorkers = ['latency', 'light', 'end_to_end', 'batch'].some((s) => params.stages.has(s as never));
  if (needsWorkers) {
    const started = await service.startWorkers(params.workers);
    workersStarted.push(...started);
    await new Promise((r) => setTimeout(r, 1000));
    for (const w of started) idleRss[w.name] = rssMb(w.pid) ?? NaN;
    log(
      `worker processes started: ${started.map((w) => `pid ${w.pid}, ${round(idleRss[w.name]!, 1)} MB RSS idle`).join('; ')}`,
    );
    // Measured again right beside the stages that are compared with it (the first reading was
    // taken while the processes were starting).
    limits.rsa = rawRsaRate(issuer.material.privateKeyPkcs8, params.rsaSeconds);
    log(`raw RSA-2048 sign, one core: ${limits.rsa.perSecond}/s`);
  }
  if (params.stages.has('latency')) add('latency', await latencyStage(ctx));
  if (params.stages.has('light')) add('light', await lightStage(ctx));
  let floor: Floor | null = null;
  if (params.stages.has('end_to_end')) {
    const e = await endToEndStage(ctx);
    floor = e.floor;
    add('end_to_end', e);
    if (params.stages.has('memory')) add('memory', { figures: e.memory, targets: [], info: e.memoryInfo });
  }
  if (params.stages.has('light')) lightAtTen(stages, targets, info, floor);
  if (params.stages.has('batch')) add('batch', await batchStage(ctx));
  const workers = service.children.workers;
  if (params.stages.has('memory') && workers.length) {
    // The kernel's peak of each worker over everything it did (every stage since it started).
    const hwm = workers.map((w) => ({ name: w.name, mb: round(hwmMb(w.pid) ?? NaN, 1) }));
    const top = hwm.reduce((a, b) => (b.mb > a.mb ? b : a));
    (stages.memory as Record<string, unknown>).worker_vm_hwm_whole_run_mb = Object.fromEntries(
      hwm.map((h) => [h.name, h.mb]),
    );
    targets.push(
      absoluteTarget(
        {
          id: 'memory.worker_vm_hwm',
          figure: `worker VmHWM, whole run${workers.length > 1 ? ` (highest of ${workers.length}: ${top.name})` : ''}`,
          value: top.mb,
          unit: 'MB',
          limit: 'worker RSS idle after start',
          limitValue: round(idleRss[top.name] ?? NaN, 1),
        },
        '<=',
        250,
      ),
    );
  }
  if (params.stages.has('reads')) add('reads', await readsStage(ctx));

  // 3. Report.
  targets.sort((a, b) => TARGET_IDS.indexOf(a.id) - TARGET_IDS.indexOf(b.id));
  const durationS = round((performance.now() - t0) / 1000, 1);
  const pgVersion = (await scratch.db.raw('show server_version')).rows[0].server_version as string;
  const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  const met = targets.filter((t) => t.met).length;
  // Start-up (spawn to ready: /ready answers, or the worker consumes every readiness queue) and
  // RSS when idle, per process: what the compiled build changes (BENCH_COMPILED=1).
  // The workers as started (the reads stage stops them before the report).
  const procs = [api, simulator, ...workersStarted];
  const startup = Object.fromEntries(procs.map((c) => [c.name, c.readyMs ?? null]));
  const results = {
    timestamp: startedAt.toISOString(),
    load_average_1m: { at_start: loadAtStart, at_end: round(loadavg()[0]!, 2) },
    duration_seconds: durationS,
    scale: params.scale,
    machine: { ...machine(), postgres: pgVersion, redis: redisVersion },
    setup: {
      documents:
        params.docMix === 'mixed'
          ? 'in turn: factura, tiquete (04), exportación (09), factura with service charge and two payments'
          : 'facturas (01), one series',
      processes: `API, ${params.workers} worker process(es) and the Hacienda simulator as separate node processes (${params.compiled ? 'the compiled build, plain node' : 'node --import tsx'}), as in the Procfile`,
      node_env: service.env.NODE_ENV,
      log_level: params.logLevel,
      simulator: `processing delay 0 ms; schema check ${params.simulatorSchema ? 'on' : 'off'}; signature, clave, consecutivo and totals checks on`,
      queue_prefix: prefix,
      database: scratch.name,
    },
    params: { ...params, stages: [...params.stages], profile: [...params.profile] },
    processes: {
      startup_ms: startup,
      idle_rss_mb: Object.fromEntries(Object.entries(idleRss).map(([k, v]) => [k, round(v, 1)])),
    },
    targets_met: { met, of: targets.length },
    targets,
    other_figures: info,
    floor,
    markdown: renderMarkdown(targets),
    notes: { cpu: CPU_NOTE, postgres_commits: COMMITS_NOTE },
    stages,
  };
  writeResults(params.resultsPath, results);
  console.log(
    `\nBenchmark (${params.scale}) on ${results.machine.cpu_model}, ${results.machine.cores} cores, Node ${process.version}; ${durationS} s\n`,
  );
  console.log(
    `Processes (${params.compiled ? 'compiled build, plain node' : 'tsx'}): ${procs
      .map(
        (c) => `${c.name} ready in ${c.readyMs ?? '?'} ms, ${round(idleRss[c.name] ?? NaN, 1)} MB RSS idle`,
      )
      .join('; ')}\n`,
  );
  console.log(`Targets (${met} of ${targets.length} met)\n`);
  console.log(renderTargets(targets));
  if (floor) console.log(`\n${renderFloor(floor)}`);
  if (info.length) console.log(`\nOther figures\n\n${renderInfo(info)}`);
  console.log(`\nCPU: ${CPU_NOTE}.`);
  console.log(`Postgres commits: ${COMMITS_NOTE}.`);
  const others = ['intake', 'latency', 'end_to_end', 'batch']
    .map(
      (k) =>
        [k, (stages[k] as { cpu?: { percentOfMachine: Record<string, number> } } | undefined)?.cpu] as const,
    )
    .filter(([, c]) => c)
    .map(([k, c]) => `${k.replace(/_/g, ' ')} ${c!.percentOfMachine.other}%`);
  if (others.length)
    console.log(`CPU used by other processes on this machine during the stage: ${others.join(', ')}`);
  for (const t of targets.filter((t) => t.note && !t.met)) console.log(`${t.id}: ${t.note}`);
  console.log(`\nTargets as Markdown\n\n${results.markdown}`);
  console.log(`\nresults: ${params.resultsPath}`);
}

/**
 * The light-load figures at 10 invoices per second, the latency stage's, beside the same at full
 * load (end to end): an info row, and the target when both ran; beside the floor measured one
 * invoice at a time at the same rate, when end to end measured it (bench/lib/floor-paced.ts).
 */
function lightAtTen(
  stages: Record<string, unknown>,
  targets: TargetRow[],
  info: InfoRow[],
  floor: Floor | null,
): void {
  type Cpu = { service_cpu_ms_per_invoice?: number; service_percent_of_one_core?: number };
  const at10 = stages.latency as Cpu | undefined;
  const full = stages.end_to_end as Cpu | undefined;
  const light = stages.light as Record<string, unknown>;
  light.ten_per_second = {
    service_cpu_ms_per_invoice: at10?.service_cpu_ms_per_invoice ?? null,
    percent_of_one_core: at10?.service_percent_of_one_core ?? null,
    source: 'latency stage',
  };
  info.push({
    stage: 'light',
    figure: `service CPU per invoice at ${params.latencyRate} invoices/s (${at10?.service_percent_of_one_core ?? '?'} % of one core)`,
    value: at10?.service_cpu_ms_per_invoice ?? null,
    unit: 'ms',
    limit: '',
    limit_value: null,
    ratio: null,
  });
  const paced = floor?.light;
  if (paced) {
    const service = at10?.service_cpu_ms_per_invoice ?? null;
    info.push(
      {
        stage: 'light',
        figure: `service CPU per invoice at ${paced.rate} invoices/s`,
        value: service,
        unit: 'ms',
        limit: `the floor one invoice at a time, ${paced.rate}/s`,
        limit_value: paced.cpu_ms_per_invoice,
        ratio: service === null ? null : round(service / paced.cpu_ms_per_invoice, 3),
      },
      {
        stage: 'light',
        figure: `the floor one invoice at a time, ${paced.rate}/s`,
        value: paced.cpu_ms_per_invoice,
        unit: 'ms',
        limit: 'the floor back to back',
        limit_value: floor!.cpu_ms_per_invoice,
        ratio: paced.times_the_floor,
      },
    );
  }
  targets.push(
    lightToFullTarget(
      at10?.service_cpu_ms_per_invoice ?? null,
      full?.service_cpu_ms_per_invoice ?? null,
      params.latencyRate,
    ),
  );
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
