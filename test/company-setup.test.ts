// Setting a company up through the API: its profile (PATCH /api/v1/company), its .p12, its
// Hacienda API user (tested against an in-process Hacienda simulator's IDP), its logo, its
// branches and terminals, and the go-live checklist. Every refused input changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { pdfStateKey } from '../jobs/invoice-pdf.ts';
import { testLogoPng } from './helpers/logo.ts';
import { buildSimulator } from '../simulator/app.ts';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let companyId: number;
let key: string;
/** Hacienda's IDP for both modes: a simulator that knows two users. */
let idp: FastifyInstance;
const SANDBOX_USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const LIVE_USER = 'cpj-3-101-123456@prod.comprobanteselectronicos.go.cr';

beforeAll(async () => {
  idp = await buildSimulator({
    admin: false,
    logger: false,
    users: { [SANDBOX_USER]: 'clave-sandbox', [LIVE_USER]: 'clave-produccion' },
  });
  const idpUrl = await idp.listen({ port: 0, host: '127.0.0.1' });
  t = await startTestApp({
    HACIENDA_SANDBOX_IDP_URL: `${idpUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
    HACIENDA_PROD_IDP_URL: `${idpUrl}/auth/realms/rut/protocol/openid-connect/token`,
  });
  companyId = (await createTestCompany(t.db, { idNumber: '3101123456', legalName: 'Servicios Ejemplo S.A.' }))
    .id;
  key = (await createTestKey(t.db, companyId)).secret;
}, 60_000);

afterAll(async () => {
  await t?.close();
  await idp?.close();
});

const credentialsRow = (livemode: boolean) =>
  t.db('company_credentials').where({ companyId, livemode }).first();

const companyRow = () => t.db('companies').where({ id: companyId }).first();

describe('PATCH /api/v1/company', () => {
  it('changes the profile fields given and answers the company object', async () => {
    const res = await call(t.app, 'PATCH', '/api/v1/company', {
      key,
      body: {
        name: 'Servicios Ejemplo',
        commercial_name: 'Ejemplo Digital',
        phone: { number: '22334455' },
        email: 'facturacion@ejemplo.example',
        location: { provincia: '4', canton: '01', distrito: '01', otras_senas: 'Frente al parque central' },
        email_delivery: {
          enabled: true,
          reply_to: 'respuestas@ejemplo.example',
          bcc: ['copia@ejemplo.example'],
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json();
    expect(c.name).toBe('Servicios Ejemplo');
    expect(c.live_enabled).toBe(false);
    expect(c.emisor).toMatchObject({
      commercial_name: 'Ejemplo Digital',
      phone: { country_code: '506', number: '22334455' },
      emails: ['facturacion@ejemplo.example'],
      location: {
        provincia: '4',
        canton: '01',
        distrito: '01',
        barrio: null,
        otras_senas: 'Frente al parque central',
      },
    });
    expect(c.email_delivery).toEqual({
      enabled: true,
      reply_to: 'respuestas@ejemplo.example',
      bcc: ['copia@ejemplo.example'],
    });
    const row = await companyRow();
    expect(row.provincia).toBe('4');
    expect(row.emailBcc).toEqual(['copia@ejemplo.example']);
  });

  it('still changes the activity with a manage:keys key, checked against Hacienda’s register', async () => {
    const old = (await createTestKey(t.db, companyId, { scopes: ['manage:keys'] })).secret;
    const ok = await call(t.app, 'PATCH', '/api/v1/company', { key: old, body: { activity_code: '523101' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().emisor.activity_code).toBe('523101');
    const bad = await call(t.app, 'PATCH', '/api/v1/company', { key, body: { activity_code: '999999' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().code).toBe('activity_not_registered');
    const reader = (await createTestKey(t.db, companyId, { scopes: ['read:company'] })).secret;
    const refused = await call(t.app, 'PATCH', '/api/v1/company', { key: reader, body: { name: 'Otra' } });
    expect(refused.statusCode).toBe(403);
  });

  it('refuses emisor data Hacienda would refuse, naming each field, and changes nothing', async () => {
    const before = await companyRow();
    const res = await call(t.app, 'PATCH', '/api/v1/company', {
      key,
      body: {
        legal_name: 'Abc',
        commercial_name: 'X',
        email: 'no-es-correo',
        location: { provincia: '1', canton: '99', distrito: '01', otras_senas: 'Cal' },
        email_delivery: { reply_to: 'tampoco', bcc: ['a@b.example', 'mal'] },
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('validation_failed');
    const paths = res.json().errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/legal_name',
        '/commercial_name',
        '/location/canton',
        '/location/otras_senas',
        '/email',
        '/email_delivery/reply_to',
        '/email_delivery/bcc/1',
      ]),
    );
    const unknown = await call(t.app, 'PATCH', '/api/v1/company', { key, body: { identification: '1' } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0]).toMatchObject({ path: '/identification', code: 'unknown_field' });
    const empty = await call(t.app, 'PATCH', '/api/v1/company', { key, body: {} });
    expect(empty.statusCode).toBe(422);
    expect(await companyRow()).toEqual(before);
  });
});

describe('PUT /api/v1/company/certificate', () => {
  const put = (body: unknown) => call(t.app, 'PUT', '/api/v1/company/certificate', { key, body });
  const b64 = (b: Buffer) => b.toString('base64');
  const company = { idType: '02', idNumber: '3101123456', name: 'SERVICIOS EJEMPLO SOCIEDAD ANONIMA' };

  it('stores a current .p12 of the company, sealed, and answers its subject and expiry', async () => {
    const cert = await createTestCertificate({ ...company, pin: '4321' });
    const res = await put({ mode: 'live', p12_base64: b64(cert.p12), pin: '4321' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ mode: 'live', subject: expect.stringContaining('CPJ-3-101-123456') });
    expect(new Date(res.json().not_after).getTime()).toBeGreaterThan(Date.now());
    const row = await credentialsRow(true);
    expect(row.signingKeyEnc.length).toBeGreaterThan(1000);
    expect(row.signingKeyEnc.includes(cert.material.privateKeyPkcs8.subarray(0, 64))).toBe(false);
    const shown = (await call(t.app, 'GET', '/api/v1/company', { key })).json();
    expect(shown.certificate).toBeNull(); // a sandbox key sees its own mode
    expect(res.body).not.toContain(b64(cert.p12).slice(0, 40));
  });

  it('refuses garbage, a wrong PIN, an expired certificate and another taxpayer’s, storing nothing', async () => {
    const before = await credentialsRow(false);
    const now = Date.now();
    const good = await createTestCertificate({ ...company, pin: '1111' });
    const expired = await createTestCertificate({
      ...company,
      pin: '1111',
      notBefore: new Date(now - 800 * 86_400_000),
      notAfter: new Date(now - 86_400_000),
    });
    const future = await createTestCertificate({
      ...company,
      pin: '1111',
      notBefore: new Date(now + 86_400_000),
      notAfter: new Date(now + 700 * 86_400_000),
    });
    const other = await createTestCertificate({ ...company, idNumber: '3101654321', pin: '1111' });
    const cases: [unknown, string, string][] = [
      [
        { mode: 'test', p12_base64: b64(Buffer.from('esto no es un p12')), pin: '1111' },
        'p12_unreadable',
        '/p12_base64',
      ],
      [{ mode: 'test', p12_base64: '@@@ no base64', pin: '1111' }, 'p12_unreadable', '/p12_base64'],
      [{ mode: 'test', p12_base64: b64(good.p12), pin: '9999' }, 'p12_wrong_pin', '/pin'],
      [{ mode: 'test', p12_base64: b64(expired.p12), pin: '1111' }, 'certificate_expired', '/p12_base64'],
      [
        { mode: 'test', p12_base64: b64(future.p12), pin: '1111' },
        'certificate_not_yet_valid',
        '/p12_base64',
      ],
      [
        { mode: 'test', p12_base64: b64(other.p12), pin: '1111' },
        'certificate_other_taxpayer',
        '/p12_base64',
      ],
    ];
    for (const [body, code, path] of cases) {
      const res = await put(body);
      expect(res.statusCode, `${code}: ${res.body}`).toBe(422);
      expect(res.json().code).toBe(code);
      expect(res.json().errors[0].path).toBe(path);
      expect(res.json().detail).toMatch(/no se guardó nada/);
    }
    expect(await credentialsRow(false)).toEqual(before);
    const reader = (await createTestKey(t.db, companyId, { scopes: ['read:company', 'manage:keys'] })).secret;
    const refused = await call(t.app, 'PUT', '/api/v1/company/certificate', {
      key: reader,
      body: { mode: 'test', p12_base64: b64(good.p12), pin: '1111' },
    });
    expect(refused.statusCode).toBe(403);
  });
});

describe('Hacienda credentials', () => {
  const put = (body: unknown) => call(t.app, 'PUT', '/api/v1/company/hacienda_credentials', { key, body });
  const retest = (mode: string) =>
    call(t.app, 'POST', '/api/v1/company/hacienda_credentials/test', { key, body: { mode } });

  it('stores them once Hacienda’s IDP of the mode accepts them, the password sealed', async () => {
    const res = await put({ mode: 'live', username: LIVE_USER, password: 'clave-produccion' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ mode: 'live', username: LIVE_USER });
    const row = await credentialsRow(true);
    expect(row.haciendaUsername).toBe(LIVE_USER);
    expect(row.haciendaPasswordEnc.toString('latin1')).not.toContain('clave-produccion');
    expect(row.haciendaVerifiedAt.toISOString()).toBe(res.json().verified_at);
    const again = await retest('live');
    expect(again.statusCode, again.body).toBe(200);
    expect(new Date(again.json().verified_at).getTime()).toBeGreaterThanOrEqual(
      row.haciendaVerifiedAt.getTime(),
    );
  });

  it('a refused password is 422 and stores nothing; a missing user cannot be re-tested', async () => {
    const before = await credentialsRow(true);
    const res = await put({ mode: 'live', username: LIVE_USER, password: 'otra-clave' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'hacienda_credentials_rejected', idp_error: 'invalid_grant' });
    expect(res.json().errors[0].path).toBe('/password');
    expect(await credentialsRow(true)).toEqual(before);
    const missing = await retest('test');
    expect(missing.statusCode).toBe(409);
    expect(missing.json().code).toBe('hacienda_credentials_missing');
  });

  it('an unreachable IDP is 503 and stores nothing', async () => {
    await idp.close();
    const before = await credentialsRow(true);
    const res = await put({ mode: 'live', username: LIVE_USER, password: 'nueva-clave' });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().code).toBe('hacienda_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    const again = await retest('live');
    expect(again.statusCode).toBe(503);
    expect(await credentialsRow(true)).toEqual(before);
  });
});

describe('the logo', () => {
  const put = (body: unknown) => call(t.app, 'PUT', '/api/v1/company/logo', { key, body });
  const logoRow = () => t.db('company_logos').where({ companyId }).first();

  it('stores a real PNG, serves its bytes and removes it', async () => {
    const png = testLogoPng(300, 100);
    const res = await put({ content_type: 'image/png', data_base64: png.toString('base64') });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      content_type: 'image/png',
      size: png.length,
      width: 300,
      height: 100,
    });
    const got = await call(t.app, 'GET', '/api/v1/company/logo', { key });
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.rawPayload.equals(png)).toBe(true);
    // The PDF cache key carries the logo, so cached PDFs are drawn again with it.
    const state = { status: 'aceptada', haciendaStatus: 'aceptado', signedAt: new Date() };
    expect(pdfStateKey(state, res.json().sha256)).not.toBe(pdfStateKey(state));
    const gone = await call(t.app, 'DELETE', '/api/v1/company/logo', { key });
    expect(gone.statusCode).toBe(204);
    expect((await call(t.app, 'GET', '/api/v1/company/logo', { key })).statusCode).toBe(404);
  });

  it('refuses what is not an image of the type given, or is over 256 KB, keeping the logo it had', async () => {
    const png = testLogoPng(60, 20);
    expect((await put({ content_type: 'image/png', data_base64: png.toString('base64') })).statusCode).toBe(
      200,
    );
    const before = await logoRow();
    const big = Buffer.concat([png, Buffer.alloc(300 * 1024)]);
    const jpegHeaderOnly = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
    ]);
    const cases: [string, Buffer, string][] = [
      ['image/jpeg', png, 'logo_invalid'],
      ['image/png', png.subarray(0, png.length - 20), 'logo_invalid'],
      ['image/png', Buffer.from('GIF89a not a png at all'), 'logo_invalid'],
      ['image/jpeg', jpegHeaderOnly, 'logo_invalid'],
      ['image/png', big, 'logo_too_large'],
    ];
    for (const [type, bytes, code] of cases) {
      const res = await put({ content_type: type, data_base64: bytes.toString('base64') });
      expect(res.statusCode, `${type} ${code}: ${res.body}`).toBe(422);
      expect(res.json().code).toBe(code);
      expect(res.json().errors[0].path).toBe('/data_base64');
    }
    const gif = await put({ content_type: 'image/gif', data_base64: png.toString('base64') });
    expect(gif.statusCode).toBe(422);
    expect(await logoRow()).toEqual(before);
  });
});

describe('branches and terminals', () => {
  const post = (body: unknown) => call(t.app, 'POST', '/api/v1/company/branches', { key, body });
  const patch = (code: string, body: unknown) =>
    call(t.app, 'PATCH', `/api/v1/company/branches/${code}`, { key, body });
  const list = async () => (await call(t.app, 'GET', '/api/v1/company/branches', { key })).json().data;

  it('the first branch must be the default one; then others, their terminals and the defaults', async () => {
    expect(await list()).toEqual([]);
    const other = await post({ code: '002', name: 'Heredia' });
    expect(other.statusCode).toBe(422);
    expect(other.json().errors[0]).toMatchObject({ path: '/code', code: 'unknown_branch' });
    expect(await list()).toEqual([]);
    const main = await post({ code: '001', name: 'Casa matriz' });
    expect(main.statusCode, main.body).toBe(201);
    expect(main.json()).toEqual({
      code: '001',
      name: 'Casa matriz',
      terminals: [{ code: '00001', name: 'Terminal principal' }],
    });
    const heredia = await post({
      code: '002',
      name: 'Heredia',
      terminals: [
        { code: '00001', name: 'Caja 1' },
        { code: '00002', name: 'Caja 2' },
      ],
    });
    expect(heredia.statusCode, heredia.body).toBe(201);
    const again = await post({ code: '002', name: 'Otra' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('branch_exists');
    const dup = await post({
      code: '003',
      name: 'Cartago',
      terminals: [
        { code: '00001', name: 'A' },
        { code: '00001', name: 'B' },
      ],
    });
    expect(dup.statusCode).toBe(422);
    expect(dup.json().errors[0]).toMatchObject({ path: '/terminals/1/code', code: 'duplicate_terminal' });
    expect((await post({ code: '12', name: 'x' })).statusCode).toBe(422);
    expect((await list()).map((b: { code: string }) => b.code)).toEqual(['001', '002']);

    // The defaults must name a defined branch and one of its terminals.
    const toUnknown = await call(t.app, 'PATCH', '/api/v1/company', { key, body: { default_branch: '009' } });
    expect(toUnknown.statusCode).toBe(422);
    expect(toUnknown.json().errors[0]).toMatchObject({ path: '/default_branch', code: 'unknown_branch' });
    const moved = await call(t.app, 'PATCH', '/api/v1/company', {
      key,
      body: { default_branch: '002', default_terminal: '00002' },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().defaults).toMatchObject({ branch: '002', terminal: '00002' });
  });

  it('a branch is renamed or given a new list of terminals, never losing the default terminal', async () => {
    const renamed = await patch('002', { name: 'Heredia centro' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().name).toBe('Heredia centro');
    expect(renamed.json().terminals).toHaveLength(2);
    const dropping = await patch('002', { terminals: [{ code: '00001', name: 'Caja 1' }] });
    expect(dropping.statusCode).toBe(422);
    expect(dropping.json().errors[0]).toMatchObject({ path: '/terminals', code: 'unknown_terminal' });
    expect((await list())[1].terminals).toHaveLength(2);
    const replaced = await patch('002', {
      terminals: [
        { code: '00002', name: 'Caja rápida' },
        { code: '00003', name: 'Caja 3' },
      ],
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().terminals.map((x: { code: string }) => x.code)).toEqual(['00002', '00003']);
    expect((await patch('007', { name: 'Nada' })).statusCode).toBe(404);
  });
});

describe('going live', () => {
  const checklist = async () => (await call(t.app, 'GET', '/api/v1/company/go_live', { key })).json();

  it('names what is missing and refuses to go live until every item is done', async () => {
    // Earlier tests stored a live certificate and live credentials that the IDP accepted.
    const before = await checklist();
    expect(before.ready).toBe(false);
    expect(before.live_enabled).toBe(false);
    expect(before.checklist.map((c: { item: string; done: boolean }) => [c.item, c.done])).toEqual([
      ['live_certificate', true],
      ['live_credentials', true],
      ['sandbox_document_accepted', false],
    ]);
    expect(before.checklist[2].label_es).toMatch(/aceptado/);
    const refused = await call(t.app, 'POST', '/api/v1/company/go_live', { key });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'go_live_checklist_incomplete',
      missing: ['sandbox_document_accepted'],
    });
    expect((await companyRow()).liveEnabledAt).toBeNull();
  });

  it('goes live once a sandbox document was accepted; the company object says so', async () => {
    const seq = Math.floor(Math.random() * 1e6);
    await t.db('invoices').insert({
      companyId,
      livemode: false,
      docType: '01',
      branch: '001',
      terminal: '00001',
      number: seq,
      clave: `50601012600310112345600100001010${String(seq).padStart(10, '0')}18`.slice(0, 50),
      consecutivo: `0010000101${String(seq).padStart(10, '0')}`,
      status: 'aceptada',
      currency: 'CRC',
      exchangeRate: '1',
      condition: 'contado',
      condicionVenta: '01',
      paymentMethods: JSON.stringify(['efectivo']),
      total: '1000',
      balanceDue: '0',
      lines: JSON.stringify([]),
      summary: JSON.stringify({}),
    });
    const res = await call(t.app, 'POST', '/api/v1/company/go_live', { key });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ready: true, live_enabled: true });
    const at = (await companyRow()).liveEnabledAt;
    expect(at).toBeInstanceOf(Date);
    expect((await call(t.app, 'POST', '/api/v1/company/go_live', { key })).statusCode).toBe(200);
    expect((await companyRow()).liveEnabledAt).toEqual(at);
    expect((await call(t.app, 'GET', '/api/v1/company', { key })).json().live_enabled).toBe(true);
  });
});
