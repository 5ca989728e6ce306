// The OpenAPI document and the API agree. /openapi.json validates as OpenAPI 3.1 (and its
// examples against their own schemas); then every documented operation is driven for real over
// HTTP (API, workers and the Hacienda simulator, invoices flowing to `aceptada`) and each answer
// must have a documented status, the documented media type and a body that the documented schema
// accepts (Ajv, JSON Schema 2020-12). Every operation must be seen succeeding at least once, and
// answering 401 without a key: a route added without a driver here fails this test. Named schemas
// and the shared error answers are components ($ref), resolved here against the document.
import { createServer, type Server } from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, saveCompanyCertificate, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { supplierInvoice } from './helpers/supplier-documents.ts';
import { waitFor } from './helpers/wait.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { testLogoPng } from './helpers/logo.ts';
import { startCatcherProcess, type CatcherProcess } from './helpers/mail-catcher.ts';
import * as OTPAuth from 'otpauth';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Json = Record<string, any>;
type Res = Awaited<ReturnType<typeof api>>;

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let doc: Json;
/** doc.paths with the shared answers ($ref to components.responses) written out. */
let paths: Json;
let receiver: Server;
let receiverUrl: string;
let catcher: CatcherProcess;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const seen = new Map<string, Set<number>>();
const pad = (n: number) => String(n).padStart(12, '0');

beforeAll(async () => {
  catcher = await startCatcherProcess();
  e = await startE2E({ env: { SMTP_URL: catcher.smtpUrl } });
  s = await seedIssuer(e.db, e.config);
  doc = (await (await fetch(`${e.apiUrl}/openapi.json`)).json()) as Json;
  paths = resolveResponses(doc);
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
});
afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  await e?.close();
  await catcher?.stop();
});

function resolveResponses(d: Json): Json {
  const ref = (r: Json) => (r.$ref ? d.components.responses[String(r.$ref).split('/').pop()!] : r);
  return Object.fromEntries(
    Object.entries(d.paths as Json).map(([p, item]) => [
      p,
      Object.fromEntries(
        Object.entries(item as Json).map(([m, op]) => [
          m,
          {
            ...(op as Json),
            responses: Object.fromEntries(
              Object.entries((op as Json).responses as Json).map(([st, r]) => [st, ref(r as Json)]),
            ),
          },
        ]),
      ),
    ]),
  );
}

/** A schema of the document, compiled with the document's components in reach of its $refs. */
function compile(schema: Json) {
  return ajv.compile({ ...schema, components: doc.components });
}

function operation(method: string, path: string): Json | undefined {
  return paths[path]?.[method.toLowerCase()];
}

/** Asserts that a real answer is what the document says for this operation and status. */
function check(method: string, path: string, res: Res, keyed = true): Res {
  const op = operation(method, path);
  expect(op, `${method} ${path} is not documented`).toBeDefined();
  const where = `${method} ${path} → ${res.status}`;
  const documented = op!.responses[String(res.status)] as Json | undefined;
  expect(documented, `${where}: status not documented (body ${res.text.slice(0, 300)})`).toBeDefined();
  const key = `${method} ${path}`;
  if (!seen.has(key)) seen.set(key, new Set());
  seen.get(key)!.add(res.status);
  if (!documented!.content) {
    expect(res.text, `${where}: undocumented body`).toBe('');
    return res;
  }
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const media = documented!.content[type] as Json | undefined;
  expect(
    media,
    `${where}: content type ${type} not documented (${Object.keys(documented!.content)})`,
  ).toBeDefined();
  const body = type.endsWith('json') ? JSON.parse(res.text) : res.text;
  const validate = compile(media!.schema);
  expect(validate(body), `${where}: ${JSON.stringify(validate.errors?.slice(0, 5))}`).toBe(true);
  // Keys' requests say their rate limit (people's and public ones carry no key's limit).
  if (keyed && path.startsWith('/api/') && res.status !== 401) {
    expect(res.headers.get('ratelimit-policy'), `${where}: RateLimit-Policy`).toMatch(/^\d+;w=1$/);
  }
  return res;
}

async function drive(
  method: string,
  path: string,
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  return check(method, path, await api(e, method, url, s.key, body, headers));
}

