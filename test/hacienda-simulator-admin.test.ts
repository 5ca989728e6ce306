// The simulator's own surface: the IDP's answers, the reception API's edge cases, the
// X-Ratelimit-* headers, the /_simulator admin endpoints, knob validation, the environment
// parsing of the standalone process, and the repeatability of the seeded fault injector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSimulator } from '../simulator/app.ts';
import type { SimulatorApp } from '../simulator/app.ts';
import { knobEnvName, loadSimulatorConfig, SimulatorConfigError } from '../simulator/config.ts';
import { DEFAULT_KNOBS } from '../simulator/knobs.ts';
import { buildFactura, EMISOR, signerFor, submission } from './helpers/hacienda-fixtures.ts';

const TOKEN_STAG = '/auth/realms/rut-stag/protocol/openid-connect/token';
const TOKEN_PROD = '/auth/realms/rut/protocol/openid-connect/token';
const form = (o: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(o).toString(),
});

let app: SimulatorApp;
beforeAll(async () => {
  app = await buildSimulator({ processingDelayMs: 0, users: { emisor: 'pw' } });
});
afterAll(async () => {
  await app.close();
});

async function token(path = TOKEN_STAG, clientId = 'api-stag'): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: path,
    ...form({ grant_type: 'password', client_id: clientId, username: 'emisor', password: 'pw' }),
  });
  expect(res.statusCode).toBe(200);
  return (res.json() as { access_token: string }).access_token;
}

describe('IDP', () => {
  it('issues Keycloak-shaped tokens with lifetimes', async () => {
    const res = await app.inject({
      method: 'POST',
      url: TOKEN_STAG,
      ...form({ grant_type: 'password', client_id: 'api-stag', username: 'emisor', password: 'pw' }),
    });
    expect(res.json()).toMatchObject({
      token_type: 'Bearer',
      expires_in: DEFAULT_KNOBS.tokenLifetimeSeconds,
      refresh_expires_in: DEFAULT_KNOBS.refreshLifetimeSeconds,
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) as string,
    });
    expect(res.headers['x-ratelimit-limit']).toBe(String(DEFAULT_KNOBS.rateLimitPerWindow));
  });

  it('answers bad requests as Keycloak does', async () => {
    const post = (url: string, o: Record<string, string>) => app.inject({ method: 'POST', url, ...form(o) });
    expect((await post('/auth/realms/otro/protocol/openid-connect/token', {})).statusCode).toBe(404);
    const noGrant = await post(TOKEN_STAG, { client_id: 'api-stag' });
    expect([noGrant.statusCode, noGrant.json()]).toEqual([
      400,
      { error: 'invalid_request', error_description: 'Missing form parameter: grant_type' },
    ]);
    const other = await post(TOKEN_STAG, { client_id: 'api-stag', grant_type: 'client_credentials' });
    expect([other.statusCode, other.json<{ error: string }>().error]).toEqual([
      400,
      'unsupported_grant_type',
    ]);
    const badRefresh = await post(TOKEN_STAG, {
      client_id: 'api-stag',
      grant_type: 'refresh_token',
      refresh_token: 'x',
    });
    expect([badRefresh.statusCode, badRefresh.json()]).toEqual([
      400,
      { error: 'invalid_grant', error_description: 'Token is not active' },
    ]);
    const logout = await post('/auth/realms/rut-stag/protocol/openid-connect/logout', {
      client_id: 'api-stag',
    });
    expect(logout.statusCode).toBe(204);
  });

  it('keeps realms apart: a production token does not open the sandbox API', async () => {
    const prod = await token(TOKEN_PROD, 'api-prod');
    const url = `/recepcion-sandbox/v1/recepcion/${'5'.repeat(50)}`;
    const res = await app.inject({ url, headers: { authorization: `Bearer ${prod}` } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="rut-stag"/);
    const ok = await app.inject({
      url: `/recepcion/v1/recepcion/${'5'.repeat(50)}`,
      headers: { authorization: `Bearer ${prod}` },
    });
    expect(ok.statusCode).toBe(404);
  });
});

describe('reception API edges', () => {
  it('refuses a body that is not JSON with X-Error-Cause and validation-exception', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/recepcion-sandbox/v1/recepcion',
      headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' },
      payload: '{"clave": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-error-cause']).toBeTruthy();
    expect(res.headers['validation-exception']).toBe('true');
    expect(res.headers['x-ratelimit-remaining']).toBeDefined();
  });

  it('carries X-Ratelimit-* on 401 and 404 answers too', async () => {
    const anon = await app.inject({ url: `/recepcion-sandbox/v1/recepcion/${'1'.repeat(50)}` });
    const missing = await app.inject({
      url: `/recepcion-sandbox/v1/recepcion/${'1'.repeat(50)}`,
      headers: { authorization: `Bearer ${await token()}` },
    });
    for (const res of [anon, missing]) {
      expect(Number(res.headers['x-ratelimit-limit'])).toBe(DEFAULT_KNOBS.rateLimitPerWindow);
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    }
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['x-error-cause']).toBe(`No existe el recurso con Clave = [${'1'.repeat(50)}]`);
  });
});

