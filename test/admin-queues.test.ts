// Bull Board at /admin/queues: behind admin credentials, showing every queue of the flow.
import { randomBytes } from 'node:crypto';
import type { ConnectionOptions } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../api/app.ts';
import { QUEUES } from '../jobs/invoice-flow/queues.ts';
import { bullConnection } from '../platform/redis.ts';
import { createQueues, openFlowShards } from '../jobs/invoice-flow/queues.ts';
import { startTestApp, testConfig, type TestApp } from './helpers/app.ts';
import { testRedisUrl } from './helpers/db-urls.ts';

let t: TestApp;
const prefix = `{t${randomBytes(4).toString('hex')}}`;
const queues = createQueues(bullConnection(testRedisUrl()) as ConnectionOptions, prefix);
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await Promise.all(Object.values(queues).map((q) => q.close()));
  await t.close();
});

describe('/admin/queues', () => {
  it("shows every shard's queues under the shard's name (QUEUE_SHARDS)", async () => {
    const config = testConfig({
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 's3cret-pass',
      QUEUE_PREFIX: prefix,
      QUEUE_SHARDS: '2',
    });
    const shards = openFlowShards(bullConnection(testRedisUrl()) as ConnectionOptions, prefix, 2);
    const app = await buildApp(
      { config, db: t.db, redis: t.redis, adminQueues: shards.all() },
      { logger: false },
    );
    try {
      const api = await app.inject({
        url: '/admin/queues/api/queues',
        headers: { authorization: basic('ops', 's3cret-pass') },
      });
      expect(api.statusCode).toBe(200);
      const names = (api.json().queues as { name: string }[]).map((q) => q.name).sort();
      expect(names).toEqual(
        ['q0', 'q1'].flatMap((sh) => Object.values(QUEUES).map((n) => `${sh}.${n}`)).sort(),
      );
    } finally {
      await app.close();
      await shards.close();
    }
  });

  it('requires the admin credentials and lists every queue of the flow', async () => {
    const config = testConfig({ ADMIN_USER: 'ops', ADMIN_PASSWORD: 's3cret-pass', QUEUE_PREFIX: prefix });
    const app = await buildApp(
      { config, db: t.db, redis: t.redis, adminQueues: Object.values(queues) },
      { logger: false },
    );
    try {
      const anon = await app.inject({ url: '/admin/queues' });
      expect(anon.statusCode).toBe(401);
      expect(anon.headers['www-authenticate']).toMatch(/^Basic/);
      const wrong = await app.inject({
        url: '/admin/queues',
        headers: { authorization: basic('ops', 'nope') },
      });
      expect(wrong.statusCode).toBe(401);
      const page = await app.inject({
        url: '/admin/queues',
        headers: { authorization: basic('ops', 's3cret-pass') },
      });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      const api = await app.inject({
        url: '/admin/queues/api/queues',
        headers: { authorization: basic('ops', 's3cret-pass') },
      });
      expect(api.statusCode).toBe(200);
      const names = (api.json().queues as { name: string; readOnlyMode: boolean }[])
        .map((q) => q.name)
        .sort();
      expect(names).toEqual(Object.values(QUEUES).sort());
      expect(api.json().queues.every((q: { readOnlyMode: boolean }) => q.readOnlyMode)).toBe(true);
      const apiAnon = await app.inject({ url: '/admin/queues/api/queues' });
      expect(apiAnon.statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('refuses every wrong or malformed credential with the basic challenge as problem+json', async () => {
    const config = testConfig({ ADMIN_USER: 'ops', ADMIN_PASSWORD: 's3cret-pass', QUEUE_PREFIX: prefix });
    const app = await buildApp(
      { config, db: t.db, redis: t.redis, adminQueues: Object.values(queues) },
      { logger: false },
    );
    try {
      const refused = [
        basic('ops', 'nope'),
        basic('admin', 's3cret-pass'), // right password, wrong user
        basic('ops', 's3cret-pass ') /* one character more */,
        basic('', 's3cret-pass'),
        `Basic ${Buffer.from('ops').toString('base64')}`, // no colon
        'Basic !!!',
        `Bearer ${Buffer.from('ops:s3cret-pass').toString('base64')}`,
      ];
      for (const authorization of refused) {
        const res = await app.inject({ url: '/admin/queues/api/queues', headers: { authorization } });
        expect(res.statusCode, authorization).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Basic realm="admin", charset="UTF-8"');
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.json()).toMatchObject({ code: 'admin_credentials_required', status: 401 });
      }
      // The scheme is case-insensitive (RFC 7617).
      const lower = await app.inject({
        url: '/admin/queues/api/queues',
        headers: { authorization: basic('ops', 's3cret-pass').replace('Basic', 'basic') },
      });
      expect(lower.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('is disabled without ADMIN_PASSWORD', async () => {
    const app = await buildApp(
      { config: testConfig(), db: t.db, redis: t.redis, adminQueues: Object.values(queues) },
      { logger: false },
    );
    try {
      const res = await app.inject({ url: '/admin/queues', headers: { authorization: basic('admin', '') } });
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toMatch(/disabled/);
    } finally {
      await app.close();
    }
  });
});
