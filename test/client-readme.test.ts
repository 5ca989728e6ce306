// client/README.md as a store developer follows it: the package packed with `npm pack` and installed
// into an empty project (openapi-fetch from npm's cache or the registry), and installed again by
// its folder's path (its `prepare` script builds dist/); the README's JavaScript blocks, copied
// verbatim into .mjs files and run with plain node against the running service (API, workers,
// Hacienda simulator): a client created, an invoice taken to aceptada and its PDF saved, a
// validation failure read as FacturaApiError, and the webhook receiver answering a delivery this
// test signs (and refusing a tampered and a stale one).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../client/src/index.ts';
import { projectRoot } from '../config/index.ts';
import { formatId } from '../domain/ids.ts';
import { signWebhookPayload } from '../domain/webhook-signature.ts';
import { seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { codeBlocks } from './helpers/markdown.ts';
import { waitFor } from './helpers/wait.ts';

const run = promisify(execFile);
const CLIENT = join(projectRoot, 'client');

/** npm with an environment of its own (not the one of an npm script this test may run under). */
function npm(args: string[], cwd: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...env, NO_UPDATE_NOTIFIER: '1' },
  });
}

/** The README's block under the heading that starts with `heading`. */
async function readmeBlock(heading: string, lang = 'js'): Promise<string> {
  const blocks = codeBlocks(await readFile(join(CLIENT, 'README.md'), 'utf8'));
  const block = blocks.find((b) => b.lang === lang && b.heading.startsWith(heading));
  if (!block) throw new Error(`client/README.md has no ${lang} block under "${heading}"`);
  return block.code;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let e: E2E;
let key: string;
let source: string; // a copy of client/ as a fresh checkout has it (no dist/), inside the repository
let store: string; // an empty project that installs the tarball
let linked: string; // an empty project that installs the folder by its path
let receiver: ChildProcess | null = null;

async function emptyProject(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `factura-${name}-`));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  return dir;
}

beforeAll(async () => {
  e = await startE2E();
  key = (await seedIssuer(e.db, e.config)).key;
  await mkdir(join(projectRoot, 'test/artifacts'), { recursive: true });
  source = await mkdtemp(join(projectRoot, 'test/artifacts/client-readme-'));
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'prepare.mjs', 'README.md', 'src'])
    await cp(join(CLIENT, f), join(source, f), { recursive: true });
  store = await emptyProject('store');
  linked = await emptyProject('linked');
}, 60_000);
afterAll(async () => {
  receiver?.kill();
  await e?.close();
  for (const dir of [source, store, linked]) if (dir) await rm(dir, { recursive: true, force: true });
});

async function runExample(cwd: string, file: string, code: string) {
  expect(installed, 'the tarball was installed first').toBe(true);
  await writeFile(join(cwd, file), code);
  return run(process.execPath, [file], {
    cwd,
    env: { ...process.env, FACTURA_URL: e.apiUrl, FACTURA_KEY: key },
    timeout: 60_000,
  });
}

