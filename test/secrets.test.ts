// Secrets: a whole run — a company set up with the command-line tool (its .p12 and PIN, its
// Hacienda password), keys made, used, rolled and guessed, webhook secrets made and rotated, an
// invoice signed and accepted by the simulator (which checks that password) and a signed webhook
// delivered — with every log line of the API and the workers captured. Then:
//   - no secret appears in any log line, in any column of any table, or in Redis;
//   - API keys exist only as their SHA-256; the .p12 key, the Hacienda password and the webhook
//     secrets are AES-256-GCM boxes that open with SECRETS_KEY and with no other key;
//   - live webhook URLs on private, loopback, link-local or otherwise non-public addresses are refused;
//   - every kind of answer carries the security headers, and bodies over the limit are 413.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerCompanyCommands } from '../cli/commands/company.ts';
import { registerKeyCommands } from '../cli/commands/key.ts';
import { createApiKey } from '../db/queries/api-keys.ts';
import { open, openSigningMaterial, SecretBoxError } from '../hacienda/secret-box.ts';
import { createTestCertificate, type TestCertificate } from '../hacienda/test-certificates.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { api, startE2E, type E2E } from './helpers/e2e.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

const HACIENDA_USER = 'cpj-3-101-777777@stag.comprobanteselectronicos.go.cr';
const HACIENDA_PASSWORD = `Hac!enda-${randomBytes(12).toString('base64url')}`;
const ADMIN_PASSWORD = `adm-${randomBytes(12).toString('base64url')}`;
const PIN = `p1n-${randomBytes(6).toString('hex')}`;

let e: E2E;
let receiver: Receiver;
let cert: TestCertificate;
let companyId = '';
const logs: string[] = [];
/** Every secret the run handled, by name. */
const secrets = new Map<string, string>();
const cliOutput: string[] = [];

/** The command-line tool in this process (its modules, with this database and key). */
async function cli(...args: string[]): Promise<string> {
  const program = new Command('factura').exitOverride();
  registerCompanyCommands(program);
  registerKeyCommands(program);
  const out: string[] = [];
  const capture = (chunk: unknown) => {
    out.push(String(chunk));
    return true;
  };
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await program.parseAsync(['node', 'factura', ...args]);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return out.join('');
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

beforeAll(async () => {
  e = await startE2E({
    logStream: new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    }),
    simulator: { users: { [HACIENDA_USER]: HACIENDA_PASSWORD } },
    env: { ADMIN_USER: 'ops', ADMIN_PASSWORD, WEBHOOK_BACKOFF_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' },
  });
  // The tool reads its configuration from the environment, as it does from a shell.
  process.env.DATABASE_URL = e.database.url;
  process.env.SECRETS_KEY = TEST_SECRETS_KEY;
  process.env.NODE_ENV = 'test';
  receiver = await startReceiver();
}, 60_000);

/** The temporary folder holding the .p12 handed to the tool (a private key: removed at the end). */
let p12Dir = '';

afterAll(async () => {
  if (p12Dir) rmSync(p12Dir, { recursive: true, force: true });
  await receiver?.close();
  await e?.close();
});

