// The registry of work (jobs/registry.ts) is what the operators' pages show: every queue of every
// kind of work appears in Bull Board (on every shard, under the shard's name) and in /metrics.
import { randomBytes } from 'node:crypto';
import type { ConnectionOptions, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../api/app.ts';
import { openRegistryQueues, registryQueues, WORK } from '../jobs/registry.ts';
import { bullConnection } from '../platform/redis.ts';
import { startTestApp, testConfig, type TestApp } from './helpers/app.ts';
import { testRedisUrl } from './helpers/db-urls.ts';

let t: TestApp;
let queues: Queue[] = [];
const prefix = `{t${randomBytes(4).toString('hex')}}`;
const basic = `Basic ${Buffer.from('ops:s3cret-pass').toString('base64')}`;

beforeAll(async () => {
  t = await startTestApp();
  queues = openRegistryQueues(bullConnection(testRedisUrl()) as ConnectionOptions, prefix, 2);
});
afterAll(async () => {
  await Promise.all(queues.map((q) => q.close()));
  await t.close();
});

describe('the registry of work', () => {
  it('names every kind of work with its queues and outbox kind, each outbox kind once', () => {
    const kinds = Object.values(WORK).map((w) => w.outboxKind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(registryQueues().map((q) => q.name)).toEqual(
      expect.arrayContaining([
        'invoice-sign',
        'invoice-submit',
        'invoice-accounting',
        'invoice-status',
        'invoice-batches',
        'webhooks',
        'emails',
        'received-answers',
      ]),
    );
  });

  it('every queue of the registry is in Bull Board and in /metrics', async () => {
    const config = testConfig({
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 's3cret-pass',
      QUEUE_PREFIX: prefix,
      QUEUE_SHARDS: '2',
    });
    const app = await buildApp({ config, db: t.db, redis: t.redis, adminQueues: queues }, { logger: false });
    try {
      const board = await app.inject({ url: '/admin/queues/api/queues', headers: { authorization: basic } });
      expect(board.statusCode).toBe(200);
      const shown = new Set((board.json().queues as { name: string }[]).map((q) => q.name));
      const metrics = await app.inject({ url: '/metrics', headers: { authorization: basic } });
      expect(metrics.statusCode).toBe(200);
      for (const q of registryQueues()) {
        const expected = q.sharded ? [`q0.${q.name}`, `q1.${q.name}`] : [q.name];
        for (const name of expected) expect(shown.has(name), `${name} in Bull Board`).toBe(true);
        expect(metrics.body, `${q.name} in /metrics`).toContain(
          `factura_queue_jobs{queue="${q.name}",state="waiting"}`,
        );
      }
      expect(shown.size).toBe(registryQueues().reduce((n, q) => n + (q.sharded ? 2 : 1), 0));
    } finally {
      await app.close();
    }
  });
});
