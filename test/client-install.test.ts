// The client package as a store developer installs it: `npm pack` of a fresh copy of client/ (no
// dist/ built beforehand) gives a tarball with the compiled JavaScript and its types, which installs
// offline into an empty project; from there a plain .mjs imports it by name, calls the running
// service and verifies a webhook signature, and TypeScript (tsc, NodeNext) type-checks against it.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { seedIssuer } from './helpers/e2e.ts';
import { startFullApp, type FullApp } from './helpers/full-app.ts';

const run = promisify(execFile);
const CLIENT = join(projectRoot, 'client');
const TSC = join(projectRoot, 'node_modules/typescript/bin/tsc');

/** npm with an environment of its own (not the one of an npm script this test may run under). */
function npm(args: string[], cwd: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...env, NO_UPDATE_NOTIFIER: '1' },
  });
}

let full: FullApp;
let baseUrl: string;
let key: string;
let source: string; // a copy of client/ as a fresh checkout has it
let project: string; // an empty project outside the repository
let tarball: string;

beforeAll(async () => {
  full = await startFullApp();
  key = (await seedIssuer(full.database.db, full.config)).key;
  baseUrl = await full.app.listen({ port: 0, host: '127.0.0.1' });
  // Inside the repository, so the build finds typescript and openapi-fetch as in a checkout.
  await mkdir(join(projectRoot, 'test/artifacts'), { recursive: true });
  source = await mkdtemp(join(projectRoot, 'test/artifacts/client-pack-'));
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'prepare.mjs', 'README.md', 'src'])
    await cp(join(CLIENT, f), join(source, f), { recursive: true });
  project = await mkdtemp(join(tmpdir(), 'factura-store-'));
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'store', private: true }));
}, 60_000);
afterAll(async () => {
  await full?.close();
  if (source) await rm(source, { recursive: true, force: true });
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the packed client package', () => {
  it('npm pack builds it: the tarball holds the JavaScript and the types', async () => {
    const { stdout } = await npm(['pack', '--json', '--pack-destination', project], source);
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/client.js',
        'dist/schema.d.ts',
        'dist/webhook-signature.js',
        'dist/webhook-signature.d.ts',
      ]),
    );
    expect(files.some((f) => f.startsWith('src/'))).toBe(false);
    tarball = join(project, packed!.filename);
  }, 120_000);

  it('installs offline into an empty project and works from plain JavaScript against the service', async () => {
    expect(tarball, 'the pack test ran first').toBeTruthy();
    // Its one dependency (and that one's), as the registry would serve them: packed from the
    // repository's own install, so nothing is downloaded.
    const deps = join(project, 'deps');
    await mkdir(deps);
    for (const name of ['openapi-fetch', 'openapi-typescript-helpers'])
      await npm(['pack', join(projectRoot, 'node_modules', name), '--pack-destination', deps], project);
    const depTarballs = (await readdir(deps)).map((f) => join(deps, f));
    await npm(['install', '--offline', tarball, ...depTarballs], project);

    const cedula = '3101765432';
    const script = `
      import { createFacturaClient, FacturaApiError } from '@factura-cr/client';
      import { verifyWebhookSignature, constructWebhookEvent } from '@factura-cr/client/webhooks';
      import { createHmac } from 'node:crypto';
            const factura = createFacturaClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
      const created = await factura.post('/api/v1/clients', {
        body: { cedula: '${cedula}', identification_type: '02', name: 'Distribuidora La Sabana S.A.', email: 'pagos@sabana.example' },
      });
      const read = await factura.get('/api/v1/clients/{id}', { params: { path: { id: created.id } } });
      const invalid = await factura.post('/api/v1/clients', { body: { cedula: '1', name: 'x' } }).catch((e) => e);
      const t = Math.floor(Date.now() / 1000);
      const body = JSON.stringify({ id: 'evt_1', event: 'client.created', created_at: '', data: read });
      const header = 't=' + t + ', v1=' + createHmac('sha256', 'whsec_s').update(t + '.' + body).digest('hex');
      const good = await verifyWebhookSignature(Buffer.from(body), header, 'whsec_s');
      const tampered = await verifyWebhookSignature(body + ' ', header, ['whsec_s']);
      const event = await constructWebhookEvent(body, header, 'whsec_s');
      const parsed = await verifyWebhookSignature(JSON.parse(body), header, 'whsec_s').catch((e) => e);
      const noSecret = await verifyWebhookSignature(body, header).catch((e) => e);
      console.log(JSON.stringify({
        created: created.cedula, read: read.name,
        invalid: invalid instanceof FacturaApiError && invalid.code,
        good: good.ok, tampered: tampered.reason, event: event.data.id === created.id,
        parsed: parsed instanceof TypeError && parsed.message,
        noSecret: noSecret instanceof TypeError,
      }));
    `;
    await writeFile(join(project, 'store.mjs'), script);
    const { stdout } = await run(process.execPath, ['store.mjs'], {
      cwd: project,
      env: { ...process.env, BASE_URL: baseUrl, API_KEY: key },
    });
    expect(JSON.parse(stdout)).toEqual({
      created: cedula,
      read: 'Distribuidora La Sabana S.A.',
      invalid: 'validation_failed',
      good: true,
      tampered: 'no_matching_signature',
      event: true,
      parsed: expect.stringContaining('not parsed JSON'),
      noSecret: true,
    });
  }, 120_000);

  it('gives TypeScript its types: a right program compiles, a wrong one is refused', async () => {
    expect(tarball, 'the pack test ran first').toBeTruthy();
    const tsconfig = {
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        strict: true,
        noEmit: true,
        types: [],
      },
    };
    const right = `
      import { createFacturaClient, verifyWebhookSignature, type Client, type Invoice } from '@factura-cr/client';
      import { SIGNATURE_HEADER } from '@factura-cr/client/webhooks';
      const factura = createFacturaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'ik_test_x' });
      export async function f(): Promise<[Client, Invoice['status'], boolean, string]> {
        const c = await factura.get('/api/v1/clients/{id}', { params: { path: { id: 'cli_1' } } });
        const i = await factura.get('/api/v1/invoices/{id}', { params: { path: { id: 'inv_1' } } });
        const v = await verifyWebhookSignature('{}', 't=1, v1=00', 'whsec_x');
        return [c, i.status, v.ok, SIGNATURE_HEADER];
      }
    `;
    // A client has no total, and a path parameter is required: both must be type errors.
    const wrong = `
      import { createFacturaClient, type Client } from '@factura-cr/client';
      const factura = createFacturaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'ik_test_x' });
      export const total = (c: Client): string => c.total;
      export const missing = () => factura.get('/api/v1/clients/{id}', {});
    `;
    for (const [name, text] of [
      ['right', right],
      ['wrong', wrong],
    ] as const) {
      await mkdir(join(project, name), { recursive: true });
      await writeFile(join(project, name, 'main.ts'), text);
      await writeFile(
        join(project, name, 'tsconfig.json'),
        JSON.stringify({ ...tsconfig, files: ['main.ts'] }),
      );
    }
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'store', private: true, type: 'module' }),
    );
    const ok = await run(process.execPath, [TSC, '-p', join(project, 'right')], { cwd: project }).then(
      () => 'compiled',
      (err: { stdout: string }) => err.stdout,
    );
    expect(ok).toBe('compiled');
    const refused = await run(process.execPath, [TSC, '-p', join(project, 'wrong')], { cwd: project }).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(refused).toMatch(/main\.ts\(4,\d+\): error TS2339: Property 'total' does not exist/);
    expect(refused).toMatch(/main\.ts\(5,\d+\): error TS\d+/);
  }, 120_000);
});
