// Connection reuse, counted on real local HTTP servers: webhook deliveries to one receiver share a
// kept-alive connection, a live endpoint's host resolving to a private address is still refused at
// connect time (even with a pooled connection to that very address open), a pooled connection the
// receiver dropped is replaced once; the Hacienda client's token and reception calls reuse their
// connections to the simulator.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeWebhookConnections, postWebhook } from '../jobs/webhooks/http.ts';
import { TransportFailure } from '../hacienda/client/http.ts';
import { nodeTransport } from '../hacienda/client/node-transport.ts';
import { clientFor, startSimulator, type RunningSimulator } from './helpers/hacienda-fixtures.ts';

interface CountingServer {
  port: number;
  connections: number;
  requests: number;
  /** What to do with the n-th request (0-based): answer it, or drop its connection unanswered. */
  handle: (n: number) => 'answer' | 'drop';
  close(): Promise<void>;
}

async function countingServer(): Promise<CountingServer> {
  const s: CountingServer = {
    port: 0,
    connections: 0,
    requests: 0,
    handle: () => 'answer',
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  const server = http.createServer((req, res) => {
    const n = s.requests++;
    req.resume();
    req.on('end', () => {
      if (s.handle(n) === 'drop') return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', () => (s.connections += 1));
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  s.port = (server.address() as AddressInfo).port;
  return s;
}

const post = (url: string, publicOnly: boolean) =>
  postWebhook({
    url,
    body: '{"id":"evt_000000000001","event":"client.created","data":{}}',
    headers: { 'content-type': 'application/json' },
    timeoutMs: 5_000,
    publicOnly,
  });

describe('webhook deliveries', () => {
  let server: CountingServer;
  beforeAll(async () => {
    server = await countingServer();
  });
  afterEach(() => {
    // Every test starts without pooled connections.
    closeWebhookConnections();
    server.handle = () => 'answer';
  });
  afterAll(async () => {
    await server.close();
  });

  it('several deliveries to one receiver reuse one connection', async () => {
    const before = server.connections;
    for (let i = 0; i < 6; i++) {
      const r = await post(`http://127.0.0.1:${server.port}/hook`, false);
      expect(r).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'ok' });
    }
    expect(server.requests).toBeGreaterThanOrEqual(6);
    expect(server.connections - before).toBe(1);
  });

  it('refuses a public-only (live) delivery to a name resolving to a private address, pooled connection or not', async () => {
    // A sandbox delivery to the same host and port leaves a pooled connection to 127.0.0.1 behind.
    const sandbox = await post(`http://localhost:${server.port}/hook`, false);
    expect(sandbox.statusCode).toBe(200);
    const [connections, requests] = [server.connections, server.requests];
    for (const url of [`http://localhost:${server.port}/hook`, `https://localhost:${server.port}/hook`]) {
      const live = await post(url, true);
      expect(live.statusCode).toBeNull();
      expect(live.error).toMatch(/localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);
    }
    // Nothing reached the receiver: no new connection, no request on the pooled one.
    expect(server.connections).toBe(connections);
    expect(server.requests).toBe(requests);
  });

  it('sends again, once, on a new connection when the receiver dropped the pooled one', async () => {
    const first = server.requests;
    expect((await post(`http://127.0.0.1:${server.port}/hook`, false)).statusCode).toBe(200);
    const connections = server.connections;
    // The next request on the pooled connection is dropped unanswered; the one after is answered.
    server.handle = (n) => (n === first + 1 ? 'drop' : 'answer');
    const r = await post(`http://127.0.0.1:${server.port}/hook`, false);
    expect(r).toMatchObject({ statusCode: 200, error: null });
    expect(server.requests - first).toBe(3);
    expect(server.connections - connections).toBe(1);
  });

  it('does not send again when a new connection is dropped (the outcome is the failure)', async () => {
    const first = server.requests;
    server.handle = (n) => (n === first ? 'drop' : 'answer');
    const r = await post(`http://127.0.0.1:${server.port}/hook`, false);
    expect(r.statusCode).toBeNull();
    expect(r.error).toMatch(/ECONNRESET/);
    expect(server.requests - first).toBe(1);
  });
});

describe('Hacienda client', () => {
  let sim: RunningSimulator;
  let connections = 0;
  beforeAll(async () => {
    sim = await startSimulator();
    sim.app.server.on('connection', () => (connections += 1));
  });
  afterAll(async () => {
    await sim.app.close();
  });

  it("token and reception calls reuse kept-alive connections (the node transport's pool), not one per call", async () => {
    const { client } = clientFor(sim);
    const before = connections;
    for (let i = 0; i < 10; i++) {
      const s = await client.status(`5062211260031011234560010000101000000${9990 + i}199999999`);
      expect(s.found).toBe(false);
    }
    // One password grant and ten GETs, one after another, over at most two connections: the pool
    // may open a second while the grant's connection is being released, then uses both.
    expect(sim.app.simulator.counters().passwordGrants).toBe(1);
    expect(connections - before).toBeGreaterThanOrEqual(1);
    expect(connections - before).toBeLessThanOrEqual(2);
  });
});

describe('Hacienda transport (node:http, keep-alive)', () => {
  let server: CountingServer;
  beforeAll(async () => {
    server = await countingServer();
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => {
    server.handle = () => 'answer';
  });

  const failureOf = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TransportFailure);
    return (err as TransportFailure).kind;
  };

  it('reads status, headers and body, and reuses one connection for requests in a row', async () => {
    const before = server.connections;
    for (let i = 0; i < 5; i++) {
      const res = await nodeTransport(
        `http://127.0.0.1:${server.port}/recepcion`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
        5_000,
      );
      expect(res.status).toBe(200);
      expect(res.text).toBe('ok');
      expect(res.headers.get('Content-Type')).toBe('text/plain');
      expect(res.headers.get('x-missing')).toBeNull();
    }
    expect(server.connections - before).toBe(1);
  });

  it('calls a request that reached the server and got no answer a network failure (it may have arrived)', async () => {
    server.handle = () => 'drop';
    const kind = await failureOf(
      nodeTransport(`http://127.0.0.1:${server.port}/x`, { method: 'POST', headers: {}, body: '{}' }, 5_000),
    );
    expect(kind).toBe('network');
  });

  it('calls a refused connection refused (nothing was sent) and a slow answer a timeout', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(
      await failureOf(nodeTransport(`http://127.0.0.1:${port}/`, { method: 'GET', headers: {} }, 5_000)),
    ).toBe('refused');
    const slow = http.createServer(() => undefined); // never answers
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`;
      expect(await failureOf(nodeTransport(url, { method: 'GET', headers: {} }, 200))).toBe('timeout');
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});
