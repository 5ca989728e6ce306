// Operations: health and readiness, request ids, problem+json for unknown routes, and 503 with
// Retry-After when Postgres or Redis cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../api/app.ts';
import { createDb } from '../db/connection.ts';
import { createRedis, waitForRedis } from '../platform/redis.ts';
import { waitFor } from './helpers/wait.ts';
import {
  call,
  createTestCompany,
  createTestKey,
  startTestApp,
  testConfig,
  type TestApp,
} from './helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('health and readiness', () => {
  it('/health and /ready answer 200 when Postgres and Redis are up', async () => {
    expect((await call(t.app, 'GET', '/health')).json()).toEqual({ status: 'ok' });
    // The probes run in the background, each bounded by 2 s: on a machine too busy to answer the
    // first one in time, the next (a second later) finds both up.
    let ready = await call(t.app, 'GET', '/ready');
    for (let i = 0; i < 10 && ready.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      ready = await call(t.app, 'GET', '/ready');
    }
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('503 with Retry-After when Postgres is down, for /ready and for API calls', async () => {
    const config = testConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
    const db = createDb({ url: config.databaseUrl });
    const app = await buildApp({ config, db, redis: t.redis }, { logger: false });
    try {
      const ready = await call(app, 'GET', '/ready');
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBe('5');
      expect(ready.json()).toMatchObject({
        code: 'service_unavailable',
        checks: { postgres: 'unavailable', redis: 'ok' },
      });
      const api = await call(app, 'GET', '/api/v1/clients', { key: 'ik_test_' + 'a'.repeat(40) });
      expect(api.statusCode).toBe(503);
      expect(api.headers['retry-after']).toBe('5');
      expect(api.json().code).toBe('service_unavailable');
      expect(api.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|select/i);
    } finally {
      await app.close();
      await db.destroy();
    }
  });

  it('/ready is 200 degraded when only Redis is down (this instance can still serve)', async () => {
    const redis = createRedis(t.config.redisUrl, 'api', { retryStrategy: () => null });
    redis.on('error', () => {});
    await waitForRedis(redis);
    const app = await buildApp({ config: t.config, db: t.db, redis }, { logger: false });
    try {
      // The first probes run on their own clock and may be late on a busy machine: wait for them.
      await waitFor(async () => (await call(app, 'GET', '/ready')).json().status === 'ready', 10_000);
      redis.disconnect();
      await waitFor(async () => (await call(app, 'GET', '/ready')).json().status === 'degraded', 10_000);
      const ready = await call(app, 'GET', '/ready');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'degraded', checks: { postgres: 'ok', redis: 'unavailable' } });
    } finally {
      await app.close();
      redis.disconnect();
    }
  });

  it('/ready is 503 while Redis has not answered once since start (its URL is not shown right yet)', async () => {
    const redis = createRedis('redis://127.0.0.1:1', 'api', { retryStrategy: () => null });
    redis.on('error', () => {});
    const app = await buildApp({ config: t.config, db: t.db, redis }, { logger: false });
    try {
      const ready = await call(app, 'GET', '/ready');
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBe('5');
      expect(ready.json()).toMatchObject({
        code: 'service_unavailable',
        checks: { postgres: 'ok', redis: 'unavailable' },
      });
    } finally {
      await app.close();
      redis.disconnect();
    }
  });
});

describe('requests and errors', () => {
  it('every response carries a Request-Id; a caller-given one is kept', async () => {
    const res = await call(t.app, 'GET', '/health', { headers: { 'request-id': 'erp-batch-000123' } });
    expect(res.headers['request-id']).toBe('erp-batch-000123');
    const gen = await call(t.app, 'GET', '/health');
    expect(gen.headers['request-id']).toMatch(/^req_/);
    const bad = await call(t.app, 'GET', '/health', { headers: { 'request-id': 'x'.repeat(200) } });
    expect(bad.headers['request-id']).toMatch(/^req_/);
  });

  it('unknown routes are problem+json 404', async () => {
    const res = await call(t.app, 'GET', '/nope');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'route_not_found', status: 404, title: 'Route not found' });
    const c = await createTestCompany(t.db);
    const k = await createTestKey(t.db, c.id);
    const api = await call(t.app, 'GET', '/api/v1/nothing-here', { key: k.secret });
    expect(api.statusCode).toBe(404);
    expect(api.json().code).toBe('route_not_found');
  });

  it('413 problem for an oversized body', async () => {
    const c = await createTestCompany(t.db);
    const k = await createTestKey(t.db, c.id);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: { authorization: `Bearer ${k.secret}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ cedula: '102340567', name: 'x'.repeat(2_000_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('payload_too_large');
  });

  it('security headers are set', async () => {
    const res = await call(t.app, 'GET', '/health');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