/** Every route of setting a company up, to a success and to a refusal. */
async function driveCompanySetup(): Promise<void> {
  const c = s.company;
  await drive('PATCH', '/api/v1/company', '/api/v1/company', { commercial_name: 'Ejemplo Digital' });
  await drive('POST', '/api/v1/company/go_live', '/api/v1/company/go_live');
  const cert = await createTestCertificate({
    idType: '02',
    idNumber: c.idNumber,
    name: c.legalName,
    pin: '2468',
  });
  const p12 = cert.p12.toString('base64');
  const certificate = '/api/v1/company/certificate';
  await drive('PUT', certificate, certificate, { mode: 'live', p12_base64: p12, pin: '2468' });
  await drive('PUT', certificate, certificate, { mode: 'live', p12_base64: p12, pin: '0000' });
  const credentials = '/api/v1/company/hacienda_credentials';
  const user = `cpj-${c.idNumber}@prod.comprobanteselectronicos.go.cr`;
  await drive('PUT', credentials, credentials, {
    mode: 'live',
    username: user,
    password: 'clave-de-produccion',
  });
  await drive('POST', `${credentials}/test`, `${credentials}/test`, { mode: 'live' });
  await drive('GET', '/api/v1/company/go_live', '/api/v1/company/go_live');
  expect((await drive('POST', '/api/v1/company/go_live', '/api/v1/company/go_live')).status).toBe(200);
  const logo = '/api/v1/company/logo';
  await drive('PUT', logo, logo, {
    content_type: 'image/png',
    data_base64: testLogoPng().toString('base64'),
  });
  await drive('PUT', logo, logo, {
    content_type: 'image/jpeg',
    data_base64: testLogoPng().toString('base64'),
  });
  await drive('GET', logo, logo);
  await drive('DELETE', logo, logo);
  await drive('GET', logo, logo);
  const branches = '/api/v1/company/branches';
  await drive('POST', branches, branches, { code: '001', name: 'Casa matriz' });
  await drive('POST', branches, branches, { code: '001', name: 'Otra vez' });
  await drive('GET', branches, branches);
  await drive('PATCH', `${branches}/{code}`, `${branches}/001`, { name: 'Casa central' });
  await drive('PATCH', `${branches}/{code}`, `${branches}/009`, { name: 'Ninguna' });
}

/** A browser: its session cookie, CSRF token and the company it acts for. */
interface Browser {
  cookie: string | null;
  csrf: string | null;
  company: string | null;
}

