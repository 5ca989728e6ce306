// Runs of many signed documents through the client while the simulator injects faults: a 30% 5xx
// storm, hanging requests, 429s, and tokens expiring and being revoked mid-run. Every run must end
// with each document in its right terminal state, each clave stored once, and nothing accepted twice.
import { afterEach, describe, expect, it } from 'vitest';
import { HaciendaError, submitAndConfirm } from '../hacienda/client/index.ts';
import type { Clock, Confirmed, ReceptionClient, SubmitDocument } from '../hacienda/client/index.ts';
import {
  buildFactura,
  clientFor,
  EMISOR,
  fakeClock,
  pollUntilTerminal,
  replaceElementText,
  signerFor,
  startSimulator,
  submission,
} from './helpers/hacienda-fixtures.ts';
import type { RunningSimulator } from './helpers/hacienda-fixtures.ts';

let sim: RunningSimulator | null = null;
afterEach(async () => {
  await sim?.app.close();
  sim = null;
});

interface Case {
  doc: SubmitDocument;
  expected: 'aceptado' | 'rechazado';
}

let number = 1;
/** `count` documents; every `badEvery`-th one has a wrong total (so it must end rechazado). */
async function documents(count: number, badEvery: number, issuedAt = new Date()): Promise<Case[]> {
  const signer = await signerFor(EMISOR);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const built = buildFactura({ number: number++, issuedAt });
      const bad = badEvery > 0 && i % badEvery === badEvery - 1;
      const xml = bad ? replaceElementText(built.xml, 'TotalComprobante', '1.00000') : built.xml;
      return { doc: submission(built, await signer.sign(xml)), expected: bad ? 'rechazado' : 'aceptado' };
    }),
  );
}

/** What a durable job does: submit (polling before any re-send), retrying what is retryable. */
async function deliver(client: ReceptionClient, doc: SubmitDocument, clock?: Clock): Promise<Confirmed> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      return await submitAndConfirm(client, doc, {
        pollDelaysMs: [10, 20, 40],
        pollFirst: attempt > 0,
        ...(clock ? { clock } : {}),
      });
    } catch (err) {
      if (!(err instanceof HaciendaError) || !err.retryable) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  throw new Error(`${doc.clave} not delivered`);
}

async function runAll(client: ReceptionClient, cases: Case[], concurrency: number, clock?: Clock) {
  const states = new Map<string, string>();
  const via: Confirmed['via'][] = [];
  const queue = [...cases];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        via.push((await deliver(client, c.doc, clock)).via);
        const s = await pollUntilTerminal(client, c.doc.clave, 20_000);
        states.set(c.doc.clave, s.found ? s.state : 'missing');
      }
    }),
  );
  return { states, via };
}

function expectRightEnds(s: RunningSimulator, cases: Case[], states: Map<string, string>) {
  for (const c of cases) expect(states.get(c.doc.clave), c.doc.clave).toBe(c.expected);
  const counters = s.app.simulator.counters();
  const docs = s.app.simulator.documents();
  // Each clave stored exactly once, no consecutivo rejected as reused, nothing accepted twice.
  expect(counters.received).toBe(cases.length);
  expect(new Set(docs.map((d) => d.clave)).size).toBe(cases.length);
  expect(docs.flatMap((d) => d.rows).filter((r) => r.code === -99)).toEqual([]);
  expect(counters.accepted).toBe(cases.filter((c) => c.expected === 'aceptado').length);
  expect(counters.rejected).toBe(cases.filter((c) => c.expected === 'rechazado').length);
  return counters;
}

