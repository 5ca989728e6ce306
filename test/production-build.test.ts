// The compiled build, as the Procfile's production processes run it: `npm run build` writes
// dist/, its migration runner finds a database migrated from the TypeScript sources up to date
// (the same names in knex_migrations), and the compiled API and worker, started with plain node,
// take an invoice to `aceptada` through the Hacienda simulator and serve the dashboard and the
// invoice browser pages.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { freePort, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const run = promisify(execFile);
const pad = (n: number) => String(n).padStart(12, '0');

let e: E2E;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await run('npm', ['run', 'build'], { cwd: projectRoot, maxBuffer: 16 * 1024 * 1024 });
  e = await startE2E({ workers: false });
}, 300_000);
afterAll(async () => {
  for (const c of children) await stopProcess(c, 'SIGTERM');
  await e?.close();
});

/** A compiled entry run with plain node (no tsx), as the Procfile does. */
function node(entry: string, env: Record<string, string>): ChildProcess & { output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [join(projectRoot, 'dist', entry)], {
    cwd: projectRoot,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  children.push(child);
  return Object.assign(child, { output: () => output });
}

describe('the compiled build', () => {
  it('compiles every process to plain JavaScript with the files they read at run time', () => {
    for (const entry of [
      'api/server.js',
      'workers/main.js',
      'simulator/main.js',
      'db/migrate.js',
      'cli/main.js',
    ])
      expect(existsSync(join(projectRoot, 'dist', entry)), entry).toBe(true);
    expect(existsSync(join(projectRoot, 'dist/web/dist/index.html'))).toBe(true);
  });

  it('its migration runner finds a database migrated from the sources up to date', async () => {
    const migrate = node('db/migrate.js', { DATABASE_URL: e.database.url });
    await new Promise<void>((resolve) => migrate.once('exit', () => resolve()));
    expect(migrate.exitCode, migrate.output()).toBe(0);
    expect(migrate.output()).toContain('database is up to date');
  });

  it('runs the API and a worker with plain node: an invoice is accepted, the dashboard is served', async () => {
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const env = {
      DATABASE_URL: e.database.url,
      REDIS_URL: e.config.redisUrl,
      QUEUE_PREFIX: e.config.queuePrefix,
      SECRETS_KEY: TEST_SECRETS_KEY,
      PUBLIC_URL: apiUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      HACIENDA_SANDBOX_IDP_URL: e.config.hacienda.sandbox.idpUrl,
      HACIENDA_SANDBOX_API_URL: e.config.hacienda.sandbox.apiUrl,
      STATUS_POLL_BASE_MS: '200',
      STATUS_POLL_MAX_MS: '500',
    };
    const web = node('api/server.js', env);
    const worker = node('workers/main.js', env);
    await waitFor(
      async () => (await fetch(`${apiUrl}/ready`).catch(() => null))?.ok === true,
      60_000,
      200,
      'the compiled API ready',
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${web.output()}`);
    });

    const s = await seedIssuer(e.db, e.config);
    const r = await api({ apiUrl }, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${pad(s.client.id)}`,
      lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 2 }],
    });
    expect(r.status).toBe(201);
    const id = Number(String(r.json.id).slice(4));
    await waitFor(
      async () =>
        ((await e.db('invoices').where({ id }).first('status')) as { status: string }).status === 'aceptada',
      90_000,
      100,
      'the invoice accepted by the compiled worker',
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${worker.output()}`);
    });

    // The old dashboard addresses lead to the application, which the compiled API serves.
    const page = await fetch(`${apiUrl}/dashboard`, { redirect: 'manual' });
    expect(page.status).toBe(301);
    expect(page.headers.get('location')).toBe('/app/');
    const browser = await fetch(`${apiUrl}/dashboard/invoices`, { redirect: 'manual' });
    expect(browser.headers.get('location')).toBe('/app/documentos');
    const app = await fetch(`${apiUrl}/app/documentos`);
    expect(app.status).toBe(200);
    expect(await app.text()).toContain('<div id="root">');
  }, 180_000);
});
