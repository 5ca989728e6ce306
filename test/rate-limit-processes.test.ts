// Two real API processes (api/server.ts) on one Redis share each company's rate-limit count and
// its usage counters: a burst split between them gets exactly the limit through, with distinct
// `remaining` values across both, and GET /api/v1/usage on either shows the whole burst. The
// limit is the company's (per mode), not the key's: four keys of one company split a burst and
// still get the company's limit between them; a key with a lower limit of its own is held to it
// (with headers naming it) while the company's other keys go on.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { formatId } from '../domain/ids.ts';
import { createRedis, waitForRedis } from '../platform/redis.ts';
import { createTestCompany, createTestKey, TEST_SECRETS_KEY } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { freePort, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const LIMIT = 20;
let database: TestDatabase;
const children: ChildProcess[] = [];
const urls: string[] = [];
const redis = createRedis(testRedisUrl(), 'api');
const prefix = `{t-rl2-${process.pid}-${Date.now()}}`;

async function startApi(name: string): Promise<string> {
  const port = await freePort();
  mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
  const out = openSync(join(projectRoot, `test/artifacts/api-${name}-${process.pid}.log`), 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      QUEUE_PREFIX: prefix,
      SECRETS_KEY: TEST_SECRETS_KEY,
      USAGE_FLUSH_MS: '60000',
    },
    stdio: ['ignore', out, out],
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`API ${name} exited with ${child.exitCode}`);
      return fetch(`${url}/ready`).then(
        (r) => r.ok,
        () => false,
      );
    },
    30_000,
    100,
    `API process ${name}`,
  );
  return url;
}

beforeAll(async () => {
  database = await createTestDatabase();
  await waitForRedis(redis);
  urls.push(...(await Promise.all([startApi('a'), startApi('b')])));
});
afterAll(async () => {
  await Promise.all(children.map((c) => stopProcess(c)));
  redis.disconnect();
  await database?.drop();
});

