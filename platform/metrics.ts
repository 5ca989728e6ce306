// Metrics of the work done outside the API: job durations per queue, Hacienda call outcomes and
// webhook delivery outcomes. Any module of a worker process records through `metrics`
// (e.g. `metrics.webhookDelivery('delivered', 0.12)`); the numbers live in this process's
// prom-client registry.
//
// Workers run in their own processes (any number of them, no port of their own), so a
// publisher moves what each process recorded since its last publication into one Redis hash of
// cluster-wide totals (`{factura:metrics}:totals`, HINCRBYFLOAT of the deltas, every
// METRICS_PUBLISH_MS and at shutdown; a process that recorded nothing since skips the pass). The API's /metrics reads that hash at scrape time: one
// scrape target shows every worker, and the totals only grow (a worker restart is not a
// counter reset). At most one interval of a killed worker's numbers is lost.
import { AggregatorRegistry, Counter, Histogram, Registry, type MetricObjectWithValues } from 'prom-client';
import type { Job, Worker } from 'bullmq';
import type { RedisClient } from './redis.ts';
import { taggedPrefix } from './redis-keys.ts';

export const workerRegistry = new Registry();

// Buckets from a few milliseconds (accounting) to a minute (a slow Hacienda).
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const jobDuration = new Histogram({
  name: 'factura_job_duration_seconds',
  help: 'Time a job spent processing, by queue and outcome (completed or failed)',
  labelNames: ['queue', 'outcome'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [workerRegistry],
});

const haciendaCalls = new Histogram({
  name: 'factura_hacienda_call_duration_seconds',
  help: 'Calls to Hacienda’s reception API by operation (submit, status), environment and outcome',
  labelNames: ['operation', 'environment', 'outcome'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [workerRegistry],
});

const webhookDeliveries = new Counter({
  name: 'factura_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (delivered, failed, timeout, gone, …)',
  labelNames: ['outcome'] as const,
  registers: [workerRegistry],
});

const webhookDuration = new Histogram({
  name: 'factura_webhook_delivery_duration_seconds',
  help: 'Time a webhook delivery attempt took, by outcome',
  labelNames: ['outcome'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [workerRegistry],
});

/** Grows with every recording, so a publisher with nothing new to send skips its pass. */
let recordings = 0;

export const metrics = {
  jobFinished(queue: string, outcome: 'completed' | 'failed', seconds: number): void {
    recordings += 1;
    jobDuration.observe({ queue, outcome }, Math.max(0, seconds));
  },
  haciendaCall(operation: string, environment: string, outcome: string, seconds: number): void {
    recordings += 1;
    haciendaCalls.observe({ operation, environment, outcome }, Math.max(0, seconds));
  },
  /** For the webhook sender: one call per delivery attempt. */
  webhookDelivery(outcome: string, seconds?: number): void {
    recordings += 1;
    webhookDeliveries.inc({ outcome });
    if (seconds !== undefined) webhookDuration.observe({ outcome }, Math.max(0, seconds));
  },
};

/** A delivery attempt's outcome label: delivered, gone (410), timeout, error, or failed_<class>. */
export function webhookOutcome(statusCode: number | null, error: string | null): string {
  if (statusCode === null) return error && /timed out/i.test(error) ? 'timeout' : 'error';
  if (statusCode >= 200 && statusCode < 300) return 'delivered';
  if (statusCode === 410) return 'gone';
  return `failed_${Math.floor(statusCode / 100)}xx`;
}

/** Records each finished job's processing time (processedOn → finishedOn). */
export function instrumentWorker(worker: Worker): void {
  const observe = (job: Job | undefined, outcome: 'completed' | 'failed') => {
    if (!job?.processedOn) return;
    const end = job.finishedOn ?? Date.now();
    metrics.jobFinished(worker.name, outcome, (end - job.processedOn) / 1000);
  };
  worker.on('completed', (job) => observe(job, 'completed'));
  worker.on('failed', (job) => observe(job, 'failed'));
}

// ---- Publishing to Redis (workers) and reading back (API) ----

export function metricsTotalsKey(queuePrefix: string): string {
  return `${taggedPrefix(queuePrefix, 'metrics')}:totals`;
}

interface FieldId {
  /** Metric name, e.g. factura_job_duration_seconds. */
  m: string;
  /** Sample name, e.g. factura_job_duration_seconds_bucket. */
  s: string;
  l: Record<string, string | number>;
}

function fieldOf(m: string, s: string, labels: Record<string, string | number>): string {
  const l = Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify({ m, s, l } satisfies FieldId);
}

export interface MetricsPublisher {
  publish(): Promise<void>;
  stop(): Promise<void>;
}

/** Adds this process's increments since the last publication to the cluster-wide totals. */
export function startMetricsPublisher(o: {
  redis: RedisClient;
  queuePrefix: string;
  everyMs: number;
  log: { warn(obj: object, msg: string): void };
}): MetricsPublisher {
  const key = metricsTotalsKey(o.queuePrefix);
  const published = new Map<string, number>();
  let running: Promise<void> | null = null;
  // What had been recorded at the last publication that went out (-1: none yet).
  let sent = -1;
  const publishOnce = async () => {
    const seen = recordings;
    if (seen === sent) return;
    const snapshot = await workerRegistry.getMetricsAsJSON();
    const deltas: [string, number][] = [];
    for (const metric of snapshot) {
      for (const v of (
        metric as MetricObjectWithValues<{ value: number; labels: object; metricName?: string }>
      ).values) {
        const field = fieldOf(metric.name, v.metricName ?? metric.name, v.labels as Record<string, string>);
        // New series go out even at 0, so a histogram always shows every bucket.
        const before = published.get(field);
        if (before === undefined || v.value > before) deltas.push([field, v.value]);
      }
    }
    if (deltas.length) {
      const tx = o.redis.multi();
      for (const [field, value] of deltas) tx.hincrbyfloat(key, field, value - (published.get(field) ?? 0));
      const res = await tx.exec();
      if (!res || res.some(([err]) => err)) throw new Error('metrics publication failed');
      for (const [field, value] of deltas) published.set(field, value);
    }
    sent = seen;
  };
  const publish = async () => {
    // One publication at a time, so a delta is never sent twice.
    while (running) await running;
    running = publishOnce().finally(() => (running = null));
    return running;
  };
  const timer = setInterval(() => {
    publish().catch((err: unknown) => o.log.warn({ err }, 'metrics publication failed; will retry'));
  }, o.everyMs);
  timer.unref();
  return {
    publish,
    async stop() {
      clearInterval(timer);
      await publish().catch((err: unknown) => o.log.warn({ err }, 'last metrics publication failed'));
    },
  };
}

/** The cluster-wide worker totals in Prometheus text format (empty when none were published). */
export async function readWorkerMetrics(redis: RedisClient, queuePrefix: string): Promise<string> {
  const raw = await redis.hgetall(metricsTotalsKey(queuePrefix));
  const byMetric = new Map<string, { name: string; help: string; type: string; values: object[] }>();
  const known = new Map<string, { help: string; type: string }>();
  for (const m of await workerRegistry.getMetricsAsJSON())
    known.set(m.name, { help: m.help, type: String(m.type) });
  for (const [field, value] of Object.entries(raw)) {
    let id: FieldId;
    try {
      id = JSON.parse(field) as FieldId;
    } catch {
      continue;
    }
    const meta = known.get(id.m);
    if (!meta) continue;
    let entry = byMetric.get(id.m);
    if (!entry) {
      entry = { name: id.m, help: meta.help, type: meta.type, values: [] };
      byMetric.set(id.m, entry);
    }
    entry.values.push({ value: Number(value), labels: id.l, metricName: id.s });
  }
  if (!byMetric.size) return '';
  // Samples in a stable order, buckets by increasing `le` (+Inf last), as exposition expects.
  const le = (v: { labels: Record<string, string | number> }) =>
    v.labels.le === undefined ? 0 : v.labels.le === '+Inf' ? Infinity : Number(v.labels.le);
  const rest = (v: { labels: Record<string, string | number>; metricName: string }) =>
    v.metricName + JSON.stringify({ ...v.labels, le: undefined });
  for (const e of byMetric.values())
    (e.values as { labels: Record<string, string | number>; metricName: string }[]).sort(
      (a, b) => rest(a).localeCompare(rest(b)) || le(a) - le(b),
    );
  const registry = AggregatorRegistry.aggregate([
    [...byMetric.values()].map((e) => ({ ...e, aggregator: 'sum' })),
  ] as never);
  return registry.metrics();
}
