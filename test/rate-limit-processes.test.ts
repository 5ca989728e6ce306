// Two real API processes (api/server.ts) on one Redis share each key's rate-limit count and its
// usage counters: a burst split between them gets exactly the limit through, with distinct
// `remaining` values across both, and GET /api/v1/usage on either shows the whole burst.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { formatId } from '../domain/ids.ts';
import { createRedis, waitForRedis } from '../jobs/redis.ts';
import { createTestCompany, createTestKey, TEST_SECRETS_KEY } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { freePort, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const LIMIT = 20;
let database: TestDatabase;
const children: ChildProcess[] = [];
const urls: string[] = [];
const redis = createRedis('redis://127.0.0.1:6379', 'api');
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
      REDIS_URL: 'redis://127.0.0.1:6379',
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
  it('two processes share one count per key, and usage adds up across them', async () => {
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
