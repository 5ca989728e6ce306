// GET /metrics (Prometheus text format). Three sources:
// - this API process: request latency histograms by method, route pattern and status;
// - BullMQ, read at scrape time: jobs waiting, active, delayed and failed per queue;
// - the workers' cluster-wide totals from Redis (job durations per queue, Hacienda calls,
//   webhook deliveries; see platform/metrics.ts).
// The queue and worker series are the same on every API instance; HTTP series are per process.
// A queue split into shards (platform/shards.ts) is one series: its shards' counts summed.
//
// Redis down: the scrape still answers (HTTP series) after at most 2 s, with
// factura_metrics_source_up{source="queues"|"workers"} 0 in place of the missing series.
//
// Protection: with ADMIN_PASSWORD set, /metrics wants the admin Basic credentials (Prometheus'
// `basic_auth`); without it, it is open outside production and refused in production, so it
// is never public by accident. Series carry no tenant data (no company or key ids).
import { Queue, type ConnectionOptions } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { RedisClient } from '../platform/redis.ts';
import type { Knex } from 'knex';
import { Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config/index.ts';
import { registryQueues } from '../jobs/registry.ts';
import { readWorkerMetrics } from '../platform/metrics.ts';
import { closeBullConnection } from '../platform/redis.ts';
import { queueConnection } from '../platform/queue-store.ts';
import { shardPrefixes } from '../platform/shards.ts';
import type { AdminCheck } from './plugins/admin-auth.ts';
import { registerProcessMetrics } from './process-metrics.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route is left out of the HTTP latency histogram (e.g. /metrics itself). */
    metrics?: boolean;
  }
}

const JOB_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** A scrape waits this long for Redis before answering without the queue and worker series. */
const SOURCE_TIMEOUT_MS = 2000;

export function registerMetrics(
  app: FastifyInstance,
  deps: { config: Config; redis: RedisClient; db: Knex; queueNames: string[]; requireAdmin: AdminCheck },
): void {
  const registry = new Registry();
  registerProcessMetrics(registry, app, deps.db);
  const http = new Histogram({
    name: 'factura_http_request_duration_seconds',
    help: 'API response time by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  const queueJobs = queueCounts(registry, deps.config, deps.queueNames);
  const sourceUp = new Gauge({
    name: 'factura_metrics_source_up',
    help: 'Whether this scrape could read a source: queues (BullMQ) and workers (totals in Redis)',
    labelNames: ['source'] as const,
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.config?.metrics === false) return;
    const route = request.routeOptions.url ?? 'unmatched';
    http.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  app.get(
    '/metrics',
    { config: { public: true, metrics: false }, schema: { hide: true } },
    async (request, reply) => {
      if (deps.config.admin || deps.config.env === 'production') await deps.requireAdmin(request, reply);
      const [queuesRead, workers] = await Promise.allSettled([
        bounded(queueJobs.count()),
        bounded(readWorkerMetrics(deps.redis, deps.config.queuePrefix)),
      ]);
      sourceUp.set({ source: 'queues' }, queuesRead.status === 'fulfilled' ? 1 : 0);
      sourceUp.set({ source: 'workers' }, workers.status === 'fulfilled' ? 1 : 0);
      if (queuesRead.status === 'rejected' || workers.status === 'rejected')
        request.log.warn(
          {
            err:
              queuesRead.status === 'rejected'
                ? queuesRead.reason
                : (workers as PromiseRejectedResult).reason,
          },
          'metrics: Redis sources unavailable; serving what this process has',
        );
      if (queuesRead.status === 'rejected') queueJobs.reset();
      const own = await registry.metrics();
      const text = workers.status === 'fulfilled' && workers.value ? `${own}\n${workers.value}` : own;
      return reply.type(registry.contentType).send(text);
    },
  );

  app.addHook('onClose', () => queueJobs.close());
}

// Redis down must not hang or fail the scrape: the HTTP series are still worth having.
function bounded<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${SOURCE_TIMEOUT_MS} ms`)),
        SOURCE_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The queue-depth gauge, read from BullMQ at scrape time: every queue named, on every shard when
 * the registry shards it (one series per queue, its shards summed). The queues are opened at the
 * first scrape, for counting only.
 */
function queueCounts(registry: Registry, config: Config, queueNames: string[]) {
  let queues: Queue[] | null = null;
  let connection: ConnectionOptions | null = null;
  const sharded = new Set(registryQueues().flatMap((q) => (q.sharded ? [q.name] : [])));
  const openQueues = () => {
    if (queues) return queues;
    connection = queueConnection(config);
    const { queuePrefix, queueShards } = config;
    queues = queueNames.flatMap((name) =>
      (sharded.has(name) ? shardPrefixes(queuePrefix, queueShards) : [queuePrefix]).map((prefix) => {
        const q = new Queue(name, { connection: connection!, prefix });
        q.on('error', () => {});
        return q;
      }),
    );
    return queues;
  };
  const gauge = new Gauge({
    name: 'factura_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed), read from BullMQ at scrape time',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
  });
  return {
    reset: () => gauge.reset(),
    async count() {
      // A job with a place in its company's turn (a priority) waits as `prioritized`: counted as waiting.
      const counted = await Promise.all(
        openQueues().map(async (q) => {
          const c: Record<string, number> = await q.getJobCounts(...JOB_STATES, 'prioritized');
          c.waiting = (c.waiting ?? 0) + (c.prioritized ?? 0);
          return [q.name, c] as const;
        }),
      );
      gauge.reset();
      for (const [queue, counts] of counted)
        for (const state of JOB_STATES) gauge.inc({ queue, state }, counts[state] ?? 0);
    },
    async close() {
      if (queues) await Promise.all(queues.map((q) => q.close().catch(() => {})));
      await closeBullConnection(connection);
    },
  };
}

/** Queue names observed by /metrics: every queue of the registry, and any others given. */
export function observedQueueNames(extra: { name: string }[] = []): string[] {
  return [...new Set([...registryQueues().map((q) => q.name), ...extra.map((q) => q.name)])];
}