const get = (base: string, path: string, key: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe('rate limits across API processes', () => {
  it('two processes share one count, and usage adds up across them', async () => {
    const company = await createTestCompany(database.db, { rateLimitPerSecond: LIMIT });
    const key = await createTestKey(database.db, company.id);
    // Warm both processes (connections, code paths) before the measured window.
    for (const u of urls) expect((await get(u, '/api/v1/services', key.secret)).status).toBe(200);

    // Start the burst just after a window opens (windows follow Redis's clock) and keep it only
    // if it ended in that same window; a very slow machine gets another try.
    const redisMs = async () => {
      const [sec, micros] = await redis.time();
      return Number(sec) * 1000 + Math.floor(Number(micros) / 1000);
    };
    const fire = () =>
      Promise.all(
        Array.from({ length: LIMIT + 10 }, async (_, i) => {
          const res = await get(urls[i % 2]!, '/api/v1/services', key.secret);
          await res.arrayBuffer();
          return {
            via: i % 2,
            status: res.status,
            rl: res.headers.get('ratelimit') ?? '',
            retry: res.headers.get('retry-after'),
          };
        }),
      );
    let burst: Awaited<ReturnType<typeof fire>> | undefined;
    const counted = { ok: 2, limited: 0 }; // the warm-up requests
    for (let attempt = 0; attempt < 3 && !burst; attempt++) {
      const untilNextWindow = 1000 - ((await redisMs()) % 1000) + 20;
      await new Promise((r) => setTimeout(r, untilNextWindow));
      const t0 = await redisMs();
      const tried = await fire();
      const t1 = await redisMs();
      counted.ok += tried.filter((r) => r.status === 200).length;
      counted.limited += tried.filter((r) => r.status === 429).length;
      if (Math.floor(t0 / 1000) === Math.floor(t1 / 1000)) burst = tried;
    }
    expect(burst, 'a burst that fits in one window').toBeDefined();
    const ok = burst!.filter((r) => r.status === 200);
    const limited = burst!.filter((r) => r.status === 429);
    expect(ok.length).toBe(LIMIT);
    expect(limited.length).toBe(10);
    // Both processes served some of the allowed requests, and they drew from one count:
    // each allowed request saw a different `remaining` (LIMIT-1 … 0).
    expect(new Set(ok.map((r) => r.via))).toEqual(new Set([0, 1]));
    const remaining = ok.map((r) => Number(/remaining=(\d+)/.exec(r.rl)![1])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    for (const r of limited) expect(Number(r.retry)).toBeGreaterThanOrEqual(1);

    // After the window both processes accept the key again.
    await new Promise((r) => setTimeout(r, Number(limited[0]!.retry) * 1000));
    for (const u of urls) expect((await get(u, '/api/v1/services', key.secret)).status).toBe(200);

    // Usage counted by both processes, read through either one (counts land in Redis just
    // after each response, so poll until the last ones are in).
    const path = `/api/v1/usage?granularity=minute&key_id=${formatId('apiKey', key.id)}`;
    let sums = { ok: 0, limited: 0 };
    await waitFor(
      async () => {
        const usage = await (await get(urls[1]!, path, key.secret)).json();
        const rows = usage.data.filter((d: { route: string }) => d.route === 'GET /api/v1/services');
        const sum = (k: string) => rows.reduce((n: number, d: Record<string, number>) => n + d[k]!, 0);
        sums = { ok: sum('2xx'), limited: sum('429') };
        return sums.ok === counted.ok + 2;
      },
      5_000,
      100,
      'the burst in /api/v1/usage',
    );
    expect(sums).toEqual({ ok: counted.ok + 2, limited: counted.limited });
  });
});

/** Redis's clock in ms (the windows follow it). */
async function redisMs(): Promise<number> {
  const [sec, micros] = await redis.time();
  return Number(sec) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * Fires `fire()` just after a window opens and keeps the result only if it ended in that same
 * window (a very slow machine gets other tries); waits out the window afterwards.
 */
async function inOneWindow<T>(fire: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const untilNext = 1000 - ((await redisMs()) % 1000) + 20;
    await new Promise((r) => setTimeout(r, untilNext));
    const t0 = await redisMs();
    const result = await fire();
    const t1 = await redisMs();
    await new Promise((r) => setTimeout(r, 1000 - (t1 % 1000) + 20));
    if (Math.floor(t0 / 1000) === Math.floor(t1 / 1000)) return result;
  }
  throw new Error('no burst fitted in one window');
}

interface Hit {
  key: number;
  status: number;
  policy: string | null;
  rl: string;
  body: { code?: string; limit_scope?: string; limit?: number };
}

const hit = async (base: string, secret: string, key: number): Promise<Hit> => {
  const res = await get(base, '/api/v1/services', secret);
  return {
    key,
    status: res.status,
    policy: res.headers.get('ratelimit-policy'),
    rl: res.headers.get('ratelimit') ?? '',
    body: await res.json(),
  };
};

describe("a company's keys share its limit", () => {
  it('four keys on two processes get the company limit between them, not four times it', async () => {
    const company = await createTestCompany(database.db, { rateLimitPerSecond: LIMIT });
    const keys = await Promise.all([1, 2, 3, 4].map(() => createTestKey(database.db, company.id)));
    for (const [i, k] of keys.entries())
      expect((await get(urls[i % 2]!, '/api/v1/services', k.secret)).status).toBe(200);
    // 4 × LIMIT requests, LIMIT per key: the old per-key limit would let all of them through.
    const burst = await inOneWindow(() =>
      Promise.all(Array.from({ length: 4 * LIMIT }, (_, i) => hit(urls[i % 2]!, keys[i % 4]!.secret, i % 4))),
    );
    const ok = burst.filter((r) => r.status === 200);
    const limited = burst.filter((r) => r.status === 429);
    expect(ok).toHaveLength(LIMIT);
    expect(limited).toHaveLength(3 * LIMIT);
    for (const r of limited) {
      expect(r.body).toMatchObject({ code: 'rate_limited', limit_scope: 'company', limit: LIMIT });
      expect(r.policy).toBe(`${LIMIT};w=1`);
    }
    // One count for the company: the allowed requests saw remaining LIMIT-1 … 0 once each.
    const remaining = ok.map((r) => Number(/remaining=(\d+)/.exec(r.rl)![1])).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    // The other mode is another count: a live key of the same company is not held by the burst.
    const live = await createTestKey(database.db, company.id, { livemode: true });
    expect((await get(urls[0]!, '/api/v1/services', live.secret)).status).toBe(200);
  });

  it("a key's own lower limit binds first; the company's other keys go on", async () => {
    const company = await createTestCompany(database.db, { rateLimitPerSecond: LIMIT });
    const admin = await createTestKey(database.db, company.id);
    // Above the company's limit: refused, naming the field; nothing created.
    const tooHigh = await fetch(`${urls[0]}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: ['read:services'], rate_limit_per_second: LIMIT + 1 }),
    });
    expect(tooHigh.status).toBe(422);
    expect((await tooHigh.json()).errors).toEqual([
      expect.objectContaining({ path: '/rate_limit_per_second', code: 'out_of_range' }),
    ]);
    const created = await fetch(`${urls[0]}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'narrow', scopes: ['read:services'], rate_limit_per_second: 5 }),
    });
    expect(created.status).toBe(201);
    const narrow = await created.json();
    expect(narrow.rate_limit_per_second).toBe(5);
    const listed = await (await get(urls[1]!, '/api/v1/keys', admin.secret)).json();
    expect(listed.data.find((k: { id: string }) => k.id === narrow.id).rate_limit_per_second).toBe(5);
    expect(listed.data.find((k: { id: string }) => k.id !== narrow.id).rate_limit_per_second).toBeNull();

    const first = await hit(urls[1]!, narrow.secret, 0);
    expect(first.status).toBe(200);
    expect(first.policy).toBe('5;w=1');
    const burst = await inOneWindow(() =>
      Promise.all([
        ...Array.from({ length: 12 }, (_, i) => hit(urls[i % 2]!, narrow.secret, 0)),
        ...Array.from({ length: 5 }, (_, i) => hit(urls[i % 2]!, admin.secret, 1)),
      ]),
    );
    const narrowOk = burst.filter((r) => r.key === 0 && r.status === 200);
    const narrowLimited = burst.filter((r) => r.key === 0 && r.status === 429);
    expect(narrowOk).toHaveLength(5);
    expect(narrowLimited).toHaveLength(7);
    for (const r of narrowLimited) {
      expect(r.body).toMatchObject({ code: 'rate_limited', limit_scope: 'key', limit: 5 });
      expect(r.policy).toBe('5;w=1');
      expect(r.rl).toMatch(/^limit=5, remaining=0, reset=1$/);
    }
    // The company still had room: its other key went through, headers showing the company's limit.
    const adminHits = burst.filter((r) => r.key === 1);
    expect(adminHits.every((r) => r.status === 200)).toBe(true);
    for (const r of adminHits) expect(r.policy).toBe(`${LIMIT};w=1`);
  });
});
