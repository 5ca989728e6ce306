// Processes started while Redis is down: an API process (api/server.ts) and a worker process
// (workers/main.ts) pointed at a port where no Redis listens yet stay alive and say that they
// wait for it; the API listens with /health 200 and /ready 503 (not ready: Redis never reached).
// Once a redis-server of the test's own starts on that port, the API becomes ready and takes an
// invoice, and the worker signs it.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS_KEY, testConfig } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedIssuer } from './helpers/e2e.ts';
import {
  freePort,
  freePortIn,
  spawnApiProcess,
  startRedisServer,
  startWorkerProcess,
  stopProcess,
} from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

let database: TestDatabase;
let redis: ChildProcess | undefined;
let api: (ChildProcess & { logFile: string }) | undefined;
let worker: (ChildProcess & { logFile: string }) | undefined;
let base: string;
let redisPort: number;
let seeded: Awaited<ReturnType<typeof seedIssuer>>;

const pad = (n: number) => String(n).padStart(12, '0');
const alive = (p: ChildProcess | undefined) =>
  p !== undefined && p.exitCode === null && p.signalCode === null;
const get = async (path: string) => {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json() };
};

beforeAll(async () => {
  database = await createTestDatabase();
  seeded = await seedIssuer(database.db, testConfig());
  redisPort = await freePortIn(5500, 5599);
  const apiPort = await freePort();
  // Hacienda on a closed port: the worker signs, then its submissions fail and are retried.
  const closed = await freePortIn(5500, 5599, [redisPort]);
  base = `http://127.0.0.1:${apiPort}`;
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    QUEUE_PREFIX: `{t-outage-${randomBytes(3).toString('hex')}}`,
    SECRETS_KEY: TEST_SECRETS_KEY,
    USAGE_FLUSH_MS: '3600000',
    LOG_LEVEL: 'info',
    HACIENDA_SANDBOX_IDP_URL: `http://127.0.0.1:${closed}/token`,
    HACIENDA_SANDBOX_API_URL: `http://127.0.0.1:${closed}/recepcion`,
  };
  api = spawnApiProcess(env, apiPort);
  worker = startWorkerProcess(env);
});

afterAll(async () => {
  if (worker) await stopProcess(worker, 'SIGKILL');
  if (api) await stopProcess(api);
  if (redis) await stopProcess(redis, 'SIGKILL');
  await database?.drop();
});

describe('a process started while Redis is down', () => {
  it('waits, says so, is not ready; comes up and works once Redis answers', async () => {
    // The API listens and answers, but is not ready.
    await waitFor(
      async () => (await fetch(`${base}/health`).catch(() => null))?.status === 200,
      60_000,
      200,
      'the API to listen',
    );
    const notReady = await get('/ready');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatchObject({
      code: 'service_unavailable',
      checks: { postgres: 'ok', redis: 'unavailable' },
    });
    // Both say why they wait, and are still there a while later.
    await waitFor(
      () => /Waiting for Redis/.test(readFileSync(worker!.logFile, 'utf8')),
      30_000,
      200,
      'the worker to say it waits',
    );
    expect(readFileSync(api!.logFile, 'utf8')).toMatch(
      new RegExp(`Cannot reach Redis at redis://127\\.0\\.0\\.1:${redisPort}[\\s\\S]*Waiting for Redis`),
    );
    await new Promise((r) => setTimeout(r, 3000));
    expect(alive(api)).toBe(true);
    expect(alive(worker)).toBe(true);
    expect((await get('/ready')).status).toBe(503);

    // Redis starts: the API becomes ready and takes an invoice; the worker signs it.
    redis = await startRedisServer(redisPort);
    await waitFor(async () => (await get('/ready')).status === 200, 30_000, 200, 'the API to be ready');
    expect(await get('/ready')).toEqual({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'ok', redis: 'ok' } },
    });
    const created = await fetch(`${base}/api/v1/invoices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: `cli_${pad(seeded.client.id)}`,
        lines: [{ service_id: `srv_${pad(seeded.consulting.id)}`, qty: 1 }],
      }),
    });
    expect(created.status).toBe(201);
    const id = Number(((await created.json()) as { id: string }).id.replace(/^\D+_/, ''));
    await waitFor(
      async () => (await database.db('invoices').where({ id }).first('signed_at'))?.signedAt != null,
      60_000,
      200,
      'the worker to sign the invoice',
    );
    expect(alive(worker)).toBe(true);
    expect(readFileSync(worker!.logFile, 'utf8')).toContain('Redis reachable');
  }, 150_000);
});
