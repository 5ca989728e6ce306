// The simulator's /_simulator endpoints change what it answers (knobs), forget what it received
// and list documents: with an admin token they want it as a bearer, the standalone process refuses
// to start in production without one, and no answer ever carries a callback token.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { buildSimulator } from '../simulator/app.ts';
import type { SimulatorApp } from '../simulator/app.ts';
import { loadSimulatorConfig, SimulatorConfigError } from '../simulator/config.ts';
import { buildFactura, EMISOR, signerFor, submission } from './helpers/hacienda-fixtures.ts';

const ADMIN_TOKEN = 'sim-admin-0123456789abcdef';
const CALLBACK_TOKEN = 'cbtok-9f8e7d6c5b4a39281706';
const ADMIN_ROUTES = [
  { method: 'GET', url: '/_simulator/config' },
  { method: 'POST', url: '/_simulator/config', payload: { serverErrorRate: 1 } },
  { method: 'GET', url: '/_simulator/documents' },
  { method: 'DELETE', url: '/_simulator/documents' },
  { method: 'GET', url: '/_simulator/stats' },
  { method: 'POST', url: '/_simulator/tokens/revoke' },
] as const;

let app: SimulatorApp;
beforeAll(async () => {
  app = await buildSimulator({ processingDelayMs: 0, adminToken: ADMIN_TOKEN });
});
afterAll(async () => {
  await app.close();
});

async function accessToken(): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/auth/realms/rut-stag/protocol/openid-connect/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=password&client_id=api-stag&username=emisor&password=pw',
  });
  return (res.json() as { access_token: string }).access_token;
}

describe('admin token', () => {
  it('refuses every /_simulator endpoint without the right bearer token, and changes nothing', async () => {
    const accepted = await app.inject({
      method: 'POST',
      url: '/recepcion-sandbox/v1/recepcion',
      headers: { authorization: `Bearer ${await accessToken()}` },
      payload: submission(buildFactura({ number: 7001 }), '<x/>'),
    });
    expect(accepted.statusCode).toBe(202);
    for (const route of ADMIN_ROUTES) {
      for (const authorization of [
        undefined,
        'Bearer wrong-token-0000000000',
        `Basic ${ADMIN_TOKEN}`,
        ADMIN_TOKEN,
      ]) {
        const res = await app.inject({ ...route, headers: authorization ? { authorization } : {} });
        expect([route.url, res.statusCode]).toEqual([route.url, 401]);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
        expect(res.body).not.toContain(ADMIN_TOKEN);
      }
    }
    expect(app.simulator.knobs().serverErrorRate).toBe(0);
    expect(app.simulator.counters().received).toBe(1);
    expect(app.simulator.documents()).toHaveLength(1);
  });

  it('serves them with the token', async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const config = await app.inject({ url: '/_simulator/config', headers: auth });
    expect(config.statusCode).toBe(200);
    const changed = await app.inject({
      method: 'POST',
      url: '/_simulator/config',
      headers: auth,
      payload: { latencyMs: 1 },
    });
    expect(changed.json()).toMatchObject({ latencyMs: 1 });
    app.simulator.configure({ latencyMs: 0 });
    expect((await app.inject({ url: '/_simulator/stats', headers: auth })).statusCode).toBe(200);
    expect(
      (await app.inject({ method: 'DELETE', url: '/_simulator/documents', headers: auth })).statusCode,
    ).toBe(204);
    expect(app.simulator.counters().received).toBe(0);
  });

  it('never lists callback tokens', async () => {
    const built = buildFactura({ number: 7002 });
    const signed = await (await signerFor(EMISOR)).sign(built.xml);
    const callbackUrl = `http://127.0.0.1:9/hacienda/callback?t=${CALLBACK_TOKEN}`;
    const res = await app.inject({
      method: 'POST',
      url: '/recepcion-sandbox/v1/recepcion',
      headers: { authorization: `Bearer ${await accessToken()}` },
      payload: submission(built, signed, {
        callbackUrl: `http://u:${CALLBACK_TOKEN}@127.0.0.1:9/cb?t=${CALLBACK_TOKEN}`,
      }),
    });
    expect(res.statusCode).toBe(202);
    await app.inject({
      method: 'POST',
      url: '/recepcion-sandbox/v1/recepcion',
      headers: { authorization: `Bearer ${await accessToken()}` },
      payload: submission(buildFactura({ number: 7003 }), signed, { callbackUrl }),
    });
    await app.simulator.idle();
    const list = await app.inject({
      url: '/_simulator/documents',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(CALLBACK_TOKEN);
    const urls = list.json<{ documents: { callbackUrl: string }[] }>().documents.map((d) => d.callbackUrl);
    expect(urls.sort()).toEqual([
      'http://127.0.0.1:9/hacienda/callback?t=redacted',
      'http://redacted:redacted@127.0.0.1:9/cb?t=redacted',
    ]);
    expect(JSON.stringify(app.simulator.documents())).not.toContain(CALLBACK_TOKEN);
  });
});

describe('standalone configuration', () => {
  it('requires SIMULATOR_ADMIN_TOKEN in production, and a long one wherever it is set', () => {
    expect(() => loadSimulatorConfig({ NODE_ENV: 'production' })).toThrow(SimulatorConfigError);
    expect(() => loadSimulatorConfig({ NODE_ENV: 'production' })).toThrow(/^SIMULATOR_ADMIN_TOKEN: required/);
    expect(() => loadSimulatorConfig({ NODE_ENV: 'production', SIMULATOR_ADMIN_TOKEN: 'short' })).toThrow(
      /^SIMULATOR_ADMIN_TOKEN: expected at least 16/,
    );
    expect(
      loadSimulatorConfig({ NODE_ENV: 'production', SIMULATOR_ADMIN_TOKEN: ADMIN_TOKEN }).adminToken,
    ).toBe(ADMIN_TOKEN);
    expect(loadSimulatorConfig({ NODE_ENV: 'development' }).adminToken).toBeNull();
    expect(loadSimulatorConfig({ NODE_ENV: 'test', SIMULATOR_ADMIN_TOKEN: ADMIN_TOKEN }).adminToken).toBe(
      ADMIN_TOKEN,
    );
  });

  it('npm run sandbox refuses to start in production without an admin token', async () => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      NODE_ENV: 'production',
      SIMULATOR_PORT: '0',
    };
    delete env.SIMULATOR_ADMIN_TOKEN;
    const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/main.ts'], {
      cwd: projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    // A simulator that starts anyway listens until killed: give it time to say so, then stop it.
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(killer);
    expect(code).toBe(1);
    expect(output).toContain('SIMULATOR_ADMIN_TOKEN: required when NODE_ENV=production');
    expect(output).not.toContain('listening');
  });
});