describe('a whole run', () => {
  it('sets up a company with the tool, issues an accepted invoice and delivers a signed webhook', async () => {
    // 1. The tool: company, .p12 with its PIN, Hacienda credentials, first key.
    const created = JSON.parse(
      await cli(
        'company',
        'create',
        '--name',
        'Secretos S.A.',
        '--cedula',
        '3-101-777777',
        '--id-type',
        '02',
        '--plan',
        'business',
        '--demo',
        '--rate-limit',
        '100000',
        '--json',
      ),
    );
    companyId = created.id;
    cert = await createTestCertificate({
      idType: '02',
      idNumber: '3101777777',
      name: 'Secretos S.A.',
      pin: PIN,
    });
    p12Dir = mkdtempSync(join(tmpdir(), 'p12-'));
    const p12 = join(p12Dir, 'llave.p12');
    writeFileSync(p12, cert.p12);
    cliOutput.push(
      await cli(
        'company',
        'set-certificate',
        '--company',
        companyId,
        '--p12',
        p12,
        '--pin',
        PIN,
        '--mode',
        'test',
        '--json',
      ),
    );
    cliOutput.push(
      await cli(
        'company',
        'set-hacienda-credentials',
        '--company',
        companyId,
        '--username',
        HACIENDA_USER,
        '--password',
        HACIENDA_PASSWORD,
        '--mode',
        'test',
        '--json',
      ),
    );
    const first = JSON.parse(
      await cli('key', 'create', '--company', companyId, '--scopes', 'all', '--mode', 'test', '--json'),
    );
    secrets.set('key from the tool', first.secret);

    // 2. Keys through the API: made, rolled, both secrets used; a guessed one refused.
    const k = first.secret as string;
    const made = await api(e, 'POST', '/api/v1/keys', k, { name: 'erp', scopes: ['read:clients'] });
    secrets.set('key from the API', made.json.secret);
    const rolled = await api(e, 'POST', `/api/v1/keys/${made.json.id}/roll`, k, {
      grace_period_seconds: 3600,
    });
    secrets.set('rolled key', rolled.json.secret);
    for (const s of [made.json.secret, rolled.json.secret])
      expect((await api(e, 'GET', '/api/v1/clients', s)).status).toBe(200);
    const guessed = `ik_test_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x')}`;
    secrets.set('guessed key', guessed);
    expect((await api(e, 'GET', '/api/v1/clients', guessed)).status).toBe(401);
    expect((await api(e, 'GET', '/api/v1/clients', `${k}!`)).status).toBe(401);

    // 3. A webhook endpoint, its secret rotated (both sign for a while).
    const hook = await api(e, 'POST', '/api/v1/webhook_endpoints', k, {
      url: receiver.url,
      events: ['invoice.created', 'invoice.accepted'],
    });
    expect(hook.status).toBe(201);
    secrets.set('webhook secret', hook.json.secret);
    const rotated = await api(e, 'POST', `/api/v1/webhook_endpoints/${hook.json.id}/rotate_secret`, k);
    secrets.set('rotated webhook secret', rotated.json.secret);
    receiver.secrets.push(rotated.json.secret);
    receiver.respond = (n) => (n === 0 ? 500 : 200); // one failed attempt, retried

    // 4. An invoice signed with the .p12 key, sent with the Hacienda password, accepted.
    const client = await api(e, 'POST', '/api/v1/clients', k, { cedula: '1-0234-0567', name: 'Juana Pérez' });
    const services = await api(e, 'GET', '/api/v1/services', k);
    const invoice = await api(
      e,
      'POST',
      '/api/v1/invoices',
      k,
      { client_id: client.json.id, lines: [{ service_id: services.json.data[0].id, qty: 1 }] },
      { prefer: 'wait=20' },
    );
    expect(invoice.status, invoice.text).toBe(201);
    await waitFor(
      async () => (await api(e, 'GET', `/api/v1/invoices/${invoice.json.id}`, k)).json.status === 'aceptada',
      20_000,
      100,
      'the invoice to be accepted',
    );
    await waitFor(() => receiver.ofKind('invoice.accepted').length > 0, 20_000, 50, 'the webhook');
    expect(receiver.ofKind('invoice.accepted')[0]!.verified.ok).toBe(true);

    // 5. Malformed HTTP carrying a key: headers over the limit (Node's parser refuses them).
    const overflow = await fetch(`${e.apiUrl}/api/v1/clients`, {
      headers: { authorization: `Bearer ${k}`, 'x-pad': 'a'.repeat(20_000) },
    });
    expect(overflow.status).toBe(431);
    expect(overflow.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await overflow.json()).code).toBe('headers_too_large');

    // 6. The admin area, with the right and a wrong password.
    const basic = (p: string) => ({ authorization: `Basic ${Buffer.from(`ops:${p}`).toString('base64')}` });
    expect((await fetch(`${e.apiUrl}/metrics`, { headers: basic(ADMIN_PASSWORD) })).status).toBe(200);
    expect((await fetch(`${e.apiUrl}/metrics`, { headers: basic(`${ADMIN_PASSWORD}x`) })).status).toBe(401);

    secrets.set('Hacienda password', HACIENDA_PASSWORD);
    secrets.set('.p12 PIN', PIN);
    secrets.set('admin password', ADMIN_PASSWORD);
    secrets.set('SECRETS_KEY', TEST_SECRETS_KEY);
    secrets.set('private key (base64 DER)', cert.material.privateKeyPkcs8.toString('base64'));
    secrets.set('.p12 (base64)', cert.p12.toString('base64').slice(0, 64));
  }, 60_000);

  it('no secret appears in any log line of the API or the workers, nor in the tool’s output', () => {
    expect(logs.length, 'the run was logged').toBeGreaterThan(30);
    expect(
      logs.some((l) => l.includes('"reqId"')),
      'request logs',
    ).toBe(true);
    // Bytes logged as arrays (a raw packet) are searched as text too.
    const decoded = logs
      .flatMap((l) => [...l.matchAll(/"data":\[([\d,]+)\]/g)])
      .map((m) => Buffer.from(m[1]!.split(',').map(Number)).toString('latin1'));
    const text = logs.join('') + decoded.join('\n');
    // The Hacienda callback's capability token is redacted from the request log.
    const callbacks = logs.filter((l) => l.includes('/hacienda/callback'));
    expect(callbacks.length, 'the simulator called back').toBeGreaterThan(0);
    for (const l of callbacks) expect(l).toMatch(/callback\?t=\[redacted\]/);
    for (const [name, secret] of secrets) {
      expect(text.includes(secret), `${name} is in the logs`).toBe(false);
      // also a recognisable piece of it (a log that cuts or wraps it)
      expect(text.includes(secret.slice(-24)), `the end of the ${name} is in the logs`).toBe(false);
    }
    for (const out of cliOutput) {
      for (const name of ['Hacienda password', '.p12 PIN', 'private key (base64 DER)'])
        expect(out.includes(secrets.get(name)!), `${name} in the tool's output`).toBe(false);
    }
  });

  it('no secret is stored in clear: every column of every table is searched', async () => {
    const tables = (
      await e.db.raw(`select tablename from pg_tables where schemaname = 'public' order by 1`)
    ).rows.map((r: { tablename: string }) => r.tablename);
    // Each row as text (bytea columns appear as \x… hex), and the whole dump once more as hex.
    let dump = '';
    for (const t of tables)
      for (const r of (await e.db.raw(`select t::text as row from "${t}" t`)).rows as { row: string }[])
        dump += `${r.row}\n`;
    expect(dump.length).toBeGreaterThan(10_000);
    for (const [name, secret] of secrets) {
      expect(dump.includes(secret), `${name} stored in clear`).toBe(false);
      expect(dump.includes(Buffer.from(secret).toString('hex')), `${name} stored as bytes`).toBe(false);
    }
    const der = cert.material.privateKeyPkcs8;
    expect(dump.includes(der.subarray(0, 48).toString('hex')), 'private key bytes stored').toBe(false);
    expect(dump.includes(cert.p12.subarray(0, 48).toString('hex')), '.p12 bytes stored').toBe(false);
  });

  it('API keys are stored as their SHA-256 only', async () => {
    for (const name of ['key from the tool', 'key from the API', 'rolled key']) {
      const hash = sha256(secrets.get(name)!);
      const row = await e.db('api_key_secrets').where({ secretHash: hash }).first();
      expect(row, name).toBeDefined();
      expect(row.secretHash.length).toBe(32);
    }
    expect(
      await e
        .db('api_key_secrets')
        .where({ secretHash: sha256(secrets.get('guessed key')!) })
        .first(),
    ).toBeUndefined();
  });

  it('the .p12 key, the Hacienda password and the webhook secrets open with SECRETS_KEY only', async () => {
    const key = e.config.secretsKey;
    const otherKey = randomBytes(32);
    const id = Number(companyId.slice(4));
    const cred = await e.db('company_credentials').where({ companyId: id, livemode: false }).first();
    const hook = await e.db('webhook_endpoints').where({ companyId: id }).first();
    const boxes: [string, Buffer, Buffer | string][] = [
      ['signing key', cred.signingKeyEnc, cert.material.privateKeyPkcs8],
      ['Hacienda password', cred.haciendaPasswordEnc, HACIENDA_PASSWORD],
      ['webhook secret', hook.secretEnc, secrets.get('rotated webhook secret')!],
      ['previous webhook secret', hook.previousSecretEnc, secrets.get('webhook secret')!],
    ];
    for (const [name, box, plain] of boxes) {
      expect(Buffer.isBuffer(box), name).toBe(true);
      expect(box[0], `${name}: format version`).toBe(1);
      expect(() => open(otherKey, box), `${name} opens with another key`).toThrow(SecretBoxError);
      const tampered = Buffer.from(box);
      tampered.writeUInt8(tampered.readUInt8(tampered.length - 1) ^ 1, tampered.length - 1);
      expect(() => open(key, tampered), `${name} tampered`).toThrow(SecretBoxError);
      if (name === 'signing key') {
        const material = openSigningMaterial(key, box);
        expect(material.privateKeyPkcs8.equals(plain as Buffer)).toBe(true);
      } else expect(open(key, box).toString('utf8'), name).toBe(plain);
    }
  });

  it('Redis holds no secret either', async () => {
    const prefix = e.config.queuePrefix.replace(/[{}]/g, '');
    const r = new Redis(e.config.redisUrl, { lazyConnect: true });
    await r.connect();
    try {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await r.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      expect(keys.length).toBeGreaterThan(5);
      let values = '';
      for (const k of keys) {
        const type = await r.type(k);
        if (type === 'string') values += await r.get(k);
        else if (type === 'hash') values += JSON.stringify(await r.hgetall(k));
        else if (type === 'list') values += JSON.stringify(await r.lrange(k, 0, -1));
        else if (type === 'zset') values += JSON.stringify(await r.zrange(k, '0', '-1'));
        else if (type === 'set') values += JSON.stringify(await r.smembers(k));
        values += k;
      }
      for (const [name, secret] of secrets) expect(values.includes(secret), `${name} in Redis`).toBe(false);
    } finally {
      r.disconnect();
    }
  });
});

