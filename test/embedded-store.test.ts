// Embedded mode's stand-in for Redis (platform/pg-redis.ts) behind the API, in-process, on a
// database of its own and no Redis at all: the rate limit's script twin admits exactly the plan's
// requests of a burst (atomic under concurrency) and refuses the rest with 429; failed
// authentications are counted per address and blocked past the limit; usage counters reach
// Postgres; a key change announced by one connection clears another's key cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../api/app.ts';
import { KeyCache } from '../api/key-cache.ts';
import { type RedisClient } from '../platform/redis.ts';
import { announceKeyChange } from '../platform/redis-keys.ts';
import { openStore } from '../platform/queue-store.ts';
import { call, createTestCompany, createTestKey, testConfig } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { waitFor } from './helpers/wait.ts';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/index.ts';

let database: TestDatabase;
let config: Config;
let store: RedisClient;
let app: FastifyInstance;

beforeAll(async () => {
  database = await createTestDatabase();
  config = testConfig({
    DATABASE_URL: database.url,
    FACTURA_EMBEDDED: '1',
    // Nothing listens here: a call that reached Redis would fail.
    REDIS_URL: 'redis://127.0.0.1:1',
    AUTH_FAILURE_LIMIT: '3',
    USAGE_FLUSH_MS: '100000',
  });
  store = openStore(config, 'api');
  app = await buildApp({ config, db: database.db, redis: store }, { logger: false });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  store?.disconnect();
  await database?.drop();
});

describe('embedded mode: the Postgres stand-in for Redis', () => {
  it('admits exactly the plan’s requests of a burst and refuses the rest with 429', async () => {
    const c = await createTestCompany(database.db, { rateLimitPerSecond: 10 });
    const { secret } = await createTestKey(database.db, c.id);
    // Known to this process first: a new secret's lookups draw on the address's failure budget.
    expect((await call(app, 'GET', '/api/v1/clients', { key: secret })).statusCode).toBe(200);
    // Twice the limit at once, early in a new second so the burst stays in one window.
    const warmed = Math.floor(Date.now() / 1000);
    await waitFor(
      () => Math.floor(Date.now() / 1000) > warmed && Date.now() % 1000 < 300,
      3000,
      5,
      'the start of the next second',
    );
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(app, 'GET', '/api/v1/clients', { key: secret })),
    );
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((s) => s === 200).length).toBe(10);
    expect(codes.filter((s) => s === 429).length).toBe(10);
    const ok = answers.find((a) => a.statusCode === 200)!;
    expect(ok.headers['ratelimit-policy']).toBe('10;w=1');
    const refused = answers.find((a) => a.statusCode === 429)!;
    expect(refused.json().code).toBe('rate_limited');
  });

  it('moves usage counters to Postgres and announces key changes to other connections', async () => {
    const c = await createTestCompany(database.db);
    const { secret } = await createTestKey(database.db, c.id);
    for (let i = 0; i < 3; i++)
      expect((await call(app, 'GET', '/api/v1/clients', { key: secret })).statusCode).toBe(200);
    const usage = await call(app, 'GET', '/api/v1/usage', { key: secret });
    expect(usage.statusCode).toBe(200);
    expect(usage.json().totals.requests).toBeGreaterThanOrEqual(3);

    let cleared = 0;
    const cache = new KeyCache(() => (cleared += 1));
    const unfollow = await cache.follow(store, config.queuePrefix, () => {});
    try {
      await waitFor(() => cleared > 0, 5000, 20, 'the subscription'); // cleared once when ready
      const before = cleared;
      const other = openStore(config, 'api');
      await announceKeyChange(other, config.queuePrefix);
      other.disconnect();
      await waitFor(() => cleared > before, 5000, 20, 'the key change to arrive');
    } finally {
      await unfollow();
    }
  });

  it('counts failed authentications per address and blocks past the limit', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 5; i++)
      codes.push(
        (await call(app, 'GET', '/api/v1/clients', { key: `ik_test_${'Nothing0'.repeat(5)}` })).statusCode,
      );
    expect(codes.slice(0, 3)).toEqual([401, 401, 401]);
    expect(codes.slice(3)).toEqual([429, 429]);
  });
});
