// Processes started while PostgreSQL is down: an API process (api/server.ts) and a worker process
// (workers/main.ts) whose DATABASE_URL points at a TCP proxy in front of the real PostgreSQL that
// refuses connections at first stay alive and say that they wait for it; the API listens with
// /ready 503 (postgres unavailable). Once the proxy lets connections through, the API becomes
// ready and takes an invoice, and the worker signs it.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilPostgresReady } from '../db/reachability.ts';
import { TEST_SECRETS_KEY, testConfig } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedIssuer } from './helpers/e2e.ts';
import {
  freePort,
  freePortIn,
  spawnApiProcess,
  startWorkerProcess,
  stopProcess,
} from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

let database: TestDatabase;
let proxy: Server;
let open = false;
const sockets = new Set<Socket>();
let api: (ChildProcess & { logFile: string }) | undefined;
let worker: (ChildProcess & { logFile: string }) | undefined;
let base: string;
let proxyPort: number;
let seeded: Awaited<ReturnType<typeof seedIssuer>>;

const pad = (n: number) => String(n).padStart(12, '0');
const alive = (p: ChildProcess | undefined) =>
  p !== undefined && p.exitCode === null && p.signalCode === null;
const get = async (path: string) => {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json() };
};

/** Refuses (resets) every connection until `open`, then relays it to the real server. */
function startProxy(target: URL, port: number): Promise<Server> {
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (!open) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  database = await createTestDatabase();
  seeded = await seedIssuer(database.db, testConfig());
  proxyPort = await freePortIn(5700, 5799);
  const closed = await freePortIn(5700, 5799, [proxyPort]);
  proxy = await startProxy(new URL(database.url), proxyPort);
  const proxied = new URL(database.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxyPort);
  const apiPort = await freePort();
  base = `http://127.0.0.1:${apiPort}`;
  const env = {
    DATABASE_URL: proxied.toString(),
    REDIS_URL: testConfig().redisUrl,
    QUEUE_PREFIX: `{t-pg-outage-${randomBytes(3).toString('hex')}}`,
    SECRETS_KEY: TEST_SECRETS_KEY,
    USAGE_FLUSH_MS: '3600000',
    LOG_LEVEL: 'info',
    // Hacienda on a closed port: the worker signs, then its submissions fail and are retried.
    HACIENDA_SANDBOX_IDP_URL: `http://127.0.0.1:${closed}/token`,
    HACIENDA_SANDBOX_API_URL: `http://127.0.0.1:${closed}/recepcion`,
  };
  api = spawnApiProcess(env, apiPort);
  worker = startWorkerProcess(env);
});

afterAll(async () => {
  if (worker) await stopProcess(worker, 'SIGKILL');
  if (api) await stopProcess(api, 'SIGKILL');
  for (const s of sockets) s.destroy();
  await new Promise((r) => proxy?.close(r));
  await database?.drop();
});

describe('a process started while PostgreSQL is down', () => {
  it('waits, says so, is not ready; comes up and works once PostgreSQL answers', async () => {
    // The API listens and answers, but is not ready.
    await waitFor(
      async () => (await fetch(`${base}/health`).catch(() => null)) !== null,
      60_000,
      200,
      'the API to listen',
    );
    await waitFor(
      async () => (await get('/ready')).body?.checks?.postgres === 'unavailable',
      10_000,
      200,
      'the readiness probe to see PostgreSQL down',
    );
    const notReady = await get('/ready');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatchObject({ checks: { postgres: 'unavailable' } });
    // Both say why they wait, once (a notice at most every 10 s), and are still there a while later.
    await waitFor(
      () => /Waiting for PostgreSQL/.test(readFileSync(worker!.logFile, 'utf8')),
      30_000,
      200,
      'the worker to say it waits',
    );
    const cannot = new RegExp(
      `Cannot reach PostgreSQL at postgres(ql)?://[^\\s]*127\\.0\\.0\\.1:${proxyPort}`,
    );
    expect(readFileSync(api!.logFile, 'utf8')).toMatch(
      new RegExp(`${cannot.source}[\\s\\S]*Waiting for PostgreSQL`),
    );
    await new Promise((r) => setTimeout(r, 3000));
    expect(alive(api)).toBe(true);
    expect(alive(worker)).toBe(true);
    expect((await get('/ready')).status).toBe(503);
    for (const p of [api!, worker!])
      expect(readFileSync(p.logFile, 'utf8').match(/Waiting for PostgreSQL/g)).toHaveLength(1);

    // PostgreSQL answers: the API becomes ready and takes an invoice; the worker signs it.
    open = true;
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
    expect(readFileSync(worker!.logFile, 'utf8')).toContain('PostgreSQL reachable');
  }, 150_000);
});

describe('untilPostgresReady', () => {
  const refused = () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

  it('retries while PostgreSQL is unreachable, telling at most every everyMs, and returns the answer', async () => {
    let calls = 0;
    const told: { first: boolean; ms: number }[] = [];
    const answer = await untilPostgresReady(
      async () => {
        if (++calls < 6) throw refused();
        return 'ok';
      },
      (_err, waited) => told.push(waited),
      { everyMs: 60, retryMs: 20 },
    );
    expect(answer).toBe('ok');
    expect(calls).toBe(6);
    expect(told[0]).toEqual({ first: true, ms: expect.any(Number) });
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(told.length).toBeLessThan(5);
    expect(told.slice(1).every((w) => !w.first && w.ms >= 60)).toBe(true);
  });

  it('throws at once what is not an outage (a wrong password)', async () => {
    let calls = 0;
    const wrong = Object.assign(new Error('password authentication failed'), { code: '28P01' });
    await expect(
      untilPostgresReady(
        async () => {
          calls++;
          throw wrong;
        },
        () => {},
        { retryMs: 10 },
      ),
    ).rejects.toBe(wrong);
    expect(calls).toBe(1);
  });
});
