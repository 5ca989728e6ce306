// The command-line tool as scripts use it: a real subprocess against a test database.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateXml } from './helpers/xsd.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { call, startTestApp, TEST_SECRETS_KEY, type TestApp } from './helpers/app.ts';
import { testRedisUrl } from './helpers/db-urls.ts';

const run = promisify(execFile);
let t: TestApp;
/** Temporary folders of this file's input documents, removed at the end. */
const tempDirs: string[] = [];

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], {
      env: {
        ...process.env,
        DATABASE_URL: t.database.url,
        REDIS_URL: testRedisUrl(),
        // The deployment's prefix, so the key changes it announces reach the test's API.
        QUEUE_PREFIX: t.config.queuePrefix,
        SECRETS_KEY: TEST_SECRETS_KEY,
        NODE_ENV: 'test',
      },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  await t.close();
});

// Each command is a real `tsx` process (a second or two to start under load).
vi.setConfig({ testTimeout: 180_000 });

describe('npm run cli', () => {
  it('creates a company and a key whose secret works against the API, printing JSON', async () => {
    const company = await cli([
      'company',
      'create',
      '--name',
      'Ferretería El Clavo',
      '--cedula',
      '3-101-555555',
      '--id-type',
      '02',
      '--plan',
      'business',
      '--demo',
      '--json',
    ]);
    expect(company.code).toBe(0);
    const c = JSON.parse(company.stdout);
    expect(c).toMatchObject({
      object: 'company',
      plan: 'business',
      emisor: { identification: { type: '02', number: '3101555555' } },
    });
    expect(c.id).toMatch(/^cmp_\d{12}$/);

    const key = await cli([
      'key',
      'create',
      '--company',
      c.id,
      '--scopes',
      'read:clients,write:clients',
      '--mode',
      'test',
      '--name',
      'erp',
      '--json',
    ]);
    expect(key.code).toBe(0);
    const k = JSON.parse(key.stdout);
    expect(k.id).toMatch(/^key_\d{12}$/);
    expect(k.secret).toMatch(/^ik_test_/);
    expect(k.scopes).toEqual(['read:clients', 'write:clients']);
    const res = await call(t.app, 'POST', '/api/v1/clients', {
      key: k.secret,
      body: { cedula: '102340567', name: 'Ana Mora' },
    });
    expect(res.statusCode).toBe(201);

    const listed = await cli(['key', 'list', '--company', c.id, '--json']);
    expect(listed.stdout).not.toContain(k.secret);
    expect(JSON.parse(listed.stdout).map((x: { id: string }) => x.id)).toContain(k.id);

    const rolled = await cli(['key', 'roll', '--company', c.id, '--key', k.id, '--grace', '0', '--json']);
    const r = JSON.parse(rolled.stdout);
    expect(r.secret).not.toBe(k.secret);
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: r.secret })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: k.secret })).statusCode).toBe(401);

    const revoked = await cli(['key', 'revoke', '--company', c.id, '--key', k.id, '--json']);
    expect(JSON.parse(revoked.stdout).revoked_at).not.toBeNull();
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: r.secret })).json().code).toBe(
      'api_key_revoked',
    );

    const svc = await cli([
      'service',
      'add',
      '--company',
      c.id,
      '--cabys',
      '4299101019900',
      '--description',
      'Martillo de acero',
      '--unit',
      'Unid',
      '--iva-rate-code',
      '08',
      '--price',
      '4500',
      '--json',
    ]);
    expect(JSON.parse(svc.stdout)).toMatchObject({
      object: 'service',
      kind: 'goods',
      price: '4500.00',
      livemode: false,
    });
  });

  it('key create --secret-only prints the secret alone, for export KEY=$(…)', async () => {
    const company = await cli([
      'company',
      'create',
      '--name',
      'Llaves del Valle',
      '--cedula',
      '3-101-555566',
      '--id-type',
      '02',
      '--plan',
      'business',
      '--demo',
      '--json',
    ]);
    expect(company.code, company.stderr).toBe(0);
    const id = (JSON.parse(company.stdout) as { id: string }).id;
    const made = await cli(['key', 'create', '--company', id, '--scopes', 'read:clients', '--secret-only']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^ik_test_[0-9A-Za-z]{32,}\n$/);
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: made.stdout.trim() })).statusCode).toBe(200);

    const both = await cli(['key', 'create', '--company', id, '--scopes', 'all', '--secret-only', '--json']);
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    expect(both.stderr).toContain('--secret-only and --json');
  });

  it('rejects bad input with a clear message and a non-zero exit', async () => {
    const badPlan = await cli([
      'company',
      'create',
      '--name',
      'Empresa X',
      '--cedula',
      '3101666666',
      '--id-type',
      '02',
      '--plan',
      'gold',
      '--json',
    ]);
    expect(badPlan.code).not.toBe(0);
    expect(badPlan.stderr).toContain('--plan');
    // Ten digits may be a jurídica or a NITE: the type is asked for, never guessed.
    const noType = await cli([
      'company',
      'create',
      '--name',
      'Empresa X',
      '--cedula',
      '3101666666',
      '--plan',
      'business',
    ]);
    expect(noType.code).not.toBe(0);
    expect(noType.stderr).toContain(
      '--cedula: 3101666666 puede ser cédula jurídica (02) o NITE (04): indique --id-type',
    );
    expect(await t.db('companies').where({ idNumber: '3101666666' }).first()).toBeUndefined();
    const badScope = await cli(['key', 'create', '--company', '1', '--scopes', 'root', '--json']);
    expect(badScope.code).not.toBe(0);
    expect(badScope.stderr).toContain('unknown scope');
    const noCompany = await cli([
      'key',
      'create',
      '--company',
      'cmp_000000009999',
      '--scopes',
      'read:clients',
      '--json',
    ]);
    expect(noCompany.code).not.toBe(0);
    expect(noCompany.stderr).toContain('no company');
  });

  it('document build prints the XML the service would send, signed by a demo company at once', async () => {
    const company = JSON.parse(
      (
        await cli([
          'company',
          'create',
          '--name',
          'Librería Central',
          '--cedula',
          '3-101-444444',
          '--id-type',
          '02',
          '--plan',
          'business',
          '--demo',
          '--json',
        ])
      ).stdout,
    );
    const key = JSON.parse(
      (await cli(['key', 'create', '--company', company.id, '--scopes', 'all', '--json'])).stdout,
    ).secret;
    const client = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { cedula: '3-101-123456', identification_type: '02', name: 'Cliente Corporativo S.A.' },
    });
    const services = await call(t.app, 'GET', '/api/v1/services', { key });
    const dir = mkdtempSync(join(tmpdir(), 'doc-'));
    tempDirs.push(dir);
    const shapeB = join(dir, 'b.json');
    writeFileSync(
      shapeB,
      JSON.stringify({
        clientId: client.json().uuid,
        lines: services.json().data.map((x: any) => ({ serviceId: x.uuid, qty: 2 })),
      }),
    );
    const signed = await cli(['document', 'build', '--input', shapeB, '--company', company.id, '--sign']);
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<FacturaElectronica /);
    expect(signed.stdout).toContain('<NumeroConsecutivo>00100001010000000001</NumeroConsecutivo>');
    expect((await validateXml('FacturaElectronica', signed.stdout)).valid).toBe(true);
    expect((await verifyXadesSignature(signed.stdout)).valid).toBe(true);
    const unsigned = await cli(['document', 'build', '--input', shapeB, '--company', company.id]);
    expect(unsigned.stdout).not.toContain('ds:Signature');
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ client_id: 'cli_000099999999', lines: [{ service_id: 'srv_000099999999', qty: 0 }] }),
    );
    const refused = await cli(['document', 'build', '--input', bad, '--company', company.id]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('/lines/0/qty');
    // The API's rules, not fewer: XSD lengths and characters, payment method otros with its text.
    const tooLong = join(dir, 'long.json');
    writeFileSync(
      tooLong,
      JSON.stringify({
        clientId: client.json().uuid,
        condition: 'otros',
        condition_other: 'c'.repeat(150),
        paymentMethod: 'otros',
        lines: [{ serviceId: services.json().data[0].uuid, qty: 1e20, description: 'd'.repeat(201) }],
      }),
    );
    const long = await cli(['document', 'build', '--input', tooLong, '--company', company.id]);
    expect(long.code).not.toBe(0);
    expect(long.stderr).toMatch(/\/lines\/0\/description: must have at most 200 characters/);
    expect(long.stderr).toMatch(/\/condition_other: must have at most 100 characters/);
    expect(long.stderr).toMatch(/\/paymentMethodOther: is required/);
    expect(long.stderr).toMatch(/\/lines\/0\/qty: qty is too large: at most 13 integer digits/);
    const service = await cli([
      'service', 'add', '--company', company.id, '--cabys', '8314100000200', '--description',
      'Servicio\u0007de prueba', '--unit', 'Sp', '--iva-rate-code', '08', '--price', '10',
    ]); // prettier-ignore
    expect(service.code).not.toBe(0);
    expect(service.stderr).toMatch(/--description: contains U\+0007/);
    const nowhere = await cli([
      'company', 'create', '--name', 'Tienda Sin Lugar', '--cedula', '3-101-777777', '--id-type', '02', '--plan', 'business',
      '--provincia', '1', '--canton', '99', '--distrito', '01', '--otras-senas', 'Frente al parque',
    ]); // prettier-ignore
    expect(nowhere.code).not.toBe(0);
    expect(nowhere.stderr).toMatch(/--canton: 99 is not a cantón of San José/);
  });
});
