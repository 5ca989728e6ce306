// /ready answers at once whatever its dependencies do: a real API process (api/server.ts) whose
// private redis-server the test freezes (SIGSTOP) and whose Postgres connections go through a TCP
// proxy the test stops forwarding. Every /ready answers within 100 ms while they hang, and says
// what it found: `degraded` (200) once Redis has not answered, 503 once Postgres has not; both
// `ready` again once they answer.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { freePort, freePortIn, startApiProcess, startRedisServer, stopProcess } from './helpers/processes.ts';

/** What a health checker with a short timeout must always get. */
const ANSWER_WITHIN_MS = 100;

/** A TCP proxy to Postgres that can stop forwarding (both ways), holding the connections open. */
interface HangingProxy {
  port: number;
  hang(): void;
  resume(): void;
  close(): Promise<void>;
}

async function startProxy(target: { host: string; port: number }): Promise<HangingProxy> {
  const sockets = new Set<Socket>();
  let hanging = false;
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
    if (hanging) s.pause();
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target);
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    hang() {
      hanging = true;
      for (const s of sockets) s.pause();
    },
    resume() {
      hanging = false;
      for (const s of sockets) s.resume();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let database: TestDatabase;
let redis: ChildProcess;
let proxy: HangingProxy;
let api: ChildProcess;
let base: string;

/** /ready, timed from the request to the end of the answer. */
async function timedReady(): Promise<{ ms: number; status: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const res = await fetch(`${base}/ready`, { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as Record<string, unknown>;
  return { ms: performance.now() - started, status: res.status, body };
}

/** Asks /ready every 100 ms until `done` holds; every answer must come within ANSWER_WITHIN_MS. */
async function pollReady(
  done: (r: Awaited<ReturnType<typeof timedReady>>) => boolean,
  timeoutMs: number,
): Promise<{ answers: number; slowest: number; last: Awaited<ReturnType<typeof timedReady>> }> {
  const deadline = Date.now() + timeoutMs;
  let answers = 0;
  let slowest = 0;
  for (;;) {
    const r = await timedReady();
    answers += 1;
    slowest = Math.max(slowest, r.ms);
    expect(r.ms, `/ready answer ${answers} (${JSON.stringify(r.body)})`).toBeLessThan(ANSWER_WITHIN_MS);
    if (done(r)) return { answers, slowest, last: r };
    if (Date.now() > deadline) throw new Error(`no matching /ready within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  const redisPort = await freePortIn(5500, 5599);
  redis = await startRedisServer(redisPort);
  const pgUrl = new URL(database.url);
  proxy = await startProxy({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  pgUrl.port = String(proxy.port);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  api = await startApiProcess(
    {
      DATABASE_URL: pgUrl.toString(),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      QUEUE_PREFIX: `{t-hang-${randomBytes(3).toString('hex')}}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      USAGE_FLUSH_MS: '3600000',
    },
    port,
  );
  // The test's own first request opens its connection and warms its HTTP client: not timed.
  await timedReady();
});

afterAll(async () => {
  redis?.kill('SIGCONT');
  proxy?.resume();
  if (api) await stopProcess(api);
  if (redis) await stopProcess(redis, 'SIGKILL');
  await proxy?.close();
  await database?.drop();
});

describe('/ready while a dependency hangs', () => {
  it('Redis frozen (SIGSTOP): every answer within 100 ms, degraded, then ready after SIGCONT', async () => {
    expect((await pollReady((r) => r.body.status === 'ready', 10_000)).last.status).toBe(200);
    redis.kill('SIGSTOP');
    try {
      const frozen = await pollReady(
        (r) => (r.body.checks as Record<string, string> | undefined)?.redis === 'unavailable',
        15_000,
      );
      expect(frozen.last).toMatchObject({
        status: 200,
        body: { status: 'degraded', checks: { postgres: 'ok', redis: 'unavailable' } },
      });
      // Still frozen three seconds later: still answered at once, still degraded.
      const until = Date.now() + 3000;
      const later = await pollReady((r) => Date.now() > until || r.body.status !== 'degraded', 10_000);
      expect(later.last.body.status).toBe('degraded');
      expect(later.answers).toBeGreaterThan(5);
    } finally {
      redis.kill('SIGCONT');
    }
    await pollReady((r) => r.body.status === 'ready', 15_000);
  }, 60_000);

  it('Postgres stops answering (a proxy that stops forwarding): within 100 ms, 503, then ready', async () => {
    proxy.hang();
    try {
      const hung = await pollReady((r) => r.status === 503, 15_000);
      expect(hung.last.body).toMatchObject({
        code: 'service_unavailable',
        checks: { postgres: 'unavailable', redis: 'ok' },
      });
    } finally {
      proxy.resume();
    }
    const back = await pollReady((r) => r.status === 200, 15_000);
    expect(back.last.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  }, 60_000);
});