/** A request as the application sends it (cookie, X-CSRF-Token, Factura-Company), checked. */
async function driveAs(b: Browser, method: string, path: string, url: string, body?: unknown) {
  const res = await fetch(`${e.apiUrl}${url}`, {
    method,
    headers: {
      ...(b.cookie ? { cookie: `factura_session=${b.cookie}` } : {}),
      ...(b.csrf && method !== 'GET' ? { 'x-csrf-token': b.csrf } : {}),
      ...(b.company ? { 'factura-company': b.company } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const set = res.headers.getSetCookie().find((c) => c.startsWith('factura_session='));
  if (set) b.cookie = set.split(';')[0]!.slice('factura_session='.length) || null;
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return check(method, path, { status: res.status, headers: res.headers, json, text }, false);
}

/** The token of the last email to `to` linking to the application's `page`. */
async function mailedToken(to: string, page: string): Promise<string> {
  const re = new RegExp(`/app/${page}\\?token=([A-Za-z0-9_-]{43})`);
  const find = async () =>
    (await catcher.messages()).findLast((m) => m.to.includes(to) && re.test(m.text ?? ''));
  await waitFor(async () => (await find()) !== undefined, 15_000, 100, `the email to ${to}`);
  return re.exec((await find())!.text!)![1]!;
}

const PASSWORD = 'correct horse 42';

/** Signs a person up, confirms the email from the link mailed and signs in. */
async function drivePersonIn(email: string, name: string): Promise<Browser> {
  const b: Browser = { cookie: null, csrf: null, company: null };
  const up = '/api/v1/account/sign_up';
  expect((await driveAs(b, 'POST', up, up, { email, password: PASSWORD, name })).status).toBe(201);
  await driveAs(b, 'POST', up, up, { email, password: 'short', name });
  const token = await mailedToken(email, 'confirmar');
  const confirm = '/api/v1/account/confirm';
  expect((await driveAs(b, 'POST', confirm, confirm, { token })).status).toBe(200);
  await driveAs(b, 'POST', confirm, confirm, { token });
  const session = '/api/v1/session';
  await driveAs(b, 'POST', session, session, { email, password: 'wrong horse 42' });
  const signed = await driveAs(b, 'POST', session, session, { email, password: PASSWORD });
  expect(signed.status, signed.text).toBe(200);
  b.csrf = signed.json.csrf_token;
  return b;
}

/** A person's own account: sessions, two-step sign-in, password reset, signing out. */
async function driveAccount(email: string, b: Browser): Promise<void> {
  const other: Browser = { cookie: null, csrf: null, company: null };
  const session = '/api/v1/session';
  await driveAs(other, 'POST', session, session, { email, password: PASSWORD });
  expect((await driveAs(b, 'GET', session, session)).status).toBe(200);
  const account = '/api/v1/account';
  const renamed = await driveAs(b, 'PATCH', account, account, { name: 'Dueña C.', locale: 'en' });
  expect(renamed.json.user).toMatchObject({ name: 'Dueña C.', locale: 'en' });
  await driveAs(b, 'PATCH', account, account, { name: ' ' });
  const sessions = '/api/v1/account/sessions';
  const list = await driveAs(b, 'GET', sessions, sessions);
  const theOther = (list.json.data as Json[]).find((x) => !x.current)!;
  const one = `${sessions}/{id}`;
  expect((await driveAs(b, 'DELETE', one, `${sessions}/${theOther.id}`)).status).toBe(204);
  await driveAs(b, 'DELETE', one, `${sessions}/ses_000000999999`);
  const totp = '/api/v1/account/totp';
  const setup = await driveAs(b, 'POST', totp, totp);
  const code = () => OTPAuth.URI.parse(setup.json.otpauth_url).generate();
  await driveAs(b, 'POST', `${totp}/confirm`, `${totp}/confirm`, {
    code: '000000' === code() ? '111111' : '000000',
  });
  expect((await driveAs(b, 'POST', `${totp}/confirm`, `${totp}/confirm`, { code: code() })).status).toBe(200);
  expect((await driveAs(b, 'DELETE', totp, totp, { code: code() })).status).toBe(200);
  const reset = '/api/v1/account/password_reset';
  expect((await driveAs(other, 'POST', reset, reset, { email })).status).toBe(202);
  const token = await mailedToken(email, 'restablecer');
  const confirm = `${reset}/confirm`;
  await driveAs(other, 'POST', confirm, confirm, { token, password: 'short' });
  expect((await driveAs(other, 'POST', confirm, confirm, { token, password: PASSWORD })).status).toBe(200);
  const again = await driveAs(b, 'POST', session, session, { email, password: PASSWORD });
  b.csrf = again.json.csrf_token;
  expect((await driveAs(b, 'DELETE', session, session)).status).toBe(204);
  const back = await driveAs(b, 'POST', session, session, { email, password: PASSWORD });
  b.csrf = back.json.csrf_token;
}

/** A company registered by a person, its members and invitations. */
async function driveMembers(owner: Browser, guest: Browser, guestEmail: string): Promise<void> {
  const companies = '/api/v1/companies';
  const company = await driveAs(owner, 'POST', companies, companies, {
    identification: '3-101-777777',
    id_type: '02',
    name: 'Conformidad S.A.',
    activity_code: '620100',
  });
  expect(company.status, company.text).toBe(201);
  await driveAs(owner, 'POST', companies, companies, { identification: '3-101-777777', name: 'Otra' });
  owner.company = company.json.id;
  const members = '/api/v1/members';
  const invitations = `${members}/invitations`;
  const dropped = await driveAs(owner, 'POST', invitations, invitations, {
    email: 'x@e.example',
    role: 'viewer',
  });
  expect(dropped.status, dropped.text).toBe(201);
  await driveAs(owner, 'POST', invitations, invitations, { email: 'x@e.example', role: 'emperor' });
  const oneInvitation = `${invitations}/{id}`;
  expect((await driveAs(owner, 'DELETE', oneInvitation, `${invitations}/${dropped.json.id}`)).status).toBe(
    204,
  );
  await driveAs(owner, 'DELETE', oneInvitation, `${invitations}/ivt_000000999999`);
  await driveAs(owner, 'POST', invitations, invitations, { email: guestEmail, role: 'viewer' });
  const accept = '/api/v1/invitations/accept';
  const token = await mailedToken(guestEmail, 'invitacion');
  expect((await driveAs(guest, 'POST', accept, accept, { token })).status).toBe(200);
  await driveAs(guest, 'POST', accept, accept, { token });
  const list = await driveAs(owner, 'GET', members, members);
  expect(list.status).toBe(200);
  const guestId = (list.json.data as Json[]).find((m) => m.user.email === guestEmail)!.user.id;
  const me = (list.json.data as Json[]).find((m) => m.user.email !== guestEmail)!.user.id;
  const member = `${members}/{id}`;
  expect(
    (await driveAs(owner, 'PATCH', member, `${members}/${guestId}`, { role: 'accountant' })).status,
  ).toBe(200);
  await driveAs(owner, 'PATCH', member, `${members}/${me}`, { role: 'viewer' });
  expect((await driveAs(owner, 'DELETE', member, `${members}/${guestId}`)).status).toBe(204);
  await driveAs(owner, 'DELETE', member, `${members}/${me}`);
}

/** People's side: accounts, sessions, a company of their own, its members. */
async function drivePeople(): Promise<void> {
  const owner = await drivePersonIn('duena@conformidad.example', 'Dueña Conformidad');
  await driveAccount('duena@conformidad.example', owner);
  const guest = await drivePersonIn('invitada@conformidad.example', 'Invitada');
  await driveMembers(owner, guest, 'invitada@conformidad.example');
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents every operation with its errors, security and an example per response', () => {
    const ops = Object.entries(paths).flatMap(([p, item]) =>
      Object.entries(item as Json).map(([m, op]) => ({ p, m, op: op as Json })),
    );
    expect(ops.length).toBeGreaterThanOrEqual(20);
    for (const { p, m, op } of ops) {
      const where = `${m.toUpperCase()} ${p}`;
      expect(op.summary ?? op.description, `${where}: summary`).toBeTruthy();
      if (!p.startsWith('/api/')) continue;
      // Signing up, in and resetting a password take no credentials (and say so).
      if (p.startsWith('/api/v1/account/') && op.security?.length === 0) continue;
      if (p === '/api/v1/session' && m === 'post') {
        expect(op.security, `${where}: security`).toEqual([]);
        continue;
      }
      expect(op.security, `${where}: security`).toEqual([{ bearerAuth: [] }]);
      for (const status of ['401', '403', '429', '503']) {
        expect(
          op.responses[status]?.content?.['application/problem+json'],
          `${where}: ${status}`,
        ).toBeDefined();
      }
      expect(op.responses['429'].headers['Retry-After'], `${where}: Retry-After`).toBeDefined();
      for (const [status, r] of Object.entries(op.responses as Json)) {
        for (const [type, media] of Object.entries(((r as Json).content ?? {}) as Json)) {
          const m2 = media as Json;
          const example = m2.example ?? Object.values((m2.examples ?? {}) as Json)[0]?.value;
          expect(example, `${where} ${status} ${type}: example`).toBeDefined();
          if (type.endsWith('json')) {
            const validate = compile(m2.schema);
            expect(validate(example), `${where} ${status}: example ${JSON.stringify(validate.errors)}`).toBe(
              true,
            );
          }
        }
      }
      const body = op.requestBody?.content?.['application/json'];
      if (body) {
        const example = body.example ?? Object.values((body.examples ?? {}) as Json)[0]?.value;
        expect(example, `${where}: request example`).toBeDefined();
        const validate = compile(body.schema);
        expect(validate(example), `${where}: request example ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      // Typed clients get one named type per answer: JSON answers are components, errors Problem.
      for (const [status, r] of Object.entries(op.responses as Json)) {
        const json = (r as Json).content?.['application/json'];
        if (json)
          expect(json.schema.$ref, `${where} ${status}: a named schema`).toMatch(/^#\/components\/schemas\//);
        const problem = (r as Json).content?.['application/problem+json'];
        if (problem) expect(problem.schema.$ref, `${where} ${status}`).toBe('#/components/schemas/Problem');
      }
    }
  }, 180_000); // every operation checked: longer than the default on a busy machine
});

describe('the docs page', () => {
  it('/docs serves Swagger UI from this server only (works offline)', async () => {
    const page = await fetch(`${e.apiUrl}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/swagger-ui/i);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const a of assets) {
      expect(a, 'no external assets').not.toMatch(/^(https?:)?\/\//);
      const res = await fetch(new URL(a, `${e.apiUrl}/docs/`));
      expect(res.status, a).toBe(200);
    }
    const init = await (await fetch(`${e.apiUrl}/docs/static/swagger-initializer.js`)).text();
    expect(init).toMatch(/json/);
  });
});

describe('real responses match the documented schemas', () => {
  it('drives every documented operation', async () => {
    // Operations, health, the Hacienda callback (a bad token is acknowledged, not trusted).
    check('GET', '/health', await api(e, 'GET', '/health', ''));
    check('GET', '/ready', await api(e, 'GET', '/ready', ''));
    check(
      'POST',
      '/hacienda/callback',
      await api(e, 'POST', '/hacienda/callback?t=nope', '', { clave: '5'.repeat(50) }),
    );

    // Company, keys.
    await drive('GET', '/api/v1/company', '/api/v1/company');
    await drive('PATCH', '/api/v1/company', '/api/v1/company', { activity_code: '620100' });
    await drive('PATCH', '/api/v1/company', '/api/v1/company', { activity_code: '999999' });
    // Hacienda's public data (the simulator's register and rates).
    await drive('GET', '/api/v1/taxpayers/{cedula}', '/api/v1/taxpayers/3101123456');
    await drive('GET', '/api/v1/taxpayers/{cedula}', '/api/v1/taxpayers/199999999');
    await drive('GET', '/api/v1/exchange_rates/USD', '/api/v1/exchange_rates/USD');
    await drive('GET', '/api/v1/exchange_rates/USD', '/api/v1/exchange_rates/USD?date=2999-01-01');
    const key = (
      await drive('POST', '/api/v1/keys', '/api/v1/keys', { name: 'conformance', scopes: ['read:clients'] })
    ).json;
    await drive('POST', '/api/v1/keys', '/api/v1/keys', { scopes: ['nope'] });
    await drive('GET', '/api/v1/keys', '/api/v1/keys');
    await drive('POST', '/api/v1/keys/{id}/roll', `/api/v1/keys/${key.id}/roll`, { grace_period_seconds: 0 });
    await drive('DELETE', '/api/v1/keys/{id}', `/api/v1/keys/${key.id}`);
    await drive('POST', '/api/v1/keys/{id}/roll', `/api/v1/keys/${key.id}/roll`, {});
    await drive('DELETE', '/api/v1/keys/{id}', '/api/v1/keys/key_000000999999');

    // Clients and services.
    const client = (
      await drive('POST', '/api/v1/clients', '/api/v1/clients', {
        cedula: '3-101-654321',
        identification_type: '02',
        name: 'Comercializadora del Valle S.A.',
        email: 'facturas@valle.example',
        addresses: [{ provincia: '1', canton: '01', distrito: '01', otras_senas: 'Avenida 2, calle 5' }],
      })
    ).json;
    await drive('POST', '/api/v1/clients', '/api/v1/clients', {
      cedula: '3-101-654321',
      identification_type: '02',
      name: 'Otra vez S.A.',
    });
    await drive('POST', '/api/v1/clients', '/api/v1/clients', { cedula: '1', name: 'x' });
    await drive('GET', '/api/v1/clients/{id}', `/api/v1/clients/${client.id}`);
    await drive('GET', '/api/v1/clients/{id}', '/api/v1/clients/cli_000000999999');
    await drive('GET', '/api/v1/clients', '/api/v1/clients?name=valle');
    await drive('GET', '/api/v1/clients', '/api/v1/clients?limit=0');
    const service = (
      await drive('POST', '/api/v1/services', '/api/v1/services', {
        cabys: '8314100000200',
        description: 'Soporte técnico',
        unit: 'Sp',
        iva_rate_code: '08',
        price: '15000.00',
      })
    ).json;
    await drive('GET', '/api/v1/services/{id}', `/api/v1/services/${service.id}`);
    await drive('GET', '/api/v1/services/{id}', '/api/v1/services/srv_000000999999');
    await drive('GET', '/api/v1/services', '/api/v1/services');
    // Editing and archiving clients and services.
    await drive('PATCH', '/api/v1/clients/{id}', `/api/v1/clients/${client.id}`, { phone: '22223333' });
    await drive('PATCH', '/api/v1/clients/{id}', `/api/v1/clients/${client.id}`, { name: 'x' });
    await drive('PATCH', '/api/v1/clients/{id}', '/api/v1/clients/cli_000000999999', { phone: '22223333' });
    await drive('POST', '/api/v1/clients/{id}/archive', `/api/v1/clients/${client.id}/archive`);
    await drive('POST', '/api/v1/clients/{id}/unarchive', `/api/v1/clients/${client.id}/unarchive`);
    await drive('GET', '/api/v1/clients', '/api/v1/clients?include_archived=true');
    await drive('PATCH', '/api/v1/services/{id}', `/api/v1/services/${service.id}`, { price: '16000.00' });
    await drive('PATCH', '/api/v1/services/{id}', `/api/v1/services/${service.id}`, {
      cabys: '0000000000000',
    });
    await drive('POST', '/api/v1/services/{id}/archive', `/api/v1/services/${service.id}/archive`);
    await drive('POST', '/api/v1/services/{id}/unarchive', `/api/v1/services/${service.id}/unarchive`);
    await drive('POST', '/api/v1/services/{id}/archive', '/api/v1/services/srv_000000999999/archive');
    // The official CABYS catalogue.
    expect((await drive('GET', '/api/v1/cabys', '/api/v1/cabys?q=desarrollo%20aplicaciones')).status).toBe(
      200,
    );
    await drive('GET', '/api/v1/cabys', '/api/v1/cabys?q=cafe&limit=0');
    expect((await drive('GET', '/api/v1/cabys/{code}', '/api/v1/cabys/8314100000200')).status).toBe(200);
    expect((await drive('GET', '/api/v1/cabys/{code}', '/api/v1/cabys/0000000000000')).status).toBe(404);

    // Invoices: one issued and accepted, one draft issued later.
    const cli = `cli_${pad(s.client.id)}`;
    const srv = `srv_${pad(s.consulting.id)}`;
    const invoice = (
      await drive('POST', '/api/v1/invoices', '/api/v1/invoices', {
        client_id: cli,
        // On credit, so that it is paid through the payments API below (cash sales are paid at issue).
        condition: 'credito_30',
        lines: [{ service_id: srv, qty: 2, unit_price: '1500.00' }],
      })
    ).json;
    await drive('POST', '/api/v1/invoices', '/api/v1/invoices', { client_id: cli, lines: [] });
    await drive('POST', '/api/v1/invoices/preview', '/api/v1/invoices/preview', {
      client_id: cli,
      lines: [{ service_id: srv, qty: 2, unit_price: '1500.00' }],
    });
    await drive('POST', '/api/v1/invoices/preview', '/api/v1/invoices/preview', {
      client_id: cli,
      lines: [],
    });
    const draft = (
      await drive('POST', '/api/v1/invoices', '/api/v1/invoices', {
        client_id: cli,
        send: false,
        lines: [{ service_id: srv, qty: 1 }],
      })
    ).json;
    await drive('GET', '/api/v1/invoices/{id}/xml', `/api/v1/invoices/${draft.id}/xml`);
    await drive('GET', '/api/v1/invoices/{id}/pdf', `/api/v1/invoices/${draft.id}/pdf`);
    await drive('POST', '/api/v1/invoices/{id}/send', `/api/v1/invoices/${draft.id}/send`);
    await drive('POST', '/api/v1/invoices/{id}/send', `/api/v1/invoices/${draft.id}/send`);
    let read: Res | undefined;
    await waitFor(
      async () => {
        read = await drive('GET', '/api/v1/invoices/{id}', `/api/v1/invoices/${invoice.id}`);
        return read.json.status === 'aceptada';
      },
      30_000,
      200,
      'the invoice to be accepted',
    );
    await drive('GET', '/api/v1/invoices/{id}', `/api/v1/invoices/${invoice.id}`, undefined, {
      'if-none-match': read!.headers.get('etag')!,
    });
    await drive('GET', '/api/v1/invoices/{id}', '/api/v1/invoices/inv_000000999999');
    await drive('GET', '/api/v1/invoices', '/api/v1/invoices?status=aceptada');
    await drive('GET', '/api/v1/invoices', `/api/v1/invoices?document_type=01&q=${invoice.clave}`);
    await drive('GET', '/api/v1/invoices/{id}/timeline', `/api/v1/invoices/${invoice.id}/timeline`);
    await drive('GET', '/api/v1/invoices/{id}/timeline', '/api/v1/invoices/inv_000000999999/timeline');
    await drive('GET', '/api/v1/invoices/{id}/xml', `/api/v1/invoices/${invoice.id}/xml`);
    await drive('GET', '/api/v1/invoices/{id}/response', `/api/v1/invoices/${invoice.id}/response`);
    await drive('GET', '/api/v1/invoices/{id}/pdf', `/api/v1/invoices/${invoice.id}/pdf`);
    await drive('GET', '/api/v1/invoices/{id}/pdf', '/api/v1/invoices/inv_000000999999/pdf');
    await drive('POST', '/api/v1/invoices/{id}/email', `/api/v1/invoices/${invoice.id}/email`, {
      recipients: ['otra@ejemplo.example'],
    });
    await drive('POST', '/api/v1/invoices/{id}/email', `/api/v1/invoices/${draft.id}/email`, {});

    // Setting the company up (once a sandbox document is accepted, so it can go live).
    await driveCompanySetup();

    // Retry: an invoice whose certificate expired before it was signed (once nothing else is in
    // flight), refused while it is still expired, sent again once a current one is saved.
    if (operation('POST', '/api/v1/invoices/{id}/retry')) {
      await waitFor(
        async () =>
          (await e.db('invoices').whereIn('status', ['pendiente', 'enviada']).whereNull('processing_error'))
            .length === 0,
        30_000,
        200,
        'no invoice in flight',
      );
      const day = 24 * 3600 * 1000;
      await saveCompanyCertificate(
        e.db,
        e.config,
        s.company,
        new Date(Date.now() - 700 * day),
        new Date(Date.now() - day),
      );
      const failing = (
        await drive('POST', '/api/v1/invoices', '/api/v1/invoices', {
          client_id: cli,
          lines: [{ service_id: srv, qty: 1 }],
        })
      ).json;
      await waitFor(
        async () =>
          (await drive('GET', '/api/v1/invoices/{id}', `/api/v1/invoices/${failing.id}`)).json
            .processing_error?.permanent === true,
        30_000,
        200,
        'the invoice to fail signing',
      );
      await drive('POST', '/api/v1/invoices/{id}/retry', `/api/v1/invoices/${failing.id}/retry`);
      await saveCompanyCertificate(
        e.db,
        e.config,
        s.company,
        new Date(Date.now() - day),
        new Date(Date.now() + 700 * day),
      );
      await drive('POST', '/api/v1/invoices/{id}/retry', `/api/v1/invoices/${failing.id}/retry`);
      await drive('POST', '/api/v1/invoices/{id}/retry', `/api/v1/invoices/${invoice.id}/retry`);
    }

    // Usage.
    await drive('GET', '/api/v1/usage', '/api/v1/usage?granularity=minute');
    await drive('GET', '/api/v1/usage', '/api/v1/usage?granularity=week');
    await drive('GET', '/api/v1/usage/keys', '/api/v1/usage/keys');
    await drive('GET', '/api/v1/reports/monthly', '/api/v1/reports/monthly?month=2026-03');
    await drive('GET', '/api/v1/reports/monthly', '/api/v1/reports/monthly?month=2026-3');
    await drive('GET', '/api/v1/reports/monthly/archive', '/api/v1/reports/monthly/archive?month=2026-03');

    // Batches, payments, webhooks and events, where this build has them.
    if (operation('POST', '/api/v1/invoices/batch')) {
      const batch = (
        await drive('POST', '/api/v1/invoices/batch', '/api/v1/invoices/batch', {
          invoices: [{ client_id: cli, lines: [{ service_id: srv, qty: 1 }], idempotency_key: 'conf-1' }],
        })
      ).json;
      await drive('GET', '/api/v1/batches/{id}', `/api/v1/batches/${batch.id}`);
    }
    if (operation('POST', '/api/v1/invoices/{id}/payments')) {
      await drive('POST', '/api/v1/invoices/{id}/payments', `/api/v1/invoices/${invoice.id}/payments`, {
        amount: '100.00',
        method: 'sinpe_movil',
      });
      await drive('POST', '/api/v1/invoices/{id}/payments', `/api/v1/invoices/${invoice.id}/payments`, {
        amount: '99999999.00',
        method: 'sinpe_movil',
      });
      await drive('GET', '/api/v1/invoices/{id}/payments', `/api/v1/invoices/${invoice.id}/payments`);
    }
    if (operation('POST', '/api/v1/invoices/{id}/credit_notes')) {
      const notes = `/api/v1/invoices/${invoice.id}`;
      const one = { reason: 'Rebaja parcial', lines: [{ line: 1, amount: '1' }] };
      await drive('POST', '/api/v1/invoices/{id}/credit_notes', `${notes}/credit_notes`, one);
      await drive('POST', '/api/v1/invoices/{id}/credit_notes', `${notes}/credit_notes`, { reason: 'x' });
      await drive(
        'POST',
        '/api/v1/invoices/{id}/credit_notes',
        '/api/v1/invoices/inv_000000999999/credit_notes',
        one,
      );
      await drive('POST', '/api/v1/invoices/{id}/debit_notes', `${notes}/debit_notes`, one);
      await drive('POST', '/api/v1/credit_notes', '/api/v1/credit_notes', {
        reference: { clave: invoice.clave, issue_date: invoice.issue_date },
        reason: 'Nota de un documento anterior',
        client_id: cli,
        lines: [{ service_id: srv, qty: 1 }],
      });
      await drive('POST', '/api/v1/credit_notes', '/api/v1/credit_notes', {
        reference: { clave: '123', issue_date: invoice.issue_date },
        reason: 'Clave inválida',
        client_id: cli,
        lines: [{ service_id: srv, qty: 1 }],
      });
    }
    if (operation('POST', '/api/v1/received_documents')) {
      const to = { idType: '02', idNumber: s.company.idNumber, name: s.company.legalName ?? 'Servicios' };
      const f = await supplierInvoice(1, to);
      const rcv = '/api/v1/received_documents';
      const b64 = (xml: string) => ({ xml_base64: Buffer.from(xml, 'utf8').toString('base64') });
      const created = (await drive('POST', rcv, rcv, b64(f.xml))).json;
      await drive('POST', rcv, rcv, b64(f.xml));
      await drive('POST', rcv, rcv, b64(f.xml.replace('<TotalComprobante>', '<TotalComprobante>9')));
      await drive('POST', rcv, rcv, b64(f.xml.replace('<?xml version="1.0" encoding="utf-8"?>\n', '')));
      await drive('GET', rcv, rcv);
      await drive('GET', `${rcv}/{id}`, `${rcv}/${created.id}`);
      await drive('GET', `${rcv}/{id}`, `${rcv}/rcv_000000999999`);
      await drive('POST', `${rcv}/{id}/answer`, `${rcv}/${created.id}/answer`, { result: 'rejected' });
      await drive('POST', `${rcv}/{id}/answer`, `${rcv}/${created.id}/answer`, {
        result: 'rejected',
        reason: 'Mercadería no solicitada',
      });
      await drive('POST', `${rcv}/{id}/answer`, `${rcv}/${created.id}/answer`, { result: 'accepted' });
    }
    if (operation('POST', '/api/v1/webhook_endpoints')) {
      const ep = (
        await drive('POST', '/api/v1/webhook_endpoints', '/api/v1/webhook_endpoints', {
          url: receiverUrl,
          events: ['invoice.created', 'client.created'],
        })
      ).json;
      await drive('GET', '/api/v1/webhook_endpoints', '/api/v1/webhook_endpoints');
      await drive('GET', '/api/v1/webhook_endpoints/{id}', `/api/v1/webhook_endpoints/${ep.id}`);
      await drive('POST', '/api/v1/webhook_endpoints/{id}', `/api/v1/webhook_endpoints/${ep.id}`, {
        description: 'conformance',
      });
      await drive(
        'POST',
        '/api/v1/webhook_endpoints/{id}/rotate_secret',
        `/api/v1/webhook_endpoints/${ep.id}/rotate_secret`,
      );
      await drive('POST', '/api/v1/clients', '/api/v1/clients', {
        cedula: '1-1111-1111',
        name: 'Evento Uno',
      });
      await drive('POST', '/api/v1/webhook_endpoints/{id}/test', `/api/v1/webhook_endpoints/${ep.id}/test`);
      await drive(
        'GET',
        '/api/v1/webhook_endpoints/{id}/deliveries',
        `/api/v1/webhook_endpoints/${ep.id}/deliveries`,
      );
      const events = (await drive('GET', '/api/v1/events', '/api/v1/events')).json;
      const event = events.data[0];
      expect(event, 'an event to read').toBeDefined();
      await drive('GET', '/api/v1/events/{id}', `/api/v1/events/${event.id}`);
      await drive('POST', '/api/v1/events/{id}/redeliver', `/api/v1/events/${event.id}/redeliver`, {});
      await drive('GET', '/api/v1/events/{id}', '/api/v1/events/evt_000000999999');
      await drive('DELETE', '/api/v1/webhook_endpoints/{id}', `/api/v1/webhook_endpoints/${ep.id}`);
      // The audit log holds the writes above (each recorded just after its answer).
      let audit: Res | undefined;
      await waitFor(
        async () => {
          audit = await drive('GET', '/api/v1/audit_events', '/api/v1/audit_events?limit=2');
          return audit.json.data.length === 2;
        },
        10_000,
        100,
        'audit events',
      );
      await drive(
        'GET',
        '/api/v1/audit_events',
        `/api/v1/audit_events?action=clients.create&actor_type=key&starting_after=${audit!.json.data[1].id}`,
      );
      await drive('GET', '/api/v1/audit_events', '/api/v1/audit_events?since=not-a-time');
    }

    // People: accounts, sessions, companies of their own, members and invitations.
    await drivePeople();

    // Without a key or a session every /api operation answers a documented 401 (but the public ones: signing
    // up and in, confirming, resetting a password, which say they take no credentials).
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, op] of Object.entries(item as Json)) {
        if ((op as Json).security?.length === 0) continue;
        const url = path.replace(/\{[^}]+\}/g, 'x_000000000001');
        // No Authorization header and no cookie: neither a key nor a person.
        const body = method === 'get' || method === 'delete' ? undefined : {};
        const nobody: Browser = { cookie: null, csrf: null, company: null };
        const res = await driveAs(nobody, method.toUpperCase(), path, url, body);
        expect(res.status, `${method} ${path} without a key`).toBe(401);
      }
    }

    // Coverage: every documented operation answered with success at least once.
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const method of Object.keys(item as Json)) {
        const statuses = seen.get(`${method.toUpperCase()} ${path}`) ?? new Set();
        if (![...statuses].some((st) => st < 400)) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing, 'operations never driven to a success: add them to this test').toEqual([]);
  }, 180_000); // every documented operation driven in turn: longer than the default on a busy machine
});
