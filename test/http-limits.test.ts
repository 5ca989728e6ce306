// One API process (api/server.ts, listening on a real port) against clients that hold on to
// connections, spoken to over raw sockets: a body dripped a byte at a time is cut off at the
// request timeout; a request refused before its body has its connection closed (the rest of the
// body is not read); a connection that sends nothing is closed at the idle timeout; past the
// connection cap new connections are closed on accept while established ones — a health check's,
// an authenticated client's that reaches Postgres — keep working.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCompany, createTestKey, TEST_SECRETS_KEY, testConfig } from './helpers/app.ts';
import { seedIssuer } from './helpers/e2e.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { freePort, startApiProcess, stopProcess } from './helpers/processes.ts';
import { drip, rawConnect, requestHead, type RawConnection } from './helpers/raw-connection.ts';
import { waitFor } from './helpers/wait.ts';

const LIMITS = {
  HTTP_HEADERS_TIMEOUT_MS: '2000',
  HTTP_REQUEST_TIMEOUT_MS: '4000',
  HTTP_IDLE_TIMEOUT_MS: '3000',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000',
  HTTP_MAX_CONNECTIONS: '16',
};
const REQUEST_TIMEOUT_MS = Number(LIMITS.HTTP_REQUEST_TIMEOUT_MS);
const IDLE_TIMEOUT_MS = Number(LIMITS.HTTP_IDLE_TIMEOUT_MS);
const HEADERS_TIMEOUT_MS = Number(LIMITS.HTTP_HEADERS_TIMEOUT_MS);
const KEEP_ALIVE_MS = Number(LIMITS.HTTP_KEEP_ALIVE_TIMEOUT_MS);
const CAP = Number(LIMITS.HTTP_MAX_CONNECTIONS);

let database: TestDatabase;
let api: ChildProcess;
let port: number;
let key: string;
let issuer: Awaited<ReturnType<typeof seedIssuer>>;
const opened: RawConnection[] = [];

async function open(): Promise<RawConnection> {
  const c = await rawConnect(port);
  opened.push(c);
  return c;
}

