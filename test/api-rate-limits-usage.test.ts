// Rate limits per key (plan defaults, company overrides, headers, 429 and recovery, Redis down)
// and usage per key (counted in Redis, flushed to Postgres by any process exactly once, read
// back per company and mode at GET /api/v1/usage).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../api/app.ts';
import { createUsageRecorder, usageHashKey } from '../api/usage/recorder.ts';
import { createDb } from '../db/connection.ts';
import { formatId } from '../domain/ids.ts';
import { createRedis } from '../platform/redis.ts';
import {
  call,
  createTestCompany,
  createTestKey,
  startTestApp,
  testConfig,
  type TestApp,
} from './helpers/app.ts';
import { freePort } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** Test companies get a huge limit unless told; these use their plan's. */
const PLAN_DEFAULT = { rateLimitPerSecond: null };
const RATELIMIT_RE = /^limit=(\d+), remaining=(\d+), reset=(\d+)$/;

function parseRateLimit(h: unknown) {
  const m = RATELIMIT_RE.exec(String(h));
  if (!m) throw new Error(`bad RateLimit header: ${String(h)}`);
  return { limit: Number(m[1]), remaining: Number(m[2]), reset: Number(m[3]) };
}

describe('rate limits', () => {
  it('every authenticated response carries RateLimit-Policy and RateLimit, errors included', async () => {
    const c = await createTestCompany(t.db, PLAN_DEFAULT);
    const { secret } = await createTestKey(t.db, c.id);
    const ok = await call(t.app, 'GET', '/api/v1/clients', { key: secret });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['ratelimit-policy']).toBe('50;w=1');
    const rl = parseRateLimit(ok.headers.ratelimit);
    expect(rl.limit).toBe(50);
    expect(rl.remaining).toBeLessThan(50);
    expect(rl.reset).toBeGreaterThanOrEqual(1);

    const missing = await call(t.app, 'GET', '/api/v1/clients/cli_000000999999', { key: secret });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['ratelimit-policy']).toBe('50;w=1');
    expect(parseRateLimit(missing.headers.ratelimit).limit).toBe(50);

    const { secret: narrow } = await createTestKey(t.db, c.id, { scopes: ['read:clients'] });
    const forbidden = await call(t.app, 'GET', '/api/v1/invoices', { key: narrow });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['ratelimit-policy']).toBe('50;w=1');

    // Unauthenticated answers have no key to count against.
    const anonymous = await call(t.app, 'GET', '/api/v1/clients');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['ratelimit-policy']).toBeUndefined();
  });

  it('a business key over 50 req/s gets 429 rate_limited with Retry-After, then recovers', async () => {
    const c = await createTestCompany(t.db, PLAN_DEFAULT);
    const { secret } = await createTestKey(t.db, c.id);
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    let sent = 0;
    // 150 at once cannot all fit in the 50 of one or two windows, even on a slow machine.
    while (!limited && sent < 450) {
      const batch = await Promise.all(
        Array.from({ length: 150 }, () => call(t.app, 'GET', '/api/v1/services', { key: secret })),
      );
      sent += batch.length;
      for (const r of batch) expect([200, 429]).toContain(r.statusCode);
      limited = batch.find((r) => r.statusCode === 429);
    }
    expect(limited, 'no 429 after 450 requests').toBeDefined();
    const res = limited!;
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 429, code: 'rate_limited', limit: 50 });
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    expect(res.headers['ratelimit-policy']).toBe('50;w=1');
    expect(parseRateLimit(res.headers.ratelimit)).toMatchObject({ limit: 50, remaining: 0 });

    // Wait the time we were told, and the key works again.
    await new Promise((r) => setTimeout(r, retryAfter * 1000));
    const again = await call(t.app, 'GET', '/api/v1/services', { key: secret });
    expect(again.statusCode).toBe(200);
    expect(parseRateLimit(again.headers.ratelimit).remaining).toBeGreaterThan(0);
  });

  it('a corporate key takes 150 requests at once under its 500 req/s limit', async () => {
    const c = await createTestCompany(t.db, { ...PLAN_DEFAULT, plan: 'corporate' });
    const { secret } = await createTestKey(t.db, c.id);
    const results = await Promise.all(
      Array.from({ length: 150 }, () => call(t.app, 'GET', '/api/v1/services', { key: secret })),
    );
    expect(results.filter((r) => r.statusCode !== 200)).toEqual([]);
    expect(results[0]!.headers['ratelimit-policy']).toBe('500;w=1');
    const remaining = results.map((r) => parseRateLimit(r.headers.ratelimit).remaining);
    expect(Math.min(...remaining)).toBeLessThanOrEqual(500 - 75);
  });

  it("a company's own rate_limit_per_second overrides the plan, and its keys share it", async () => {
    const c = await createTestCompany(t.db, { rateLimitPerSecond: 5 });
    const a = await createTestKey(t.db, c.id);
    const b = await createTestKey(t.db, c.id);
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(t.app, 'GET', '/api/v1/services', { key: (i % 2 ? a : b).secret }),
      ),
    );
    const windows = Math.ceil((Date.now() - started) / 1000) + 1;
    expect(results[0]!.headers['ratelimit-policy']).toBe('5;w=1');
    const ok = results.filter((r) => r.statusCode === 200).length;
    // At most 5 per one-second window the burst touched (two, unless the machine is very slow),
    // whichever key asked: minting keys does not multiply the company's limit.
    expect(ok).toBeGreaterThanOrEqual(5);
    expect(ok).toBeLessThanOrEqual(5 * windows);
    const limited = results.filter((r) => r.statusCode === 429);
    expect(limited.length).toBe(30 - ok);
    for (const r of limited) expect(r.json()).toMatchObject({ limit: 5, limit_scope: 'company' });
    await new Promise((r) => setTimeout(r, 1000 * Number(limited[0]!.headers['retry-after'])));
    const other = await call(t.app, 'GET', '/api/v1/services', { key: b.secret });
    expect(other.statusCode).toBe(200);
  });

  it('with Redis down requests are let through (fail open) without a RateLimit count', async () => {
    const port = await freePort();
    const redis = createRedis(`redis://127.0.0.1:${port}`, 'api', { retryStrategy: () => null });
    redis.on('error', () => {});
    const app = await buildApp({ config: t.config, db: t.db, redis }, { logger: false });
    try {
      const c = await createTestCompany(t.db, PLAN_DEFAULT);
      const { secret } = await createTestKey(t.db, c.id);
      for (let i = 0; i < 3; i++) {
        const res = await call(app, 'GET', '/api/v1/services', { key: secret });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-policy']).toBe('50;w=1');
        expect(res.headers.ratelimit).toBeUndefined();
      }
    } finally {
      await app.close();
      redis.disconnect();
    }
  });
});

