// GET /metrics (Prometheus text format). Three sources:
// - this API process: request latency histograms by method, route pattern and status;
// - BullMQ, read at scrape time: jobs waiting, active, delayed and failed per queue;
// - the workers' cluster-wide totals from Redis (job durations per queue, Hacienda calls,
//   webhook deliveries; see jobs/metrics.ts).
// The queue and worker series are the same on every API instance; HTTP series are per process.
//
// Protection: with ADMIN_PASSWORD set, /metrics wants the admin Basic credentials (Prometheus'
// `basic_auth`); without it, it is open outside production and refused in production, so it
// is never public by accident. Series carry no tenant data (no company or key ids).
import { Queue, type ConnectionOptions } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config/index.ts';
import { BATCH_QUEUE, QUEUES } from '../jobs/catalogue.ts';
import { WEBHOOK_QUEUE } from '../jobs/webhook-deliver.ts';
import { readWorkerMetrics } from '../jobs/metrics.ts';
import { bullConnection } from '../jobs/redis.ts';
import { ApiError } from './errors.ts';
import { checkAdmin } from './plugins/bull-board.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route is left out of the HTTP latency histogram (e.g. /metrics itself). */
    metrics?: boolean;
  }
}

const JOB_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

export function registerMetrics(
  app: FastifyInstance,
  deps: { config: Config; redis: Redis; queueNames: string[] },
): void {
  const registry = new Registry();
  const http = new Histogram({
    name: 'factura_http_request_duration_seconds',
    help: 'API response time by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  // Queues for counting only, opened at the first scrape.
  let queues: Queue[] | null = null;
  const openQueues = () => {
    if (queues) return queues;
    const connection = bullConnection(deps.config.redisUrl) as ConnectionOptions;
    queues = deps.queueNames.map((name) => {
      const q = new Queue(name, { connection, prefix: deps.config.queuePrefix });
      q.on('error', () => {});
      return q;
    });
    return queues;
  };
  new Gauge({
    name: 'factura_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed), read from BullMQ at scrape time',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        openQueues().map(async (q) => {
          const counts = await q.getJobCounts(...JOB_STATES);
          for (const state of JOB_STATES) this.set({ queue: q.name, state }, counts[state] ?? 0);
        }),
      );
    },
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
      if (deps.config.admin || deps.config.env === 'production') checkAdmin(deps.config, request);
      let text: string;
      try {
        const [own, workers] = await Promise.all([
          registry.metrics(),
          readWorkerMetrics(deps.redis, deps.config.queuePrefix),
        ]);
        text = workers ? `${own}\n${workers}` : own;
      } catch (err) {
        request.log.warn({ err }, 'metrics unavailable');
        throw new ApiError('service_unavailable', 'Metrics are unavailable while Redis is down', {
          headers: { 'retry-after': '5' },
        });
      }
      return reply.type(registry.contentType).send(text);
    },
  );

  app.addHook('onClose', async () => {
    if (queues) await Promise.all(queues.map((q) => q.close().catch(() => {})));
  });
}

/** Queue names observed by /metrics: the invoice flow's, batches, webhooks, and any others given. */
export function observedQueueNames(extra: { name: string }[] = []): string[] {
  return [...new Set([...Object.values(QUEUES), BATCH_QUEUE, WEBHOOK_QUEUE, ...extra.map((q) => q.name)])];
}