beforeAll(async () => {
  database = await createTestDatabase();
  const company = await createTestCompany(database.db);
  key = (await createTestKey(database.db, company.id)).secret;
  issuer = await seedIssuer(database.db, testConfig());
  port = await freePort();
  api = await startApiProcess(
    {
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      QUEUE_PREFIX: `{t-http-${process.pid}-${randomBytes(3).toString('hex')}}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      USAGE_FLUSH_MS: '3600000',
      ...LIMITS,
    },
    port,
  );
});

afterAll(async () => {
  for (const c of opened) c.close();
  if (api) await stopProcess(api);
  await database?.drop();
});

describe('one API process against clients that hold connections', () => {
  it('cuts off a body dripped a byte at a time once the request timeout passes (408)', async () => {
    const c = await open();
    const started = Date.now();
    c.write(
      requestHead('POST', '/api/v1/clients', {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Content-Length': 10_000,
      }),
    );
    // A byte every 250 ms: the connection is never idle long enough for the idle timeout, so
    // only the whole-request deadline can end it.
    const stop = drip(c, 250);
    try {
      const closedAt = await c.waitClosed(REQUEST_TIMEOUT_MS + 10_000);
      const took = closedAt - started;
      expect(took).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(c.received()).toContain('"code":"request_timeout"');
    } finally {
      stop();
    }
  });

  it('closes the connection of a request refused before its body, and reads no more of it', async () => {
    const c = await open();
    const sent = Date.now();
    c.write(
      requestHead('POST', '/api/v1/clients', {
        Authorization: `Bearer ik_test_${'A'.repeat(40)}`,
        'Content-Type': 'application/json',
        'Content-Length': 100_000,
      }) + '{"name":',
    );
    const stop = drip(c, 100);
    try {
      await c.waitFor(/"code":"invalid_api_key"/);
      expect(c.received()).toMatch(/^HTTP\/1\.1 401 /);
      expect(c.received().toLowerCase()).toContain('connection: close');
      // Closed right after the answer, long before the request timeout would have cut it.
      const closedAt = await c.waitClosed(REQUEST_TIMEOUT_MS);
      expect(closedAt - sent).toBeLessThan(REQUEST_TIMEOUT_MS - 500);
    } finally {
      stop();
    }
    // The same for a request without any key, and the answer is the only thing sent.
    const d = await open();
    d.write(requestHead('POST', '/api/v1/invoices', { 'Content-Length': 5000 }) + '{');
    await d.waitFor(/"code":"missing_api_key"/);
    await d.waitClosed(REQUEST_TIMEOUT_MS - 500);
    expect(d.received().match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it('keeps a connection whose body arrived in time open until its keep-alive timeout', async () => {
    const c = await open();
    const body = '{}';
    const head = requestHead('GET', '/api/v1/clients', { Authorization: `Bearer ${key}` });
    c.write(head);
    await c.waitFor(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\n[\s\S]*"object":"list"/);
    expect(c.received().toLowerCase()).not.toContain('connection: close');
    c.write(
      requestHead('POST', '/api/v1/clients', {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Content-Length': body.length,
      }) + body,
    );
    await c.waitFor(/HTTP\/1\.1 422 /);
    expect(c.open()).toBe(true);
    // Then nothing: the keep-alive timeout closes it (Node adds a second to what it announces).
    const idleFrom = Date.now();
    const closedAt = await c.waitClosed(KEEP_ALIVE_MS + 10_000);
    expect(closedAt - idleFrom).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 100);
    expect(closedAt - idleFrom).toBeLessThan(KEEP_ALIVE_MS + 4000);
  });

  it('lets a Prefer: wait longer than the idle timeout run to its deadline', async () => {
    const pad = (n: number) => String(n).padStart(12, '0');
    const started = Date.now();
    // No worker runs: the invoice stays pendiente and the answer comes at the deadline, after a
    // quiet connection twice the idle timeout long. `Connection: close`: the server ends the
    // connection with its answer, so none is left open for the connection cap's count below.
    const body = JSON.stringify({
      client_id: `cli_${pad(issuer.client.id)}`,
      lines: [{ service_id: `srv_${pad(issuer.consulting.id)}`, qty: 1 }],
    });
    const c = await open();
    c.write(
      requestHead('POST', '/api/v1/invoices', {
        Authorization: `Bearer ${issuer.key}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        Prefer: 'wait=6',
        Connection: 'close',
      }) + body,
    );
    const answer = await c.waitFor(/HTTP\/1\.1 201 [\s\S]*"status":"pendiente"/, 15_000);
    expect(answer).toMatch(/\r\npreference-applied: wait=6\r\n/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(6000 - 100);
    await c.waitClosed(5000);
  });

  it('closes connections past the cap on accept; established ones and /health keep working', async () => {
    // Established first: a health checker's keep-alive connection and an authenticated client's.
    const health = await open();
    health.write(requestHead('GET', '/health'));
    await health.waitFor(/HTTP\/1\.1 200 [\s\S]*"status":"ok"/);
    const client = await open();
    client.write(requestHead('GET', '/api/v1/clients', { Authorization: `Bearer ${key}` }));
    await client.waitFor(/HTTP\/1\.1 200 [\s\S]*"object":"list"/);

    // Then a crowd that connects and sends nothing, twice the cap.
    const crowdFrom = Date.now();
    const crowd = await Promise.all(Array.from({ length: CAP * 2 }, () => open()));
    // At most CAP - 2 of the crowd fit beside the two established connections: the rest, CAP + 2
    // at least, are closed on accept, within moments, long before the headers timeout would close
    // a connection that sends nothing. Counted once that many closes have arrived: a close
    // counted earlier may still be on its way to this side of the socket.
    const onAccept = HEADERS_TIMEOUT_MS - 500;
    const closedOnAccept = () =>
      crowd.filter((c) => !c.open() && c.closedAt()! - crowdFrom < onAccept).length;
    await waitFor(() => closedOnAccept() >= CAP + 2, onAccept, 20, 'the surplus closed on accept');
    const openNow = crowd.filter((c) => c.open()).length;
    expect(openNow).toBeLessThanOrEqual(CAP - 2);
    expect(openNow).toBeGreaterThan(0);

    // The established connections still answer, Postgres included.
    const before = health.received().length;
    health.write(requestHead('GET', '/health'));
    await waitFor(() => /HTTP\/1\.1 200 /.test(health.received().slice(before)), 5000, 10, '/health');
    const clientBefore = client.received().length;
    client.write(requestHead('GET', '/api/v1/clients', { Authorization: `Bearer ${key}` }));
    await waitFor(
      () => /HTTP\/1\.1 200 [\s\S]*"object":"list"/.test(client.received().slice(clientBefore)),
      5000,
      10,
      'an authenticated read',
    );

    // The silent connections that were let in are closed by the idle timeout, and then new
    // connections are accepted again.
    await Promise.all(crowd.filter((c) => c.open()).map((c) => c.waitClosed(IDLE_TIMEOUT_MS + 5000)));
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200,
      10_000,
      100,
      'a new connection to be served',
    );
  });
});