describe('usage per key', () => {
  it('GET /api/v1/usage shows a burst by key, route and status class, and only the caller’s company and mode', async () => {
    const a = await createTestCompany(t.db);
    const b = await createTestCompany(t.db);
    const k1 = await createTestKey(t.db, a.id, { name: 'tienda' });
    const k2 = await createTestKey(t.db, a.id, { name: 'erp' });
    const reader = await createTestKey(t.db, a.id, { scopes: ['read:usage'], name: 'panel' });
    const live = await createTestKey(t.db, a.id, { livemode: true, scopes: ['read:usage'] });
    const other = await createTestKey(t.db, b.id);

    const burst = async (key: string, url: string, n: number) => {
      for (let i = 0; i < n; i++) await call(t.app, 'GET', url, { key });
    };
    await burst(k1.secret, '/api/v1/clients', 5);
    await burst(k1.secret, '/api/v1/clients/cli_000000999999', 2);
    await burst(k2.secret, '/api/v1/services', 3);
    await burst(other.secret, '/api/v1/clients', 4);

    const usageOf = async (key: string, query: Record<string, string>) => {
      const res = await call(t.app, 'GET', '/api/v1/usage', { key, query });
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    const k1Id = formatId('apiKey', k1.id);
    let byKey: any;
    await waitFor(
      async () => {
        byKey = await usageOf(reader.secret, { key_id: k1Id, granularity: 'minute' });
        return byKey.totals.requests === 7;
      },
      10_000,
      100,
      'the burst in /api/v1/usage',
    );
    expect(byKey).toMatchObject({ object: 'usage', livemode: false, key_id: k1Id, granularity: 'minute' });
    expect(byKey.totals).toEqual({ requests: 7, '2xx': 5, '3xx': 0, '4xx': 2, '5xx': 0, '429': 0 });
    const routes = Object.fromEntries(byKey.data.map((d: any) => [d.route, d]));
    expect(routes['GET /api/v1/clients']).toMatchObject({ key_id: k1Id, requests: 5, '2xx': 5 });
    expect(routes['GET /api/v1/clients/:id']).toMatchObject({ requests: 2, '4xx': 2 });

    const all = await usageOf(reader.secret, { granularity: 'hour' });
    const keyIds = new Set(all.data.map((d: any) => d.key_id));
    expect(keyIds.has(k1Id)).toBe(true);
    expect(keyIds.has(formatId('apiKey', k2.id))).toBe(true);
    expect(keyIds.has(formatId('apiKey', other.id))).toBe(false);
    expect(all.totals.requests).toBeGreaterThanOrEqual(10);

    // The live key sees the live mode only: nothing of the sandbox burst.
    const liveUsage = await usageOf(live.secret, { granularity: 'day' });
    expect(liveUsage.livemode).toBe(true);
    expect(liveUsage.data.filter((d: any) => d.key_id !== formatId('apiKey', live.id))).toEqual([]);

    // Another company's key id answers 404, like any other company's resource.
    const foreign = await call(t.app, 'GET', '/api/v1/usage', {
      key: reader.secret,
      query: { key_id: formatId('apiKey', other.id) },
    });
    expect(foreign.statusCode).toBe(404);

    // The keys, redacted, for the dashboard.
    const keys = await call(t.app, 'GET', '/api/v1/usage/keys', { key: reader.secret });
    expect(keys.statusCode).toBe(200);
    const names = keys.json().data.map((k: any) => k.name);
    expect(names).toEqual(expect.arrayContaining(['tienda', 'erp', 'panel']));
    expect(keys.body).not.toContain(k1.secret);
    expect(keys.json().data.every((k: any) => k.livemode === false)).toBe(true);
  });

  it('usage needs read:usage and a sane range', async () => {
    const c = await createTestCompany(t.db);
    const { secret } = await createTestKey(t.db, c.id, { scopes: ['read:clients'] });
    expect((await call(t.app, 'GET', '/api/v1/usage', { key: secret })).statusCode).toBe(403);
    expect((await call(t.app, 'GET', '/api/v1/usage/keys', { key: secret })).statusCode).toBe(403);
    const reader = await createTestKey(t.db, c.id, { scopes: ['read:usage'] });
    const backwards = await call(t.app, 'GET', '/api/v1/usage', {
      key: reader.secret,
      query: { from: '2026-11-22T10:00:00Z', to: '2026-11-22T09:00:00Z' },
    });
    expect(backwards.statusCode).toBe(422);
    const tooLong = await call(t.app, 'GET', '/api/v1/usage', {
      key: reader.secret,
      query: { granularity: 'minute', from: '2026-11-01T00:00:00Z', to: '2026-11-22T00:00:00Z' },
    });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json().errors[0].path).toBe('querystring:/from');
  });

  it('two processes flushing at once write every count exactly once; a failed write puts them back', async () => {
    const c = await createTestCompany(t.db);
    const k = await createTestKey(t.db, c.id);
    const prefix = `{t-flush-${Date.now()}}`;
    const log = { warn: () => {} };
    const p1 = createUsageRecorder({ redis: t.redis, db: t.db, queuePrefix: prefix, log });
    const p2 = createUsageRecorder({ redis: t.redis, db: t.db, queuePrefix: prefix, log });
    const at = new Date('2026-11-22T10:15:30Z');
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        (i % 2 ? p1 : p2).record(k.id, 'GET /api/v1/clients', i % 10 === 0 ? 429 : 200, at),
      ),
    );
    await Promise.all([p1.flush(), p2.flush(), p1.flush(), p2.flush()]);
    const rows = await t.db('usage_minutes').where({ keyId: k.id }).orderBy('statusClass');
    expect(rows.map((r) => [r.statusClass, Number(r.count), r.minute.toISOString()])).toEqual([
      ['2xx', 180, '2026-11-22T10:15:00.000Z'],
      ['429', 20, '2026-11-22T10:15:00.000Z'],
    ]);

    // Postgres unreachable: the counts go back into Redis and the next flush adds them.
    const deadDb = createDb({
      url: testConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' }).databaseUrl,
    });
    const broken = createUsageRecorder({ redis: t.redis, db: deadDb, queuePrefix: prefix, log });
    try {
      await broken.record(k.id, 'GET /api/v1/clients', 200, at);
      await expect(broken.flush()).rejects.toThrow();
      expect(await t.redis.hlen(usageHashKey(prefix))).toBe(1);
    } finally {
      await deadDb.destroy();
    }
    await p1.flush();
    const after = await t.db('usage_minutes').where({ keyId: k.id, statusClass: '2xx' }).first();
    expect(Number(after.count)).toBe(181);
    expect(await t.redis.exists(usageHashKey(prefix))).toBe(0);
  });
});
