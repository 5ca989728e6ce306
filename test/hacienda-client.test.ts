// The reception client's protocol against the simulator over real HTTP: token lifetimes and
// renewal (with a clock shared by both sides, so expiry is exact and instant), and how each HTTP
// answer ends — 401, 404, 400, 5xx, timeouts, refused connections and 429s.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createReceptionClient,
  createTokenManager,
  HaciendaAuthError,
  HaciendaRejectedError,
  HaciendaUnavailableError,
  HaciendaUnknownOutcomeError,
  submitAndConfirm,
} from '../hacienda/client/index.ts';
import {
  buildFactura,
  clientFor,
  EMISOR,
  fakeClock,
  signerFor,
  startSimulator,
  submission,
} from './helpers/hacienda-fixtures.ts';
import type { RunningSimulator } from './helpers/hacienda-fixtures.ts';

const UNKNOWN = '50622112600310112345600100001010000009999199999999';
// A port nothing listens on: bind, read it, close.
async function closedPort(): Promise<number> {
  const probe = await startSimulator();
  const port = Number(new URL(probe.origin).port);
  await probe.app.close();
  return port;
}

describe('token manager', () => {
  const clock = fakeClock();
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ now: clock.now, users: { emisor: 'clave-correcta' } });
  });
  afterAll(async () => {
    await sim.app.close();
  });
  beforeEach(() => {
    sim.app.simulator.configure({ tokenLifetimeSeconds: 300, refreshLifetimeSeconds: 1800 });
    sim.app.simulator.reset();
  });
  const manager = () =>
    createTokenManager({
      idpUrl: sim.sandbox.idpUrl,
      clientId: 'api-stag',
      username: 'emisor',
      password: 'clave-correcta',
      clock,
    });

  it('logs in once for concurrent callers and reuses the token', async () => {
    const tokens = manager();
    const all = await Promise.all(Array.from({ length: 10 }, () => tokens.getAccessToken()));
    expect(new Set(all).size).toBe(1);
    expect(await tokens.getAccessToken()).toBe(all[0]);
    expect(sim.app.simulator.counters().passwordGrants).toBe(1);
    expect(tokens.stats).toEqual({ logins: 1, refreshes: 0 });
  });

  it('refreshes 30 s before expiry, once for concurrent callers', async () => {
    const tokens = manager();
    const first = await tokens.getAccessToken();
    clock.advance(300_000 - 31_000);
    expect(await tokens.getAccessToken()).toBe(first);
    clock.advance(2_000);
    const renewed = await Promise.all(Array.from({ length: 5 }, () => tokens.getAccessToken()));
    expect(new Set(renewed).size).toBe(1);
    expect(renewed[0]).not.toBe(first);
    expect(sim.app.simulator.counters()).toMatchObject({ passwordGrants: 1, refreshGrants: 1 });
  });

  it('honours a short expires_in (renewing at half of it) and logs in again once the refresh token expired', async () => {
    sim.app.simulator.configure({ tokenLifetimeSeconds: 10, refreshLifetimeSeconds: 20 });
    const tokens = manager();
    const first = await tokens.getAccessToken();
    clock.advance(4_000);
    expect(await tokens.getAccessToken()).toBe(first);
    clock.advance(2_000);
    const second = await tokens.getAccessToken();
    expect(second).not.toBe(first);
    expect(tokens.stats).toEqual({ logins: 1, refreshes: 1 });
    clock.advance(60_000);
    expect(await tokens.getAccessToken()).not.toBe(second);
    expect(tokens.stats).toEqual({ logins: 2, refreshes: 1 });
    expect(sim.app.simulator.counters()).toMatchObject({
      passwordGrants: 2,
      refreshGrants: 1,
      invalidGrants: 0,
    });
  });

  it('logs in again when the IDP refuses the refresh token', async () => {
    const tokens = manager();
    await tokens.getAccessToken();
    sim.app.simulator.revokeTokens();
    clock.advance(280_000);
    await tokens.getAccessToken();
    expect(tokens.stats).toEqual({ logins: 2, refreshes: 1 });
    expect(sim.app.simulator.counters()).toMatchObject({
      refreshGrants: 1,
      invalidGrants: 1,
      passwordGrants: 2,
    });
  });

  it('reports refused credentials and clients as permanent auth errors', async () => {
    const bad = createTokenManager({
      idpUrl: sim.sandbox.idpUrl,
      clientId: 'api-stag',
      username: 'emisor',
      password: 'otra',
      clock,
    });
    const err = await bad.getAccessToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HaciendaAuthError);
    expect(err).toMatchObject({
      status: 401,
      error: 'invalid_grant',
      description: 'Invalid user credentials',
      retryable: false,
    });
    const wrongClient = createTokenManager({
      idpUrl: sim.sandbox.idpUrl,
      clientId: 'api-prod',
      username: 'emisor',
      password: 'clave-correcta',
      clock,
    });
    await expect(wrongClient.getAccessToken()).rejects.toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
  });

  it('reports an unreachable IDP as retryable', async () => {
    const port = await closedPort();
    const tokens = createTokenManager({
      idpUrl: `http://127.0.0.1:${port}/auth/realms/rut-stag/protocol/openid-connect/token`,
      clientId: 'api-stag',
      username: 'emisor',
      password: 'x',
      clock,
    });
    const err = await tokens.getAccessToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HaciendaUnavailableError);
    expect(err).toMatchObject({ reason: 'connection_refused', retryable: true });
  });
});

