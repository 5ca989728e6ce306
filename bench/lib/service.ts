// The service under measurement, run the way the Procfile runs it: the Hacienda simulator, the
// API and N worker processes (BENCH_WORKERS, started after intake), each its own node process
// with NODE_ENV=production, against the bench's scratch database and queue prefix. Also what the
// stages ask of it: the queues' backlog and the pids of every process group for CPU accounting.
import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { bullConnection } from '../../platform/redis.ts';
import { markerKey } from '../../workers/reconciler.ts';
import type { BenchParams } from './params.ts';
import { freePort, startChild, stopChild, waitUntil, type Child } from './processes.ts';
import { untilQuiet } from './proc-stats.ts';
import {
  ENTRY,
  compiledEntry,
  READINESS_QUEUES,
  SIMULATOR_PATHS,
  WATCHED_QUEUES,
  simulatorAdminHeaders,
  simulatorEnv,
  WORKER_NODE_OPTIONS,
  API_NODE_OPTIONS,
} from './service-layout.ts';

/** The environment of a service process with its Procfile node options after the caller's own. */
function withNodeOptions(env: Record<string, string>, options: string): Record<string, string> {
  return { ...env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${options}`.trim() };
}

export interface Service {
  apiUrl: string;
  simulatorUrl: string;
  env: Record<string, string>;
  children: { api: Child; simulator: Child; workers: Child[] };
  /** Starts `count` worker processes and waits until each consumes the readiness queues. */
  startWorkers(count: number): Promise<Child[]>;
  stopWorkers(): Promise<void>;
  /** Jobs waiting, active, delayed or waiting for children, per watched queue. */
  queuedJobs(): Promise<Record<string, number>>;
}

export interface ServiceOptions {
  params: BenchParams;
  /** The compiled build to run (`params.compiled`), or null for the sources through tsx. */
  buildDir: string | null;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  secretsKey: Buffer;
}

export async function startService(o: ServiceOptions): Promise<Service> {
  const [apiPort, simPort] = [await freePort(), await freePort()];
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const simulatorUrl = `http://127.0.0.1:${simPort}`;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    LOG_LEVEL: o.params.logLevel,
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    QUEUE_PREFIX: o.queuePrefix,
    SECRETS_KEY: o.secretsKey.toString('base64'),
    PUBLIC_URL: apiUrl,
    ADMIN_PASSWORD: '',
    ...simulatorEnv(simPort, o.params.simulatorSchema),
    // The receiver is the bench itself, on 127.0.0.1 (production refuses private addresses by default).
    WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true',
    // The intake stage leaves its invoices `pendiente` on purpose; the reconciler must not revive them.
    RECONCILE_STALE_MS: '86400000',
  };
  const profile = (name: string) => ({ profile: o.params.profile.has(name) });
  const entry = (file: string) => (o.buildDir ? compiledEntry(file, o.buildDir) : file);
  const simulator = startChild('sandbox', entry(ENTRY.simulator), env, profile('sandbox'));
  const api = startChild('api', entry(ENTRY.api), withNodeOptions(env, API_NODE_OPTIONS), profile('api'));
  await waitUntil(
    'simulator',
    async () =>
      (await fetch(`${simulatorUrl}${SIMULATOR_PATHS.ready}`, { headers: simulatorAdminHeaders })).ok,
    60_000,
    simulator,
  );
  await waitUntil('API', async () => (await fetch(`${apiUrl}/ready`)).ok, 60_000, api);
  // Ready, it still builds the response serializers no request has needed (api/lazy-serializers.ts).
  await untilQuiet(api.pid);

  const connection = bullConnection(o.redisUrl) as ConnectionOptions;
  const children: Service['children'] = { api, simulator, workers: [] };
  return {
    apiUrl,
    simulatorUrl,
    env,
    children,
    async startWorkers(count) {
      // Redis has lost nothing: the intake invoices are left in flight on purpose, so the
      // reconciler's marker says so, or the workers' first pass would sweep them all back in.
      const marker = new Redis(connection as RedisOptions);
      try {
        await marker.hset(markerKey(o.queuePrefix), 'state', 'ok');
      } finally {
        marker.disconnect();
      }
      const started = Array.from({ length: count }, (_, i) =>
        startChild(
          count === 1 ? 'worker' : `worker-${i + 1}`,
          entry(ENTRY.worker),
          withNodeOptions(env, WORKER_NODE_OPTIONS),
          profile('worker'),
        ),
      );
      const want = children.workers.length + count;
      const probes = READINESS_QUEUES.map((q) => new Queue(q, { connection, prefix: o.queuePrefix }));
      try {
        for (const worker of started)
          await waitUntil(
            'worker',
            async () => (await Promise.all(probes.map((q) => q.getWorkersCount()))).every((n) => n >= want),
            60_000,
            worker,
            200,
          );
      } finally {
        await Promise.all(probes.map((q) => q.close()));
      }
      children.workers.push(...started);
      return started;
    },
    async stopWorkers() {
      await Promise.all(children.workers.map((w) => stopChild(w)));
      children.workers = [];
    },
    async queuedJobs() {
      const out: Record<string, number> = {};
      for (const name of WATCHED_QUEUES) {
        const q = new Queue(name, { connection, prefix: o.queuePrefix });
        const c = await q.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'waiting-children');
        out[name] = Object.values(c).reduce((a, b) => a + b, 0);
        await q.close();
      }
      return out;
    },
  };
}
