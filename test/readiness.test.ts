// Readiness through a real API process (api/server.ts) on a private redis-server that the test
// stops: with Redis down the instance still serves (creates 201, reads 200) and /ready says so —
// 200 `degraded`, naming each dependency — so a load balancer following it keeps the API in
// service; once Redis is back it is `ready` again. When this instance cannot reach Postgres,
// /ready is 503 with Retry-After (and the same checks).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS_KEY, testConfig } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { adminUrl } from './helpers/db-urls.ts';
import { seedIssuer } from './helpers/e2e.ts';
import { freePort, startApiProcess, startRedisServer, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

let database: TestDatabase;
let redis: ChildProcess;
let redisPort: number;
let api: ChildProcess;
let base: string;
let seeded: Awaited<ReturnType<typeof seedIssuer>>;

const pad = (n: number) => String(n).padStart(12, '0');
const ready = async () => {
  const res = await fetch(`${base}/ready`);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
};
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${seeded.key}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
};
const createInvoice = () =>
  call('POST', '/api/v1/invoices', {
    client_id: `cli_${pad(seeded.client.id)}`,
    lines: [{ service_id: `srv_${pad(seeded.consulting.id)}`, qty: 1 }],
  });

beforeAll(async () => {
  database = await createTestDatabase();
  seeded = await seedIssuer(database.db, testConfig());
  redisPort = await freePort();
  redis = await startRedisServer(redisPort);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  api = await startApiProcess(
    {
      DATABASE_URL: database.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      QUEUE_PREFIX: `{t-ready-${randomBytes(3).toString('hex')}}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      USAGE_FLUSH_MS: '3600000',
    },
    port,
  );
});

afterAll(async () => {
  if (api) await stopProcess(api);
  if (redis) await stopProcess(redis, 'SIGKILL');
  await database?.drop();
});

describe('readiness says whether this instance can serve', () => {
  it('Redis down: creates 201 and reads 200, /ready 200 degraded; ready again once Redis is back', async () => {
    expect(await ready()).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'ok', redis: 'ok' } },
    });
    expect((await createInvoice()).status).toBe(201);

    await stopProcess(redis, 'SIGKILL');
    await waitFor(
      async () => (await ready()).body.checks?.redis === 'unavailable',
      10_000,
      100,
      'Redis seen down',
    );
    const degraded = await ready();
    expect(degraded).toMatchObject({
      status: 200,
      body: { status: 'degraded', checks: { postgres: 'ok', redis: 'unavailable' } },
    });
    // What a load balancer following /ready keeps in service really serves.
    const created = await createInvoice();
    expect(created.status).toBe(201);
    expect(created.json.status).toBe('pendiente');
    const read = await call('GET', `/api/v1/invoices/${created.json.id}`);
    expect(read.status).toBe(200);
    expect((await call('GET', '/api/v1/invoices?limit=5')).status).toBe(200);
    expect((await call('GET', '/api/v1/clients')).status).toBe(200);

    redis = await startRedisServer(redisPort);
    await waitFor(async () => (await ready()).body.status === 'ready', 20_000, 200, 'ready again');
    expect((await ready()).body.checks).toEqual({ postgres: 'ok', redis: 'ok' });
  });

  it('Postgres unreachable for this instance: /ready 503 with Retry-After, naming the checks', async () => {
    // Refuse new connections to this test's database and end the API's open ones.
    const admin = knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
    try {
      await admin.raw('alter database ?? with allow_connections false', [database.name]);
      await admin.raw(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = ? and pid <> pg_backend_pid()',
        [database.name],
      );
      await waitFor(async () => (await ready()).status === 503, 15_000, 200, '/ready 503');
      const r = await ready();
      expect(r.retryAfter).toBe('5');
      expect(r.body).toMatchObject({
        code: 'service_unavailable',
        checks: { postgres: 'unavailable', redis: 'ok' },
      });
    } finally {
      await admin.raw('alter database ?? with allow_connections true', [database.name]);
      await admin.destroy();
    }
    await waitFor(async () => (await ready()).status === 200, 15_000, 200, '/ready 200 again');
  });
});