describe('fault injection', () => {
  it('a 30% 5xx storm: every document ends in its right state, none accepted twice', async () => {
    sim = await startSimulator({
      serverErrorRate: 0.3,
      storeOnFailureRate: 0.5,
      processingDelayMs: 30,
      seed: 7,
    });
    const { client } = clientFor(sim, { statusRetryDelayMs: 5 });
    const cases = await documents(30, 6);
    const { states, via } = await runAll(client, cases, 6);
    const counters = expectRightEnds(sim, cases, states);
    expect(counters.injectedServerErrors).toBeGreaterThan(10);
    // Some failed POSTs had stored their document anyway: the status check found them.
    expect(via).toContain('status');
  }, 60_000);

  it('hanging requests: unknown outcomes are polled, then the same document re-sent', async () => {
    sim = await startSimulator({ timeoutRate: 0.2, storeOnFailureRate: 0.5, timeoutHangMs: 5_000, seed: 11 });
    const { client } = clientFor(sim, { postTimeoutMs: 250, getTimeoutMs: 250, statusRetryDelayMs: 5 });
    let posts = 0;
    const counting: ReceptionClient = { ...client, submit: (doc) => (posts++, client.submit(doc)) };
    const cases = await documents(24, 4);
    const { states, via } = await runAll(counting, cases, 4);
    const counters = expectRightEnds(sim, cases, states);
    expect(counters.injectedTimeouts).toBeGreaterThan(0);
    // A POST that hung was resolved by polling (found) or by sending the same document again.
    expect(via.includes('status') || posts > cases.length).toBe(true);
  }, 60_000);

  it('429s with Retry-After and X-Ratelimit-Reset: the client waits as told', async () => {
    const clock = fakeClock();
    sim = await startSimulator({
      now: clock.now,
      rateLimitedRate: 0.3,
      retryAfterSeconds: 1,
      rateLimitPerWindow: 4,
      rateLimitWindowMs: 1_000,
      seed: 3,
    });
    const { client } = clientFor(sim, { clock, maxRateLimitRetries: 10 });
    const cases = await documents(15, 5, new Date(clock.now()));
    const { states } = await runAll(client, cases, 1, clock);
    const counters = expectRightEnds(sim, cases, states);
    expect(counters.injectedRateLimits).toBeGreaterThan(0);
    // One wait per 429 (Retry-After: 1) plus waits for spent windows (until X-Ratelimit-Reset),
    // none longer than the server asked for.
    const poll = 10 + 20 + 40; // submitAndConfirm's own status polling, if any
    const told = clock.slept.filter((ms) => ms > 0 && ms <= 1_000 && ms !== 10 && ms !== 20 && ms !== 40);
    expect(told.length).toBeGreaterThanOrEqual(counters.injectedRateLimits + counters.rateLimited);
    expect(told.length).toBeGreaterThan(counters.injectedRateLimits); // some waits were for spent windows
    expect(Math.max(...clock.slept)).toBeLessThanOrEqual(Math.max(1_000, poll));
  }, 60_000);

  it('tokens expiring and revoked mid-run: renewed, re-logged in, and the run completes', async () => {
    const clock = fakeClock();
    sim = await startSimulator({ now: clock.now, tokenLifetimeSeconds: 2, refreshLifetimeSeconds: 3 });
    const { client, tokens } = clientFor(sim, { clock });
    const cases = await documents(12, 4, new Date(clock.now()));
    const states = new Map<string, string>();
    for (const [i, c] of cases.entries()) {
      expect((await deliver(client, c.doc, clock)).via).toBe('post');
      const s = await pollUntilTerminal(client, c.doc.clave);
      states.set(c.doc.clave, s.found ? s.state : 'missing');
      clock.advance(700); // tokens age while the run goes on
      if (i === 5) clock.advance(5_000); // a pause longer than the refresh token lives
      if (i === 8) sim.app.simulator.revokeTokens(); // the IDP drops every session
    }
    const counters = expectRightEnds(sim, cases, states);
    expect(counters.refreshGrants).toBeGreaterThanOrEqual(3);
    expect(counters.passwordGrants).toBe(3); // first login, after the pause, after the revocation
    expect(counters.unauthorized).toBe(1); // the revoked token, renewed once and retried
    expect(tokens.stats.logins).toBe(3);
  }, 60_000);
});
