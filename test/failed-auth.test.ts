// Invalid keys cannot load Postgres, through real API processes (api/server.ts) and requests sent
// from distinct loopback addresses (127.0.0.x, each a different client to the server):
// - a burst of random keys from one address makes at most AUTH_FAILURE_LIMIT key lookups, then
//   429 auth_rate_limited with Retry-After before any lookup; X-Forwarded-For is ignored unless
//   the peer is a proxy listed in TRUST_PROXY; another address is not held, and a key the
//   process already knows still works from the held address; the window ends;
// - an unknown key repeated is looked up once (remembered as unknown) until a key is created;
// - a burst of requests with a valid key the process has not seen yet is one lookup, all answered;
// - behind a trusted proxy clients are told apart by X-Forwarded-For; with Redis stopped the
//   limit is kept per process.
// Lookups are read from the process's factura_api_key_lookups_total.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCompany, createTestKey, TEST_SECRETS_KEY } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { freePort, startApiProcess, startRedisServer, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const LIMIT = 20;
const WINDOW_S = 15;
let database: TestDatabase;
const children: ChildProcess[] = [];
let direct: number; // port of the process clients reach directly
let proxied: number; // port of the process behind a trusted proxy (127.0.0.1), on a private Redis
let privateRedis: ChildProcess;
let key: string;
let companyId: number;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  code: string | undefined;
}

/** One request on its own connection from the local address `from`. */
function send(
  port: number,
  from: string,
  o: { method?: string; path?: string; key?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        agent: false,
        method: o.method ?? 'GET',
        path: o.path ?? '/api/v1/clients',
        headers: {
          ...(o.key ? { authorization: `Bearer ${o.key}` } : {}),
          ...(o.body ? { 'content-type': 'application/json' } : {}),
          ...o.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let code: string | undefined;
          try {
            code = (JSON.parse(text) as { code?: string }).code;
          } catch {
            code = undefined;
          }
          resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], code });
        });
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

const randomKey = () => `ik_test_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40)}`;
const randomIp = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

/** `n` requests with random keys, `concurrency` at a time. */
async function burst(port: number, from: string, n: number, headers?: () => Record<string, string>) {
  const answers: Answer[] = [];
  for (let i = 0; i < n; i += 30) {
    const batch = Array.from({ length: Math.min(30, n - i) }, () =>
      send(port, from, { key: randomKey(), headers: headers?.() }),
    );
    answers.push(...(await Promise.all(batch)));
  }
  return answers;
}

async function lookups(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^factura_api_key_lookups_total (\d+)$/m.exec(text)![1]);
}

const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

beforeAll(async () => {
  database = await createTestDatabase();
  const company = await createTestCompany(database.db);
  companyId = company.id;
  key = (await createTestKey(database.db, company.id)).secret;
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: testRedisUrl(),
    SECRETS_KEY: TEST_SECRETS_KEY,
    USAGE_FLUSH_MS: '3600000',
    AUTH_FAILURE_LIMIT: String(LIMIT),
    AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_S),
  };
  const redisPort = await freePort();
  privateRedis = await startRedisServer(redisPort);
  [direct, proxied] = await Promise.all([freePort(), freePort()]);
  children.push(
    ...(await Promise.all([
      startApiProcess({ ...env, QUEUE_PREFIX: `{t-auth-${randomBytes(3).toString('hex')}}` }, direct),
      startApiProcess(
        {
          ...env,
          QUEUE_PREFIX: `{t-authp-${randomBytes(3).toString('hex')}}`,
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          TRUST_PROXY: '127.0.0.1',
        },
        proxied,
      ),
    ])),
  );
});

afterAll(async () => {
  await Promise.all(children.map((c) => stopProcess(c)));
  if (privateRedis) await stopProcess(privateRedis, 'SIGKILL');
  await database?.drop();
});

