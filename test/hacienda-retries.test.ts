// The client's short in-process retries (p-retry), against the simulator over real HTTP: a status
// GET answered 5xx is asked again with doubling waits; a POST whose connection was never made is
// sent again; a POST that timed out or got a 5xx is not (its outcome is unknown: the clave is
// polled first, and then nothing is sent twice); a token grant the IDP did not answer is tried
// again, one it refused is not. Waits go through a fake clock, so nothing here really waits.
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createReceptionClient,
  createTokenManager,
  HaciendaAuthError,
  HaciendaUnavailableError,
  HaciendaUnknownOutcomeError,
  submitAndConfirm,
} from '../hacienda/client/index.ts';
import { buildSimulator } from '../simulator/app.ts';
import {
  buildFactura,
  clientFor,
  EMISOR,
  fakeClock,
  signerFor,
  startSimulator,
  submission,
  type RunningSimulator,
} from './helpers/hacienda-fixtures.ts';

const UNKNOWN = '50622112600310112345600100001010000009999199999999';

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const probe = await buildSimulator();
  await probe.listen({ port: 0, host: '127.0.0.1' });
  const { port } = probe.server.address() as AddressInfo;
  await probe.close();
  return port;
}

describe('in-process retries', () => {
  const clock = fakeClock();
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ now: clock.now });
  });
  afterAll(async () => {
    await sim.app.close();
  });
  beforeEach(() => {
    sim.app.simulator.configure({ serverErrorRate: 0, timeoutRate: 0, storeOnFailureRate: 1 });
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

  it('asks a status again after a 5xx and gets the answer once Hacienda recovers', async () => {
    // The fault lasts until the first wait: the retry finds Hacienda answering.
    const healing = {
      ...clock,
      sleep: async (ms: number) => {
        sim.app.simulator.configure({ serverErrorRate: 0 });
        await clock.sleep(ms);
      },
    };
    const { client } = clientFor(sim, { clock: healing });
    sim.app.simulator.configure({ serverErrorRate: 1 });
    expect(await client.status(UNKNOWN)).toMatchObject({ found: false });
    expect(sim.app.simulator.counters().injectedServerErrors).toBe(1);
    expect(clock.slept).toEqual([500]);
  });

  it('gives a status up after its budget: three GETs, waits of 500 and 1,000 ms', async () => {
    const { client } = clientFor(sim, { clock });
    sim.app.simulator.configure({ serverErrorRate: 1 });
    const err = await client.status(UNKNOWN).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HaciendaUnavailableError);
    expect(err).toMatchObject({ reason: 'server_error' });
    expect(sim.app.simulator.counters().injectedServerErrors).toBe(3);
    expect(clock.slept).toEqual([500, 1_000]);
  });

  it('never sends a timed-out POST again blindly: one POST, then the status check finds it', async () => {
    const { client } = clientFor(sim, { clock, postTimeoutMs: 200 });
    const doc = await signedDoc();
    sim.app.simulator.configure({ timeoutRate: 1 });
    const err = await client.submit(doc).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HaciendaUnknownOutcomeError);
    expect(err).toMatchObject({ reason: 'timeout' });
    expect(sim.app.simulator.counters().injectedTimeouts).toBe(1);
    expect(clock.slept).toEqual([]);
    sim.app.simulator.configure({ timeoutRate: 0 });
    expect(await submitAndConfirm(client, doc, { clock, pollFirst: true })).toEqual({
      outcome: 'received',
      via: 'status',
      attempts: 0,
    });
    expect(sim.app.simulator.counters()).toMatchObject({ injectedTimeouts: 1, duplicates: 0 });
  });

  it('never sends a POST answered 5xx again in process', async () => {
    const { client } = clientFor(sim, { clock });
    const doc = await signedDoc();
    sim.app.simulator.configure({ serverErrorRate: 1 });
    await expect(client.submit(doc)).rejects.toBeInstanceOf(HaciendaUnknownOutcomeError);
    expect(sim.app.simulator.counters().injectedServerErrors).toBe(1);
    expect(clock.slept).toEqual([]);
  });

  it('sends a POST again when its connection was refused, and it arrives once', async () => {
    // The reception API is reached through a port where nothing listens until the first wait,
    // when a plain TCP forwarder to the simulator opens there (the IDP is reachable throughout).
    const port = await freePort();
    const simPort = Number(new URL(sim.origin).port);
    const forwarder = net.createServer((socket) => {
      const upstream = net.connect(simPort, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    const comingUp = {
      ...clock,
      sleep: async (ms: number) => {
        if (!forwarder.listening) await new Promise<void>((res) => forwarder.listen(port, '127.0.0.1', res));
        await clock.sleep(ms);
      },
    };
    try {
      const { tokens } = clientFor(sim, { clock });
      const client = createReceptionClient({
        apiUrl: `http://127.0.0.1:${port}/recepcion-sandbox/v1`,
        tokens,
        clock: comingUp,
      });
      const doc = await signedDoc();
      expect(await client.submit(doc)).toMatchObject({ outcome: 'received', duplicate: false });
      expect(clock.slept).toEqual([500]);
      expect(sim.app.simulator.counters()).toMatchObject({ received: 1, duplicates: 0 });
    } finally {
      forwarder.close();
    }
  });

  it('tries a token grant again when the IDP could not be reached, not when it refused', async () => {
    const port = await freePort();
    const late = await buildSimulator({ processingDelayMs: 0, now: clock.now, users: { emisor: 'bien' } });
    const comingUp = {
      ...clock,
      sleep: async (ms: number) => {
        if (!late.server.listening) await late.listen({ port, host: '127.0.0.1' });
        await clock.sleep(ms);
      },
    };
    const idpUrl = `http://127.0.0.1:${port}/auth/realms/rut-stag/protocol/openid-connect/token`;
    try {
      const tokens = createTokenManager({
        idpUrl,
        clientId: 'api-stag',
        username: 'emisor',
        password: 'bien',
        clock: comingUp,
      });
      expect(await tokens.getAccessToken()).toEqual(expect.any(String));
      expect(clock.slept).toEqual([500]);
      expect(late.simulator.counters().passwordGrants).toBe(1);

      clock.slept.length = 0;
      const wrong = createTokenManager({
        idpUrl,
        clientId: 'api-stag',
        username: 'emisor',
        password: 'mal',
        clock,
      });
      await expect(wrong.getAccessToken()).rejects.toBeInstanceOf(HaciendaAuthError);
      expect(clock.slept).toEqual([]);
    } finally {
      await late.close();
    }
  });

  it('gives an unreachable IDP up after its budget', async () => {
    const port = await freePort();
    const tokens = createTokenManager({
      idpUrl: `http://127.0.0.1:${port}/auth/realms/rut-stag/protocol/openid-connect/token`,
      clientId: 'api-stag',
      username: 'emisor',
      password: 'x',
      clock,
    });
    await expect(tokens.getAccessToken()).rejects.toMatchObject({ reason: 'connection_refused' });
    expect(clock.slept).toEqual([500, 1_000]);
  });
});
