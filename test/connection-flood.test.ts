// One client cannot take every connection of an API process: a real process (api/server.ts) with
// the default connection settings and a file-descriptor limit below HTTP_MAX_CONNECTIONS, flooded
// with 3,000 slow connections from one address (127.0.0.2, headers sent a byte at a time), serves
// every one of 146 new clients from another address (127.0.0.1) meanwhile. The flooding address
// holds at most HTTP_MAX_CONNECTIONS_PER_ADDRESS connections; the rest are answered 429 and closed.
// The test raises no limit of its own: its 3,000 sockets fit the machine's usual fd limit.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { freePort, startApiProcess, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const ATTACKER = '127.0.0.2';
const CLIENT = '127.0.0.1';
const FLOOD = 3000;
const CLIENTS = 146;
/** The default of HTTP_MAX_CONNECTIONS_PER_ADDRESS. */
const PER_ADDRESS = 500;
/** Below the default HTTP_MAX_CONNECTIONS (2,000), as on the machine where one client took them all. */
const FD_LIMIT = 1024;

let database: TestDatabase;
let api: ChildProcess;
let port: number;
const flood: { socket: Socket; data: string; closed: boolean }[] = [];

/** A connection from `ATTACKER` that sends a request's headers a byte every 500 ms, never ending them. */
function slowConnection(): Promise<void> {
  return new Promise((resolve) => {
    const c = {
      socket: connect({ port, host: '127.0.0.1', localAddress: ATTACKER }),
      data: '',
      closed: false,
    };
    flood.push(c);
    c.socket.setEncoding('utf8');
    c.socket.on('data', (d: string) => (c.data += d));
    c.socket.on('error', () => (c.closed = true));
    c.socket.on('close', () => {
      c.closed = true;
      resolve();
    });
    c.socket.on('connect', () => {
      c.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      const drip = setInterval(() => (c.closed ? clearInterval(drip) : c.socket.write('x')), 500);
      drip.unref();
      resolve();
    });
  });
}

/** One new client on a connection of its own from `CLIENT`: the status of GET /health, or the error. */
function newClient(): Promise<number | string> {
  return new Promise((resolve) => {
    const req = get(
      { host: '127.0.0.1', port, path: '/health', agent: false, localAddress: CLIENT },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (err) => resolve(err.message));
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  port = await freePort();
  api = await startApiProcess(
    {
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      QUEUE_PREFIX: `{t-flood-${randomBytes(3).toString('hex')}}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      USAGE_FLUSH_MS: '3600000',
    },
    port,
    { fdLimit: FD_LIMIT },
  );
});

afterAll(async () => {
  for (const c of flood) c.socket.destroy();
  if (api) await stopProcess(api);
  await database?.drop();
});

describe('3,000 slow connections from one address', () => {
  it('leave the process serving every new client from another address', async () => {
    const started = Date.now();
    // The flood, 500 connections at a time.
    for (let i = 0; i < FLOOD; i += 500)
      await Promise.all(Array.from({ length: Math.min(500, FLOOD - i) }, () => slowConnection()));
    // The process gets up to 3 s to shed the surplus (well within the 10 s header timeout that
    // would end the flood by itself); the clients come then, whether it did or not.
    const admitted = () => flood.filter((c) => !c.closed).length;
    await waitFor(() => admitted() <= PER_ADDRESS, 3000, 50, 'the surplus closed').catch(() => {});

    // While the admitted ones still drip their headers, new clients come from another address.
    const results = await Promise.all(Array.from({ length: CLIENTS }, () => newClient()));
    const failed = results.filter((r) => r !== 200);
    expect(failed, `${failed.length} of ${CLIENTS} new clients not served`).toEqual([]);

    expect(admitted()).toBeGreaterThan(0);
    expect(admitted()).toBeLessThanOrEqual(PER_ADDRESS);
    // The refused ones are told why before the connection closes (when the close does not reset
    // it first: their headers already sent are never read).
    const refused = flood.filter((c) => c.data.startsWith('HTTP/1.1 429 '));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.data).toContain('"code":"rate_limited"');
    expect(Date.now() - started).toBeLessThan(60_000);

    // The process said both things it did.
    const logs = readdirSync(join(projectRoot, 'test/artifacts'))
      .filter((f) => f.startsWith(`api-${port}-`))
      .map((f) => readFileSync(join(projectRoot, 'test/artifacts', f), 'utf8'))
      .join('');
    expect(logs).toContain('HTTP_MAX_CONNECTIONS lowered to fit the file-descriptor limit');
    expect(logs).toContain('connection limit of one address reached');
  }, 90_000);
});
