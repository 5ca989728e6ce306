// /metrics: HTTP latency by route and status, queue depths from BullMQ, and the workers'
// cluster-wide totals (job durations per queue, Hacienda call outcomes, webhook deliveries)
// published through Redis; they move when invoices flow. Protected by the admin credentials.
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../api/app.ts';
import { QUEUES } from '../jobs/invoice-flow/queues.ts';
import { metrics, metricsTotalsKey, startMetricsPublisher, workerRegistry } from '../platform/metrics.ts';
import { createRedis, waitForRedis } from '../platform/redis.ts';
import { shardPrefixes } from '../platform/shards.ts';
import { call, testConfig } from './helpers/app.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { freePort } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');

beforeAll(async () => {
  e = await startE2E({ env: { METRICS_PUBLISH_MS: '100' } });
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e?.close();
});

type Samples = { name: string; labels: Record<string, string>; value: number }[];

function parse(text: string): Samples {
  const out: Samples = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]),
    );
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

async function scrape(): Promise<Samples> {
  const res = await fetch(`${e.apiUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return parse(await res.text());
}

function value(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))
    .reduce((sum, x) => sum + x.value, 0);
}

describe('/metrics', () => {
  it('moves when invoices flow: HTTP latency, job durations per queue, Hacienda outcomes', async () => {
    const before = await scrape();
    const created = await Promise.all(
      Array.from({ length: 3 }, () =>
        api(e, 'POST', '/api/v1/invoices', s.key, {
          client_id: `cli_${pad(s.client.id)}`,
          lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
    await waitFor(
      async () => {
        const all = await Promise.all(
          created.map((c) => api(e, 'GET', `/api/v1/invoices/${c.json.id}`, s.key)),
        );
        return all.every((r) => r.json.status === 'aceptada');
      },
      30_000,
      100,
      'three accepted invoices',
    );

    let after: Samples = [];
    const grew = (name: string, labels: Record<string, string>, by: number) =>
      value(after, name, labels) - value(before, name, labels) >= by;
    await waitFor(
      async () => {
        after = await scrape();
        // The three may travel in one chunk: at least one completed job per queue.
        return (['sign', 'submit', 'accounting', 'status'] as const).every((q) =>
          grew('factura_job_duration_seconds_count', { queue: QUEUES[q], outcome: 'completed' }, 1),
        );
      },
      10_000,
      100,
      'job durations of every queue',
    );

    expect(
      grew(
        'factura_http_request_duration_seconds_count',
        { method: 'POST', route: '/api/v1/invoices', status_code: '201' },
        3,
      ),
    ).toBe(true);
    expect(
      value(after, 'factura_http_request_duration_seconds_bucket', {
        route: '/api/v1/invoices',
        status_code: '201',
        le: '+Inf',
      }),
    ).toBeGreaterThanOrEqual(3);
    expect(value(after, 'factura_job_duration_seconds_sum', { queue: QUEUES.sign })).toBeGreaterThan(0);
    expect(
      grew(
        'factura_hacienda_call_duration_seconds_count',
        { operation: 'submit', environment: 'sandbox', outcome: 'received' },
        3,
      ),
    ).toBe(true);
    expect(
      grew(
        'factura_hacienda_call_duration_seconds_count',
        { operation: 'status', environment: 'sandbox', outcome: 'aceptado' },
        3,
      ),
    ).toBe(true);
    // Histogram buckets come in increasing order, ending with +Inf.
    const buckets = after.filter(
      (x) =>
        x.name === 'factura_job_duration_seconds_bucket' &&
        x.labels.queue === QUEUES.sign &&
        x.labels.outcome === 'completed',
    );
    expect(buckets.at(-1)!.labels.le).toBe('+Inf');
    const counts = buckets.map((b) => b.value);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
  });

  it('queue depths per queue and state are read from BullMQ at scrape time', async () => {
    const first = await scrape();
    for (const q of Object.values(QUEUES))
      for (const state of ['waiting', 'active', 'delayed', 'failed'])
        expect(
          first.some(
            (x) => x.name === 'factura_queue_jobs' && x.labels.queue === q && x.labels.state === state,
          ),
        ).toBe(true);
    const queue = new Queue(QUEUES.accounting, { connection: e.connection, prefix: e.config.queuePrefix });
    queue.on('error', () => {});
    try {
      const job = await queue.add(
        'metrics.probe',
        { v: 1, invoiceId: 0 },
        { delay: 3_600_000, jobId: 'probe-1' },
      );
      const delayed = value(await scrape(), 'factura_queue_jobs', {
        queue: QUEUES.accounting,
        state: 'delayed',
      });
      expect(delayed).toBe(1);
      await job.remove();
      expect(
        value(await scrape(), 'factura_queue_jobs', { queue: QUEUES.accounting, state: 'delayed' }),
      ).toBe(0);
    } finally {
      await queue.close();
    }
  });

  it("a queue split into shards is one series, its shards' jobs summed", async () => {
    const config = testConfig({ DATABASE_URL: e.config.databaseUrl, QUEUE_SHARDS: '2' });
    const redis = createRedis(config.redisUrl, 'api');
    const app = await buildApp({ config, db: e.db, redis }, { logger: false });
    const queues = shardPrefixes(config.queuePrefix, 2).map((prefix) => {
      const q = new Queue(QUEUES.accounting, { connection: e.connection, prefix });
      q.on('error', () => {});
      return q;
    });
    try {
      for (const [i, q] of queues.entries())
        await q.add('metrics.probe', { v: 1, invoiceId: 0 }, { delay: 3_600_000, jobId: `probe-s${i}` });
      const samples = parse((await call(app, 'GET', '/metrics')).body);
      const series = samples.filter(
        (x) =>
          x.name === 'factura_queue_jobs' &&
          x.labels.queue === QUEUES.accounting &&
          x.labels.state === 'delayed',
      );
      expect(series.map((x) => x.value)).toEqual([2]);
    } finally {
      await app.close();
      await Promise.all(queues.map(async (q) => (await q.obliterate({ force: true }), await q.close())));
      redis.disconnect();
    }
  });

  it('webhook deliveries recorded by a worker reach /metrics through Redis', async () => {
    const before = value(await scrape(), 'factura_webhook_deliveries_total', { outcome: 'delivered' });
    metrics.webhookDelivery('delivered', 0.05);
    metrics.webhookDelivery('delivered', 0.07);
    metrics.webhookDelivery('gone', 0.01);
    await waitFor(
      async () =>
        value(await scrape(), 'factura_webhook_deliveries_total', { outcome: 'delivered' }) - before === 2,
      5_000,
      50,
      'webhook deliveries in /metrics',
    );
    const after = await scrape();
    expect(value(after, 'factura_webhook_deliveries_total', { outcome: 'gone' })).toBeGreaterThanOrEqual(1);
    expect(
      value(after, 'factura_webhook_delivery_duration_seconds_count', { outcome: 'delivered' }),
    ).toBeGreaterThanOrEqual(2);
    // Stopping the workers publishes once more and keeps the totals (no counter reset).
    const jobs = value(after, 'factura_job_duration_seconds_count');
    await e.stopWorkers();
    expect(value(await scrape(), 'factura_job_duration_seconds_count')).toBeGreaterThanOrEqual(jobs);
  });

  it('a publisher with nothing new recorded since its last publication does not even read the registry', async () => {
    const redis = createRedis(testRedisUrl(), 'worker');
    const reads = vi.spyOn(workerRegistry, 'getMetricsAsJSON');
    const queuePrefix = `{idle-metrics-${Date.now()}}`;
    const publisher = startMetricsPublisher({ redis, queuePrefix, everyMs: 3_600_000, log: console });
    try {
      metrics.webhookDelivery('delivered', 0.02);
      await publisher.publish();
      expect(reads).toHaveBeenCalledTimes(1);
      await publisher.publish();
      await publisher.publish();
      expect(reads).toHaveBeenCalledTimes(1);
      metrics.webhookDelivery('delivered', 0.03);
      await publisher.publish();
      expect(reads).toHaveBeenCalledTimes(2);
      const totals = await redis.hgetall(metricsTotalsKey(queuePrefix));
      const delivered = Object.entries(totals).find(([f]) => {
        const id = JSON.parse(f) as { s: string; l: { outcome?: string } };
        return id.s === 'factura_webhook_deliveries_total' && id.l.outcome === 'delivered';
      });
      expect(Number(delivered?.[1])).toBeGreaterThanOrEqual(2);
    } finally {
      reads.mockRestore();
      await publisher.stop();
      await redis.del(metricsTotalsKey(queuePrefix));
      redis.disconnect();
    }
  });

  it('still answers with the HTTP series when Redis is down, flagging the missing sources', async () => {
    const deadUrl = `redis://127.0.0.1:${await freePort()}`;
    const dead = createRedis(deadUrl, 'api', { retryStrategy: () => null });
    dead.on('error', () => {});
    const config = testConfig({ DATABASE_URL: e.config.databaseUrl, REDIS_URL: deadUrl });
    const app = await buildApp({ config, db: e.db, redis: dead }, { logger: false });
    try {
      await call(app, 'GET', '/health');
      const started = Date.now();
      const res = await call(app, 'GET', '/metrics');
      expect(res.statusCode).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      const samples = parse(res.body);
      expect(value(samples, 'factura_http_request_duration_seconds_count', { route: '/health' })).toBe(1);
      expect(value(samples, 'factura_metrics_source_up', { source: 'queues' })).toBe(0);
      expect(value(samples, 'factura_metrics_source_up', { source: 'workers' })).toBe(0);
      expect(samples.some((x) => x.name === 'factura_queue_jobs')).toBe(false);
    } finally {
      await app.close();
      dead.disconnect();
    }
    const up = await scrape();
    expect(value(up, 'factura_metrics_source_up', { source: 'queues' })).toBe(1);
    expect(value(up, 'factura_metrics_source_up', { source: 'workers' })).toBe(1);
  });

  it('wants the admin credentials when ADMIN_PASSWORD is set, and is never open in production', async () => {
    const config = testConfig({
      DATABASE_URL: e.config.databaseUrl,
      QUEUE_PREFIX: e.config.queuePrefix,
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 'metrics-pass',
    });
    const app = await buildApp({ config, db: e.db, redis: await redisFor() }, { logger: false });
    try {
      const anonymous = await call(app, 'GET', '/metrics');
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Basic/);
      const wrong = await call(app, 'GET', '/metrics', {
        headers: { authorization: `Basic ${Buffer.from('ops:nope').toString('base64')}` },
      });
      expect(wrong.statusCode).toBe(401);
      const ok = await call(app, 'GET', '/metrics', {
        headers: { authorization: `Basic ${Buffer.from('ops:metrics-pass').toString('base64')}` },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('factura_queue_jobs');
    } finally {
      await app.close();
    }
    const prod = await buildApp(
      {
        config: { ...testConfig({ DATABASE_URL: e.config.databaseUrl }), env: 'production' },
        db: e.db,
        redis: await redisFor(),
      },
      { logger: false },
    );
    try {
      expect((await call(prod, 'GET', '/metrics')).statusCode).toBe(401);
    } finally {
      await prod.close();
    }
  });
});

const redisClients: { disconnect(): void }[] = [];
async function redisFor() {
  const r = createRedis(testRedisUrl(), 'api');
  await waitForRedis(r);
  redisClients.push(r);
  return r;
}
afterAll(() => {
  for (const r of redisClients) r.disconnect();
});