describe('reception client', () => {
  const clock = fakeClock();
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ now: clock.now });
  });
  afterAll(async () => {
    await sim.app.close();
  });
  beforeEach(() => {
    sim.app.simulator.configure({
      serverErrorRate: 0,
      timeoutRate: 0,
      rateLimitedRate: 0,
      storeOnFailureRate: 0.5,
      rateLimitPerWindow: 10_000,
    });
    sim.app.simulator.reset();
    clock.slept.length = 0;
  });

  async function signedDoc() {
    const built = buildFactura({
      number: Math.floor(Math.random() * 1e9) + 1,
      issuedAt: new Date(clock.now()),
    });
    return submission(built, await (await signerFor(EMISOR)).sign(built.xml));
  }

  it('answers an unknown clave with found: false and Hacienda’s cause, reading the rate-limit headers', async () => {
    const { client } = clientFor(sim, { clock });
    const s = await client.status(UNKNOWN);
    expect(s).toEqual({
      found: false,
      clave: UNKNOWN,
      errorCause: `No existe el recurso con Clave = [${UNKNOWN}]`,
    });
    expect(client.rateLimit()).toMatchObject({ limit: 10_000, remaining: expect.any(Number) as number });
    expect(client.rateLimit()?.resetAt).toBeGreaterThan(clock.now());
  });

  it('renews the token once on 401 and retries', async () => {
    const { client, tokens } = clientFor(sim, { clock });
    await client.status(UNKNOWN);
    sim.app.simulator.revokeTokens();
    const s = await client.status(UNKNOWN);
    expect(s.found).toBe(false);
    expect(sim.app.simulator.counters().unauthorized).toBe(1);
    expect(tokens.stats.logins).toBe(2);
  });

  it('gives up with an auth error when a fresh token is refused too', async () => {
    // Production-realm credentials against the sandbox API.
    const tokens = createTokenManager({
      idpUrl: `${sim.origin}/auth/realms/rut/protocol/openid-connect/token`,
      clientId: 'api-prod',
      username: 'emisor',
      password: 'x',
      clock,
    });
    const client = createReceptionClient({ apiUrl: sim.sandbox.apiUrl, tokens, clock });
    await expect(client.status(UNKNOWN)).rejects.toBeInstanceOf(HaciendaAuthError);
    expect(sim.app.simulator.counters().unauthorized).toBe(2);
  });

  it('turns a malformed request into a permanent rejection with X-Error-Cause', async () => {
    const { client } = clientFor(sim, { clock });
    const doc = await signedDoc();
    const err = await client.submit({ ...doc, clave: '506' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HaciendaRejectedError);
    expect(err).toMatchObject({
      status: 400,
      errorCause: 'El campo clave no es válido',
      validationException: true,
      retryable: false,
    });
  });

  it('reports a 5xx on POST as an unknown outcome, and retries a GET before giving up', async () => {
    const { client } = clientFor(sim, { clock });
    const doc = await signedDoc();
    sim.app.simulator.configure({ serverErrorRate: 1, storeOnFailureRate: 1 });
    const err = await client.submit(doc).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HaciendaUnknownOutcomeError);
    expect(err).toMatchObject({ reason: 'server_error', outcome: 'unknown', retryable: true });
    expect([500, 502, 503, 504]).toContain((err as HaciendaUnknownOutcomeError).status);

    const getErr = await client.status(doc.clave).catch((e: unknown) => e);
    expect(getErr).toBeInstanceOf(HaciendaUnavailableError);
    expect(clock.slept).toEqual([500, 1_000]);

    sim.app.simulator.configure({ serverErrorRate: 0 });
    // The gateway failed but the document was stored: polling finds it, nothing is re-sent.
    expect((await client.status(doc.clave)).found).toBe(true);
    expect(await submitAndConfirm(client, doc, { clock })).toEqual({
      outcome: 'received',
      via: 'duplicate',
      attempts: 1,
    });
  });

  it('reports a POST timeout as an unknown outcome; submitAndConfirm polls before re-sending', async () => {
    const { client } = clientFor(sim, { clock, postTimeoutMs: 200 });
    sim.app.simulator.configure({ timeoutRate: 1, storeOnFailureRate: 1 });
    const stored = await signedDoc();
    const err = await client.submit(stored).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HaciendaUnknownOutcomeError);
    expect(err).toMatchObject({ reason: 'timeout' });

    // Stored despite the timeout: confirmed by polling, no second POST.
    sim.app.simulator.configure({ timeoutRate: 0 });
    const before = sim.app.simulator.counters();
    expect(await submitAndConfirm(client, stored, { clock, pollFirst: true })).toEqual({
      outcome: 'received',
      via: 'status',
      attempts: 0,
    });
    expect(sim.app.simulator.counters()).toMatchObject({
      received: before.received,
      duplicates: before.duplicates,
    });
  });

  it('submitAndConfirm re-sends the same document when polling does not find it', async () => {
    let posts = 0;
    // The first POST is lost on the way (it times out before reaching Hacienda).
    const lossy = async (input: string, init?: RequestInit) => {
      if (init?.method === 'POST' && posts++ === 0)
        throw new DOMException('The operation timed out.', 'TimeoutError');
      return fetch(input, init);
    };
    const { client } = clientFor(sim, { clock, fetch: lossy });
    const lost = await signedDoc();
    const result = await submitAndConfirm(client, lost, { clock, pollDelaysMs: [10, 20] });
    expect(result).toEqual({ outcome: 'received', via: 'post', attempts: 2 });
    expect(clock.slept).toEqual([10, 20]);
    expect(sim.app.simulator.counters()).toMatchObject({ received: 1, duplicates: 0 });
  });

  it('reports a refused connection on POST as not received', async () => {
    const port = await closedPort();
    const { client } = clientFor(sim, { clock });
    const doc = await signedDoc();
    const offline = createReceptionClient({
      apiUrl: `http://127.0.0.1:${port}/recepcion-sandbox/v1`,
      tokens: { getAccessToken: async () => 'x', invalidate: () => {} },
      clock,
    });
    await expect(offline.submit(doc)).rejects.toMatchObject({
      reason: 'connection_refused',
      outcome: 'not_received',
    });
    expect((await client.status(doc.clave)).found).toBe(false);
  });

  it('waits as told by a 429 and retries a bounded number of times', async () => {
    const { client } = clientFor(sim, { clock });
    sim.app.simulator.configure({ rateLimitedRate: 1, retryAfterSeconds: 2 });
    const err = await client.status(UNKNOWN).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HaciendaUnavailableError);
    expect(err).toMatchObject({ reason: 'rate_limited', status: 429, retryAfterMs: 2_000 });
    expect(clock.slept).toEqual([2_000, 2_000, 2_000]);
  });

  it('paces itself on X-Ratelimit-Remaining 0 and waits for X-Ratelimit-Reset', async () => {
    sim.app.simulator.configure({ rateLimitPerWindow: 3, rateLimitWindowMs: 10_000 });
    const a = clientFor(sim, { clock, username: 'same-user' });
    const b = clientFor(sim, { clock, username: 'same-user' });
    for (let i = 0; i < 7; i++) expect((await a.client.status(UNKNOWN)).found).toBe(false);
    expect(sim.app.simulator.counters().rateLimited).toBe(0);
    expect(clock.slept.length).toBeGreaterThanOrEqual(2);
    // Another process of the same user spends a fresh window: a real 429 tells the next one to wait.
    clock.advance(10_000 - (clock.now() % 10_000));
    for (let i = 0; i < 3; i++) await b.client.status(UNKNOWN);
    clock.slept.length = 0;
    const c = clientFor(sim, { clock, username: 'same-user' });
    expect((await c.client.status(UNKNOWN)).found).toBe(false);
    expect(sim.app.simulator.counters().rateLimited).toBe(1);
    expect(clock.slept).toEqual([10_000]);
  });
});