describe('admin endpoints', () => {
  it('reads and changes knobs, refusing invalid ones', async () => {
    const before = (await app.inject({ url: '/_simulator/config' })).json<typeof DEFAULT_KNOBS>();
    expect(before).toMatchObject({ ...DEFAULT_KNOBS, processingDelayMs: 0 });
    const changed = await app.inject({
      method: 'POST',
      url: '/_simulator/config',
      payload: { latencyMs: 5, serverErrorRate: 0 },
    });
    expect(changed.json()).toMatchObject({ latencyMs: 5, serverErrorRate: 0 });
    expect(app.simulator.knobs().latencyMs).toBe(5);
    const bad = await app.inject({
      method: 'POST',
      url: '/_simulator/config',
      payload: { serverErrorRate: 2, nope: 1 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      errors: ['serverErrorRate: expected a share between 0 and 1', 'nope: unknown knob'],
    });
    app.simulator.configure({ latencyMs: 0 });
  });

  it('lists documents with their state and reasons, and forgets them on DELETE', async () => {
    const built = buildFactura({ number: 424242 });
    const signed = await (await signerFor(EMISOR)).sign(built.xml);
    const auth = { authorization: `Bearer ${await token()}` };
    const post = () =>
      app.inject({
        method: 'POST',
        url: '/recepcion-sandbox/v1/recepcion',
        headers: auth,
        payload: submission(built, signed),
      });
    expect((await post()).statusCode).toBe(202);
    await app.simulator.idle();
    const list = (await app.inject({ url: '/_simulator/documents?state=aceptado' })).json<{
      count: number;
      counters: { received: number; accepted: number };
      documents: { clave: string; state: string; environment: string; rows: unknown[] }[];
    }>();
    expect(list.count).toBe(1);
    expect(list.documents[0]).toMatchObject({
      clave: built.clave,
      state: 'aceptado',
      environment: 'sandbox',
      rows: [],
    });
    expect(list.counters).toMatchObject({ received: 1, accepted: 1 });
    expect(
      (await app.inject({ url: '/_simulator/documents?state=rechazado' })).json<{ count: number }>().count,
    ).toBe(0);

    expect((await app.inject({ method: 'DELETE', url: '/_simulator/documents' })).statusCode).toBe(204);
    expect((await app.inject({ url: '/_simulator/stats' })).json()).toMatchObject({
      received: 0,
      accepted: 0,
    });
    // Forgotten: the same clave is a new document again.
    expect((await post()).statusCode).toBe(202);
  });

  it('delays IDP and API answers by latencyMs, but not its own endpoints', async () => {
    app.simulator.configure({ latencyMs: 150 });
    try {
      const timed = async (url: string) => {
        const t = performance.now();
        await app.inject({ url });
        return performance.now() - t;
      };
      expect(await timed(`/recepcion-sandbox/v1/recepcion/${'4'.repeat(50)}`)).toBeGreaterThanOrEqual(145);
      expect(await timed('/_simulator/stats')).toBeLessThan(145);
    } finally {
      app.simulator.configure({ latencyMs: 0 });
    }
  });

  it('revokes every token', async () => {
    const t = await token();
    const url = `/recepcion-sandbox/v1/recepcion/${'2'.repeat(50)}`;
    expect((await app.inject({ url, headers: { authorization: `Bearer ${t}` } })).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: '/_simulator/tokens/revoke' })).statusCode).toBe(204);
    expect((await app.inject({ url, headers: { authorization: `Bearer ${t}` } })).statusCode).toBe(401);
  });
});

describe('configuration', () => {
  it('refuses invalid knobs at build time', async () => {
    await expect(buildSimulator({ timeoutRate: 1.5 })).rejects.toThrow(
      /timeoutRate: expected a share between 0 and 1/,
    );
  });

  it('reads knobs, users, host and port from SIMULATOR_* variables', () => {
    expect(knobEnvName('processingDelayMs')).toBe('SIMULATOR_PROCESSING_DELAY_MS');
    const c = loadSimulatorConfig({
      SIMULATOR_PROCESSING_DELAY_MS: '250',
      SIMULATOR_SERVER_ERROR_RATE: '0.3',
      SIMULATOR_CHECK_SCHEMA: 'false',
      SIMULATOR_USERS: 'a:b,c:d:e',
      SIMULATOR_PORT: '7401',
      XSD_DIR: '/srv/xsd',
      NODE_ENV: 'test',
    });
    const { cabysCatalogue, cabysSource, ...rest } = c;
    // Without SIMULATOR_CABYS_FILE the simulator checks codes against the shipped catalogue.
    expect(cabysSource).toBe('catalogues/cabys.tsv.gz');
    expect(cabysCatalogue.size).toBeGreaterThan(20_000);
    expect(cabysCatalogue.has('0111100000100')).toBe(true);
    expect(cabysCatalogue.has('0000000000000')).toBe(false);
    expect(rest).toEqual({
      host: '127.0.0.1',
      port: 7401,
      xsdDir: '/srv/xsd',
      logLevel: 'silent',
      adminToken: null,
      trustedCertificates: [],
      users: { a: 'b', c: 'd:e' },
      knobs: { processingDelayMs: 250, serverErrorRate: 0.3, checkSchema: false },
    });
    expect(() => loadSimulatorConfig({ SIMULATOR_TIMEOUT_RATE: '3' })).toThrow(SimulatorConfigError);
    expect(() => loadSimulatorConfig({ SIMULATOR_PORT: 'x' })).toThrow(/^SIMULATOR_PORT: /);
    expect(() => loadSimulatorConfig({ SIMULATOR_TIMEOUT_RATE: '3' })).toThrow(/^SIMULATOR_TIMEOUT_RATE: /);
    expect(() => loadSimulatorConfig({ SIMULATOR_USERS: 'nopassword' })).toThrow(/SIMULATOR_USERS/);
  });

  it('replays the same faults for the same seed', async () => {
    const run = async () => {
      const s = await buildSimulator({ serverErrorRate: 0.5, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++)
        statuses.push(
          (await s.inject({ url: `/recepcion-sandbox/v1/recepcion/${'3'.repeat(50)}` })).statusCode,
        );
      await s.close();
      return statuses;
    };
    const first = await run();
    expect(first).toEqual(await run());
    expect(first.some((s) => s >= 500)).toBe(true);
    expect(first).toContain(401);
  });
});