describe('failed authentication is limited per client address', () => {
  it('a burst of random keys makes at most the limit of lookups, then 429 with Retry-After', async () => {
    const before = await lookups(direct);
    // Each request names another client in X-Forwarded-For: without TRUST_PROXY it is ignored.
    const answers = await burst(direct, '127.0.0.2', 300, () => ({ 'x-forwarded-for': randomIp() }));
    const made = (await lookups(direct)) - before;
    console.log(`300 random keys from one address: ${made} lookups, ${count(answers, 429)} answered 429`);
    expect(count(answers, 401)).toBe(LIMIT);
    expect(count(answers, 429)).toBe(300 - LIMIT);
    expect(made).toBe(LIMIT);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(a.code).toBe('auth_rate_limited');
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(a.retryAfter)).toBeLessThanOrEqual(WINDOW_S);
    }
    // Another address is not held.
    expect((await send(direct, '127.0.0.3', { key: randomKey() })).status).toBe(401);
    expect((await send(direct, '127.0.0.3', { key })).status).toBe(200);
    // A key that authenticated on this process works from the held address too, also once its
    // cached entry (5 s) has expired and it must be looked up again; guesses stay held.
    const cachedUntil = Date.now() + 5500;
    expect((await send(direct, '127.0.0.2', { key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, cachedUntil - Date.now()));
    const lookupsBefore = await lookups(direct);
    expect((await send(direct, '127.0.0.2', { key })).status).toBe(200);
    expect((await lookups(direct)) - lookupsBefore).toBe(1);
    expect((await send(direct, '127.0.0.2', { key: randomKey() })).status).toBe(429);
    // When the window ends the address may try again.
    await waitFor(
      async () => (await send(direct, '127.0.0.2', { key: randomKey() })).status === 401,
      WINDOW_S * 1000 + 5000,
      500,
      'the window to end',
    );
  });

  it('an unknown key repeated is looked up once, until a key is created', async () => {
    const unknown = randomKey();
    const before = await lookups(direct);
    // Ten tries over about six seconds: remembered longer than a found key is cached (5 s).
    for (let i = 0; i < 10; i++) {
      const a = await send(direct, '127.0.0.4', { key: unknown });
      expect(a).toMatchObject({ status: 401, code: 'invalid_api_key' });
      await new Promise((r) => setTimeout(r, 650));
    }
    expect((await lookups(direct)) - before).toBe(1);

    const created = await send(direct, '127.0.0.5', {
      method: 'POST',
      path: '/api/v1/keys',
      key,
      body: JSON.stringify({ scopes: ['read:clients'] }),
    });
    expect(created.status).toBe(201);
    // The announcement reaches the process over Redis at once: the unknown key is looked up
    // afresh, long before it would have been forgotten.
    const afterCreate = await lookups(direct);
    await waitFor(
      async () => {
        await send(direct, '127.0.0.4', { key: unknown });
        return (await lookups(direct)) > afterCreate;
      },
      2000,
      100,
      'the unknown key looked up again',
    );
  });

  it('a burst with a valid key the process has not seen yet is one lookup, and every request is answered', async () => {
    // A client starting three times the limit of requests at once with a new key: they share one
    // pass (one unit of the address's budget, one lookup) instead of each taking a unit.
    const fresh = (await createTestKey(database.db, companyId)).secret;
    const before = await lookups(direct);
    const answers = await Promise.all(
      Array.from({ length: 3 * LIMIT }, () => send(direct, '127.0.0.8', { key: fresh })),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect((await lookups(direct)) - before).toBe(1);
    // Its budget is whole: as many guesses as the limit are still looked up (401), then 429.
    const guesses = await burst(direct, '127.0.0.8', LIMIT + 1);
    expect(count(guesses, 401)).toBe(LIMIT);
    expect(count(guesses, 429)).toBe(1);
  });

  it('behind a trusted proxy clients are told apart by X-Forwarded-For; others cannot pick theirs', async () => {
    // 127.0.0.1 is the trusted proxy: the client it names is the one counted.
    const viaProxy = await burst(proxied, '127.0.0.1', LIMIT + 5, () => ({
      'x-forwarded-for': '203.0.113.7',
    }));
    expect(count(viaProxy, 401)).toBe(LIMIT);
    expect(count(viaProxy, 429)).toBe(5);
    const other = await send(proxied, '127.0.0.1', {
      key: randomKey(),
      headers: { 'x-forwarded-for': '203.0.113.8' },
    });
    expect(other.status).toBe(401);
    // 127.0.0.2 is not a proxy: its X-Forwarded-For is ignored, it is counted as itself.
    const spoofing = await burst(proxied, '127.0.0.2', LIMIT + 5, () => ({ 'x-forwarded-for': randomIp() }));
    expect(count(spoofing, 401)).toBe(LIMIT);
    expect(count(spoofing, 429)).toBe(5);
  });

  it('with Redis stopped the limit is kept per process', async () => {
    await stopProcess(privateRedis, 'SIGKILL');
    const before = await lookups(proxied);
    const answers = await burst(proxied, '127.0.0.6', 100);
    expect(count(answers, 401)).toBe(LIMIT);
    expect(count(answers, 429)).toBe(100 - LIMIT);
    expect((await lookups(proxied)) - before).toBe(LIMIT);
    expect((await send(proxied, '127.0.0.7', { key })).status).toBe(200);
  });
});