describe('webhook URLs in live mode', () => {
  it('refuse private, loopback, link-local, shared and reserved addresses; accept public ones', async () => {
    const live = await createApiKey(e.db, {
      companyId: Number(companyId.slice(4)),
      livemode: true,
      name: 'live',
      scopes: ['manage:webhooks'],
    });
    const refused = [
      'https://127.0.0.1/hooks',
      'https://127.1/hooks',
      'https://localhost/hooks',
      'https://0x7f000001/hooks',
      'https://2130706433/hooks',
      'https://0.0.0.0/hooks',
      'https://10.1.2.3/hooks',
      'https://172.16.0.1/hooks',
      'https://192.168.1.1/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hooks',
      'https://224.0.0.1/hooks',
      'https://255.255.255.255/hooks',
      'https://[::1]/hooks',
      'https://[fc00::1]/hooks',
      'https://[fe80::1]/hooks',
      'https://[::ffff:10.0.0.1]/hooks',
      'https://[64:ff9b::a00:1]/hooks',
      'http://93.184.215.14/hooks',
      'https://user:pass@93.184.215.14/hooks',
    ];
    for (const url of refused) {
      const res = await api(e, 'POST', '/api/v1/webhook_endpoints', live.secret, {
        url,
        events: ['invoice.paid'],
      });
      expect(res.status, `${url}: ${res.text}`).toBe(422);
      expect(res.json.errors[0].path).toBe('/url');
    }
    const ok = await api(e, 'POST', '/api/v1/webhook_endpoints', live.secret, {
      url: 'https://93.184.215.14/hooks',
      events: ['invoice.paid'],
    });
    expect(ok.status, ok.text).toBe(201);
    const moved = await api(e, 'POST', `/api/v1/webhook_endpoints/${ok.json.id}`, live.secret, {
      url: 'https://10.0.0.5/hooks',
    });
    expect(moved.status, 'an update is checked too').toBe(422);
  });
});