async function apiGet(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${e.apiUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

let installed = false;
let firstRun: string[] = [];

describe('the client package installed as its README says', () => {
  it('npm pack builds it and the tarball installs into an empty project', async () => {
    const { stdout } = await npm(['pack', '--json', '--pack-destination', store], source);
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/webhook-signature.d.ts']));
    expect(files).not.toContain('prepare.mjs');
    await npm(['install', join(store, packed!.filename), '--prefer-offline'], store);
    const manifest = JSON.parse(
      await readFile(join(store, 'node_modules/@factura-cr/client/package.json'), 'utf8'),
    ) as { name: string };
    expect(manifest.name).toBe('@factura-cr/client');
    installed = true;
  }, 120_000);

  it('runs the five-minute example: a client created, an invoice accepted by Hacienda, its PDF saved', async () => {
    // The example names the first service of a fresh company, as npm start's first run creates it.
    const services = (await apiGet('/api/v1/services')).data as { id: string }[];
    expect(services.map((s) => s.id)).toContain(formatId('service', 1));
    const { stdout } = await runExample(store, 'factura.mjs', await readmeBlock('Ejemplo en cinco minutos'));
    firstRun = stdout.trim().split('\n');
    const [status, consecutivo] = firstRun[0]!.split(' ');
    expect(status).toBe('aceptada');
    expect(consecutivo).toMatch(/^\d{20}$/);
    const pdfUrl = firstRun.at(-1)!;
    expect(pdfUrl).toMatch(new RegExp(`^${e.apiUrl}/api/v1/invoices/inv_\\w+/pdf$`));
    const pdf = await readFile(join(store, `factura-${consecutivo}.pdf`));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    const invoiceId = pdfUrl.split('/').at(-2)!;
    const invoice = await apiGet(`/api/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({ status: 'aceptada', consecutivo });
    const client = await apiGet(`/api/v1/clients/${String(invoice.client_id)}`);
    expect(client).toMatchObject({ cedula: '3101654321', name: 'Comercializadora del Valle S.A.' });
  }, 90_000);

  it('runs the errors example: a validation failure is a FacturaApiError with its code and fields', async () => {
    const { stdout } = await runExample(store, 'errores.mjs', await readmeBlock('Errores'));
    const [first, ...rest] = stdout.trim().split('\n');
    expect(first).toMatch(/^422 validation_failed req_[\w-]+$/);
    expect(rest).toEqual(['/name too_short', expect.stringContaining('/name')]);
  }, 60_000);

  it('runs the webhook example: a delivery signed with the secret is accepted, others refused', async () => {
    expect(installed, 'the tarball was installed first').toBe(true);
    await writeFile(join(store, 'webhooks.mjs'), await readmeBlock('Webhooks en JavaScript'));
    const port = await freePort();
    const secret = 'whsec_prueba_de_readme';
    receiver = spawn(process.execPath, ['webhooks.mjs'], {
      cwd: store,
      env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret },
    });
    let output = '';
    receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = `http://127.0.0.1:${port}/`;
    const post = async (body: string, header: string) => {
      const res = await fetch(url, { method: 'POST', body, headers: { 'service-signature': header } });
      return `${res.status} ${await res.text()}`;
    };
    const body = JSON.stringify({ id: 'evt_000000000042', event: 'invoice.accepted', data: {} });
    const listening = () =>
      fetch(url).then(
        () => true,
        () => false,
      );
    await waitFor(listening, 10_000, 50, 'the webhook receiver to listen');
    const now = Math.floor(Date.now() / 1000);
    expect(await post(body, signWebhookPayload(body, [secret], now))).toBe('200 ');
    expect(await post(`${body} `, signWebhookPayload(body, [secret], now))).toBe('400 no_matching_signature');
    expect(await post(body, signWebhookPayload(body, [secret], now - 3600))).toBe(
      '400 timestamp_out_of_tolerance',
    );
    expect(await post(body, 'v1=abc')).toBe('400 malformed_header');
    await waitFor(() => output.endsWith('\n'), 5_000, 20, "the receiver's log line");
    expect(output.trim().split('\n')).toEqual(['evt_000000000042 invoice.accepted']);
  }, 60_000);

  it('installs by its path: prepare builds dist/, and the example run again repeats nothing', async () => {
    expect(firstRun.length, 'the five-minute example ran first').toBeGreaterThan(0);
    await rm(join(source, 'dist'), { recursive: true, force: true });
    await npm(['install', source], linked);
    expect((await stat(join(source, 'dist/index.js'))).isFile()).toBe(true);
    const { stdout } = await runExample(linked, 'factura.mjs', await readmeBlock('Ejemplo en cinco minutos'));
    // The same Idempotency-Keys: the same client and the same accepted invoice, nothing new.
    expect(stdout.trim().split('\n')).toEqual(firstRun);
    const invoices = (await apiGet('/api/v1/invoices')).data as unknown[];
    expect(invoices).toHaveLength(1);
  }, 120_000);
});

describe("the verifier takes the header as node:http's types give it", () => {
  it('reads repeated Service-Signature values as one header', async () => {
    const body = '{"id":"evt_000000000001","event":"invoice.sent"}';
    const t = Math.floor(Date.now() / 1000);
    const [time, a, b] = signWebhookPayload(body, ['whsec_a', 'whsec_b'], t).split(', v1=');
    expect(await verifyWebhookSignature(body, [`${time}, v1=${a}`, `v1=${b}`], 'whsec_b')).toEqual({
      ok: true,
      timestamp: t,
    });
    expect(await verifyWebhookSignature(body, [`v1=${a}`, `v1=${b}`], 'whsec_b')).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
  });
});