describe('headers and limits', () => {
  it('every kind of answer carries the security headers', async () => {
    const k = secrets.get('key from the tool')!;
    const auth = { authorization: `Bearer ${k}` };
    const admin = { authorization: `Basic ${Buffer.from(`ops:${ADMIN_PASSWORD}`).toString('base64')}` };
    const cases: [string, Record<string, string>][] = [
      ['/health', {}],
      ['/api/v1/clients', auth],
      ['/api/v1/clients', {}],
      ['/api/v1/clients/cli_999999999999', auth],
      ['/api/v1/clients/%ZZ', auth],
      ['/nope', {}],
      ['/dashboard', {}],
      ['/docs', {}],
      ['/openapi.json', {}],
      ['/metrics', admin],
    ];
    for (const [url, headers] of cases) {
      const res = await fetch(`${e.apiUrl}${url}`, { headers, redirect: 'manual' });
      const h = (n: string) => res.headers.get(n);
      expect(h('x-content-type-options'), url).toBe('nosniff');
      expect(h('x-frame-options'), url).toBe('DENY');
      expect(h('referrer-policy'), url).toBe('no-referrer');
      expect(h('request-id'), url).toBeTruthy();
      const csp = h('content-security-policy') ?? '';
      if (url === '/dashboard') {
        // Now a redirect to the application (which sets its own self-only CSP).
        expect(res.status).toBe(301);
        expect(csp).toMatch(/default-src 'none'/);
        expect(csp).toMatch(/frame-ancestors 'none'/);
      } else if (url === '/docs') expect(csp).toMatch(/default-src 'self'/);
      else expect(csp, url).toBe("default-src 'none'; frame-ancestors 'none'");
      if (url.startsWith('/api/')) expect(h('cache-control'), url).toBe('no-store');
      await res.arrayBuffer();
    }
  });

  it('bodies over 1 MiB are 413 problem+json on every route that takes one; without a key, 401 before reading', async () => {
    const k = secrets.get('key from the tool')!;
    const big = JSON.stringify({ name: 'x'.repeat(1_048_576) });
    const writes = e.app
      .routeTable()
      .filter(
        (r) =>
          (r.url.startsWith('/api/') || r.url === '/hacienda/callback') &&
          ['POST', 'DELETE'].includes(r.method),
      );
    expect(writes.length).toBeGreaterThanOrEqual(15);
    for (const r of writes) {
      const url = r.url.replace(':id', 'x_000000000001');
      const res = await e.app.inject({
        method: r.method as 'POST',
        url,
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        payload: big,
      });
      if (r.person) {
        // A person's own routes refuse a key before reading its body.
        expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
        expect(res.json().code).toBe('session_required');
        continue;
      }
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(413);
      expect(res.json().code).toBe('payload_too_large');
      expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      // A public route (signing up, signing in) reads any caller's body: 413 as above.
      if (r.url.startsWith('/api/') && !r.public) {
        const anon = await e.app.inject({
          method: r.method as 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          payload: big,
        });
        expect(anon.statusCode, `${r.method} ${r.url} without a key`).toBe(401);
      }
    }
    // Just under the limit the body is read and judged on its merits.
    const under = JSON.stringify({ cedula: '1-0234-0567', name: 'x'.repeat(1_048_000) });
    const res = await e.app.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      payload: under,
    });
    expect(res.statusCode).toBe(422);
  });

  it('headers over 16 KB and malformed HTTP get a problem+json answer from the server itself', async () => {
    const res = await fetch(`${e.apiUrl}/health`, { headers: { 'x-pad': 'a'.repeat(20_000) } });
    expect(res.status).toBe(431);
    expect(await res.json()).toMatchObject({ status: 431, code: 'headers_too_large' });
    const { port } = new URL(e.apiUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET /health HTTP/9.9 nonsense\r\n\r\n'),
      );
      let got = '';
      socket.on('data', (d) => (got += d.toString()));
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'invalid_request' });
  });
});
