// Isolation and privilege, as a matrix generated from the routes the app registers (each route's
// required scope comes from its own config, cross-checked with the OpenAPI `x-scopes`), so a new
// route is covered the day it is added:
//   - scopes: for every authenticated route and every scope, a key holding only that scope and a
//     key holding every scope but that one: 403 insufficient_scope exactly when the route needs it;
//   - tenants: two companies × two modes (sandbox and live) with one resource of every kind each;
//     every route taking an id answers 404 for the ids of the three other tenants (nothing
//     changes), and no answer of a tenant, lists included, carries an id of another tenant;
//   - key states: missing, revoked and expired keys get 401 on every route; a rolled key's old
//     secret works during its grace period and gets 401 everywhere once it is over;
//   - people: a signed-in person of every role (cookie, X-CSRF-Token, Factura-Company/Mode) gets
//     403 insufficient_scope exactly where the role lacks the route's scope; naming another
//     company gets 403 not_a_member on every route; other tenants' ids answer 404;
//   - plans: pyme and pro keys (both modes) get 403 plan_not_included on every route;
//   - admin: every Bull Board route and /metrics want the admin credentials (an API key is not
//     one); the old dashboard address carries no tenant data.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supplierInvoice } from './helpers/supplier-documents.ts';
import type { LightMyRequestResponse } from 'fastify';
import type { RouteEntry } from '../api/app.ts';
import { createApiKey, revokeApiKey, rollApiKey } from '../db/queries/api-keys.ts';
import { createCompany } from '../db/queries/companies.ts';
import { saveHaciendaCredentials, saveSigningKey } from '../db/queries/credentials.ts';
import { hashApiKeySecret } from '../domain/api-key-secret.ts';
import { formatId, type IdKind } from '../domain/ids.ts';
import { SCOPES, type Scope } from '../domain/scopes.ts';
import { ROLES, ROLE_SCOPES, type Role } from '../domain/roles.ts';
import { hashPassword } from '../api/passwords.ts';
import { addMembership } from '../db/queries/memberships.ts';
import { createUser } from '../db/queries/users.ts';
import { seal, sealSigningMaterial } from '../hacienda/secret-box.ts';
import { certificateInfo } from '../hacienda/signing-key.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { companyInput } from './helpers/app.ts';
import { seedIssuer } from './helpers/e2e.ts';
import { basicAuth, startFullApp, type FullApp } from './helpers/full-app.ts';
import { waitFor } from './helpers/wait.ts';

type Method = 'GET' | 'HEAD' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

interface Tenant {
  name: string;
  companyId: number;
  livemode: boolean;
  /** An all-scopes key of this company and mode. */
  key: string;
  /** Every public id this tenant owns, by kind (from the database). */
  ids: Map<IdKind, string[]>;
}

let f: FullApp;
let api: RouteEntry[] = [];
const tenants: Tenant[] = [];
const scopeKeys = new Map<string, string>();
const figures = {
  routes: 0,
  scopeChecks: 0,
  tenantChecks: 0,
  listChecks: 0,
  keyStateChecks: 0,
  planChecks: 0,
  adminChecks: 0,
  personChecks: 0,
  ms: 0,
};
const started = Date.now();

/** Tables holding each kind of resource, all with company_id and livemode. */
const TABLES: [IdKind, string][] = [
  ['client', 'clients'],
  ['service', 'services'],
  ['invoice', 'invoices'],
  ['payment', 'payments'],
  ['webhookEndpoint', 'webhook_endpoints'],
  ['webhookDelivery', 'webhook_deliveries'],
  ['event', 'events'],
  ['batch', 'batches'],
  ['apiKey', 'api_keys'],
  ['receivedDocument', 'received_documents'],
];
const ID_KINDS: Record<string, IdKind> = {
  keys: 'apiKey',
  clients: 'client',
  services: 'service',
  invoices: 'invoice',
  batches: 'batch',
  webhook_endpoints: 'webhookEndpoint',
  events: 'event',
  received_documents: 'receivedDocument',
  members: 'user',
  invitations: 'invitation',
};
/** Kinds that belong to a company in both modes (its people), not to one mode. */
const COMPANY_WIDE = new Set<IdKind>(['user', 'invitation']);
const ID_TOKEN =
  /\b(?:inv|cli|srv|pay|evt|we|whd|key|cmp|bat|rcv)_\d{12}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

beforeAll(async () => {
  f = await startFullApp();
  // Routes for people signed in (no company, keys refused) are covered by test/sessions-security.test.ts.
  api = f.app.routeTable().filter((r) => r.url.startsWith('/api/') && !r.public && !r.person);
  figures.routes = api.length;
  await seedTenants();
}, 120_000);

afterAll(async () => {
  await f?.close();
  figures.ms = Date.now() - started;
  const total =
    figures.scopeChecks +
    figures.tenantChecks +
    figures.listChecks +
    figures.keyStateChecks +
    figures.planChecks +
    figures.adminChecks +
    figures.personChecks;
  console.log(
    `isolation matrix: ${figures.routes} authenticated routes × ${SCOPES.length} scopes × 2 companies × 2 modes; ` +
      `${total} requests: ${JSON.stringify(figures)}`,
  );
});

async function call(
  method: Method,
  url: string,
  key: string | undefined,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return f.app.inject({
    method,
    url,
    headers: {
      ...(key ? { authorization: key.startsWith('Basic ') ? key : `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

function problem(res: LightMyRequestResponse, status: number, code: string, where: string) {
  expect(res.statusCode, `${where}: ${res.body.slice(0, 300)}`).toBe(status);
  expect(String(res.headers['content-type']), where).toMatch(/^application\/problem\+json/);
  if (res.body) expect(JSON.parse(res.body).code, where).toBe(code);
}

async function dbIds(companyId: number, livemode: boolean): Promise<Map<IdKind, string[]>> {
  const out = new Map<IdKind, string[]>();
  for (const [kind, table] of TABLES) {
    const rows = await f.database.db(table).where({ companyId, livemode }).orderBy('id');
    out.set(
      kind,
      rows.flatMap((r: { id: number; uuid?: string }) => [formatId(kind, r.id), ...(r.uuid ? [r.uuid] : [])]),
    );
  }
  out.set('company', [formatId('company', companyId)]);
  const members = await f.database.db('memberships').where({ companyId }).orderBy('userId');
  out.set(
    'user',
    members.map((m: { userId: number }) => formatId('user', Number(m.userId))),
  );
  const invitations = await f.database.db('invitations').where({ companyId }).orderBy('id');
  out.set(
    'invitation',
    invitations.map((i: { id: number }) => formatId('invitation', Number(i.id))),
  );
  return out;
}

/** Two issuing companies, each in both modes with one resource of every kind made through the API. */
async function seedTenants(): Promise<void> {
  const db = f.database.db;
  const a = await seedIssuer(db, f.config, '3101123456');
  const b = await seedIssuer(db, f.config, '3101654321');
  for (const [label, s, idNumber] of [
    ['A', a, '3101123456'],
    ['B', b, '3101654321'],
  ] as const) {
    // Live mode: its own certificate and Hacienda credentials, so live invoices can be issued.
    const cert = await createTestCertificate({ idType: '02', idNumber, name: s.company.legalName });
    await saveSigningKey(
      db,
      s.company.id,
      true,
      sealSigningMaterial(f.config.secretsKey, cert.material),
      certificateInfo(cert.material.certificateChain[0]!),
    );
    await saveHaciendaCredentials(
      db,
      s.company.id,
      true,
      `cpj-${idNumber}@prod.comprobanteselectronicos.go.cr`,
      seal(f.config.secretsKey, Buffer.from('live-password')),
    );
    for (const livemode of [false, true]) {
      const key =
        livemode === false
          ? s.key
          : (await createApiKey(db, { companyId: s.company.id, livemode, name: 'all', scopes: [...SCOPES] }))
              .secret;
      await seedResources(key, livemode, label, s.company);
      tenants.push({
        name: `${label}-${livemode ? 'live' : 'test'}`,
        companyId: s.company.id,
        livemode,
        key,
        ids: new Map(),
      });
    }
  }
  for (const s of [a, b]) await seedPeople(s.company.id);
  for (const t of tenants) t.ids = await dbIds(t.companyId, t.livemode);
  // One key per scope and one per missing scope, in A's sandbox.
  for (const s of SCOPES) {
    const only = await createApiKey(db, { companyId: a.company.id, livemode: false, name: s, scopes: [s] });
    const allBut = await createApiKey(db, {
      companyId: a.company.id,
      livemode: false,
      name: `-${s}`,
      scopes: SCOPES.filter((x) => x !== s),
    });
    scopeKeys.set(`only:${s}`, only.secret);
    scopeKeys.set(`allBut:${s}`, allBut.secret);
  }
}

/** A member (viewer) and an open invitation of the company, straight in the database. */
async function seedPeople(companyId: number): Promise<void> {
  const db = f.database.db;
  const [user] = await db('users')
    .insert({ email: `viewer-${companyId}@e.example`, name: 'Viewer', passwordHash: 'x' })
    .returning('id');
  await db('memberships').insert({ companyId, userId: user.id, role: 'viewer' });
  await db('invitations').insert({
    companyId,
    email: `invited-${companyId}@e.example`,
    role: 'issuer',
    tokenHash: randomBytes(32),
    expiresAt: new Date(Date.now() + 86_400_000),
  });
}

async function seedResources(
  key: string,
  livemode: boolean,
  label: string,
  company: { idNumber: string; legalName: string | null },
): Promise<void> {
  const ok = async (method: Method, url: string, body?: unknown) => {
    const res = await call(method, url, key, body);
    expect(res.statusCode, `${label} ${method} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(300);
    return res.json();
  };
  const n = Math.floor(Math.random() * 8_000_000) + 1_000_000;
  const client = await ok('POST', '/api/v1/clients', {
    cedula: `1${n}0`.slice(0, 9),
    name: `Cliente ${label}`,
  });
  const service = await ok('POST', '/api/v1/services', {
    cabys: '8314100000200',
    description: `Servicio ${label}`,
    unit: 'Sp',
    iva_rate_code: '08',
    price: '1000.00',
  });
  const lines = [{ service_id: service.id, qty: 1 }];
  const issued = await ok('POST', '/api/v1/invoices', {
    client_id: client.id,
    lines,
    condition: 'credito_30',
    credit_days: 30,
  });
  await ok('POST', '/api/v1/invoices', { client_id: client.id, lines, send: false });
  await ok('POST', `/api/v1/invoices/${issued.id}/payments`, { amount: '1.00', method: 'efectivo' });
  await ok('POST', '/api/v1/webhook_endpoints', {
    url: livemode ? 'https://93.184.215.14/hooks' : 'http://127.0.0.1:9/hooks',
    events: ['invoice.created'],
  });
  await ok('POST', '/api/v1/invoices/batch', {
    invoices: [{ idempotency_key: `seed-${label}`, client_id: client.id, lines }],
  });
  // Two documents received from a supplier, addressed to this company.
  for (const n of [1, 2]) {
    const to = { idType: '02', idNumber: company.idNumber, name: company.legalName ?? 'Empresa' };
    const f = await supplierInvoice((livemode ? 10 : 20) + n, to);
    await ok('POST', '/api/v1/received_documents', {
      xml_base64: Buffer.from(f.xml, 'utf8').toString('base64'),
    });
  }
}

/** The scopes any one of which lets a key call the route. */
const needs = (r: RouteEntry): Scope[] => (r.scope ? [r.scope] : (r.anyScope ?? []));
const idKindOf = (r: RouteEntry): IdKind | null => {
  const segment = /\/([a-z_]+)\/:id/.exec(r.url)?.[1];
  return segment ? (ID_KINDS[segment] ?? null) : null;
};
const writes = (r: RouteEntry) => r.method !== 'GET' && r.method !== 'HEAD';
/** A body the route's schema refuses (validation runs after the scope check, before any write). */
const REFUSED_BODY = { __not_a_field: true };

describe('the route table', () => {
  it('declares a scope for every authenticated route, the same one OpenAPI publishes', async () => {
    expect(api.length).toBeGreaterThanOrEqual(35);
    const doc = (await call('GET', '/openapi.json', undefined)).json();
    for (const r of api) {
      expect(
        needs(r).length,
        `${r.method} ${r.url} declares no scope: any key could call it`,
      ).toBeGreaterThan(0);
      if (r.method === 'HEAD') continue;
      const op = doc.paths[r.url.replace(/:([A-Za-z]+)/g, '{$1}')]?.[r.method.toLowerCase()];
      expect(op?.['x-scopes'], `${r.method} ${r.url}`).toEqual(needs(r));
      if (r.url.includes(':id'))
        expect(idKindOf(r), `${r.method} ${r.url}: add its id kind to ID_KINDS`).not.toBeNull();
    }
  });
});

describe('scopes', () => {
  it('a key lacking the route’s scope gets 403 insufficient_scope; holding it, never', async () => {
    const foreign = tenants.find((t) => t.name === 'B-test')!;
    const own = tenants.find((t) => t.name === 'A-test')!;
    for (const r of api) {
      const kind = idKindOf(r);
      // Reads use A's own ids; writes use B's ids and a refused body, so nothing is ever written.
      const id = kind ? (writes(r) ? foreign : own).ids.get(kind)![0]! : '';
      const url = r.url.replace(':id', id);
      const body = writes(r) ? REFUSED_BODY : undefined;
      for (const s of SCOPES) {
        for (const variant of ['only', 'allBut'] as const) {
          const held = variant === 'only' ? [s] : SCOPES.filter((x) => x !== s);
          const allowed = needs(r).some((n) => held.includes(n));
          const res = await call(r.method as Method, url, scopeKeys.get(`${variant}:${s}`), body);
          const where = `${r.method} ${r.url} with ${variant} ${s}`;
          figures.scopeChecks += 1;
          if (allowed) {
            expect([401, 403], `${where}: ${res.body.slice(0, 200)}`).not.toContain(res.statusCode);
            expect(res.statusCode, where).toBeLessThan(500);
          } else {
            problem(res, 403, 'insufficient_scope', where);
            if (r.method !== 'HEAD') expect(res.json().required_scope, where).toBeDefined();
          }
        }
      }
    }
  }, 180_000); // some 3,800 requests one after another: longer than the default on a busy machine

  it('a key cannot hand out a scope it lacks', async () => {
    for (const s of SCOPES) {
      const res = await call('POST', '/api/v1/keys', scopeKeys.get(`allBut:${s}`), { scopes: [s] });
      figures.scopeChecks += 1;
      problem(res, 403, 'insufficient_scope', s);
      // without manage:keys the route itself refuses; otherwise the handler names the scope
      expect(res.json().required_scope).toEqual(s === 'manage:keys' ? s : [s]);
    }
  });
});

describe('acting on another key', () => {
  it('every key route taking an id refuses a key lacking any scope of the target (403 naming them), changing nothing', async () => {
    const db = f.database.db;
    const a = tenants.find((t) => t.name === 'A-test')!;
    const keyRoutes = api.filter((r) => r.url.startsWith('/api/v1/keys/:id') && r.method !== 'HEAD');
    expect(keyRoutes.map((r) => `${r.method} ${r.url}`).sort()).toEqual([
      'DELETE /api/v1/keys/:id',
      'POST /api/v1/keys/:id/roll',
    ]);
    // The tenant's all-scope key, attacked by a key holding manage:keys and all but one scope.
    const target = (
      await db('api_key_secrets')
        .where({ secretHash: hashApiKeySecret(a.key) })
        .first()
    ).keyId as number;
    const snapshot = async () => ({
      key: await db('api_keys').where({ id: target }).first('scopes', 'revokedAt', 'updatedAt'),
      secrets: await db('api_key_secrets').where({ keyId: target }).orderBy('id'),
    });
    const before = await snapshot();
    const bodies: Record<string, unknown> = { POST: { grace_period_seconds: 0 } };
    for (const r of keyRoutes) {
      for (const s of SCOPES.filter((x) => x !== 'manage:keys')) {
        const url = r.url.replace(':id', formatId('apiKey', target));
        const res = await call(r.method as Method, url, scopeKeys.get(`allBut:${s}`), bodies[r.method]);
        const where = `${r.method} ${r.url} on an all-scope key with all but ${s}`;
        figures.scopeChecks += 1;
        problem(res, 403, 'insufficient_scope', where);
        expect(res.json().required_scope, where).toEqual([s]);
      }
      const res = await call(
        r.method as Method,
        r.url.replace(':id', formatId('apiKey', target)),
        scopeKeys.get('only:manage:keys'),
        bodies[r.method],
      );
      figures.scopeChecks += 1;
      problem(res, 403, 'insufficient_scope', `${r.method} ${r.url} with only manage:keys`);
      expect(res.json().required_scope).toEqual(SCOPES.filter((x) => x !== 'manage:keys'));
    }
    expect(await snapshot()).toEqual(before);
    expect((await call('GET', '/api/v1/clients', a.key)).statusCode).toBe(200);
  });
});

describe('companies and modes', () => {
  it('every route with an id answers 404 for the ids of the other three tenants, and nothing changes', async () => {
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          TABLES.map(async ([, table]) => [
            table,
            Number((await f.database.db(table).count('* as n'))[0]!.n),
          ]),
        ),
      );
    const before = await counts();
    const validBodies: Record<string, unknown> = {
      'POST /api/v1/keys/:id/roll': { grace_period_seconds: 60 },
      'POST /api/v1/invoices/:id/payments': { amount: '1.00', method: 'efectivo' },
      'POST /api/v1/webhook_endpoints/:id': { description: 'moved' },
      'PATCH /api/v1/clients/:id': { name: 'Otro Nombre' },
      'PATCH /api/v1/services/:id': { price: '1.00' },
      'POST /api/v1/events/:id/redeliver': {},
      'POST /api/v1/invoices/:id/credit_notes': { reason: 'Devolución de mercadería' },
      'POST /api/v1/received_documents/:id/answer': { result: 'accepted' },
      'PATCH /api/v1/members/:id': { role: 'viewer' },
      'POST /api/v1/invoices/:id/debit_notes': {
        reason: 'Intereses por atraso',
        lines: [{ line: 1, amount: '100.00' }],
      },
    };
    const withId = api.filter((r) => r.url.includes(':id'));
    expect(withId.length).toBeGreaterThanOrEqual(20);
    for (const r of withId) {
      const kind = idKindOf(r)!;
      for (const x of tenants) {
        for (const y of tenants) {
          if (x === y || (COMPANY_WIDE.has(kind) && x.companyId === y.companyId)) continue;
          for (const id of y.ids.get(kind)!.slice(0, 2)) {
            const res = await call(
              r.method as Method,
              r.url.replace(':id', id),
              x.key,
              validBodies[`${r.method} ${r.url}`],
            );
            figures.tenantChecks += 1;
            problem(res, 404, 'resource_not_found', `${x.name} ${r.method} ${r.url} with ${y.name}'s ${id}`);
          }
        }
        // Control: the tenant's own id is found (reads only; writes would change things).
        if (!writes(r)) {
          const own = x.ids.get(kind)![0]!;
          const res = await call(r.method as Method, r.url.replace(':id', own), x.key);
          figures.tenantChecks += 1;
          expect([401, 403, 404], `${x.name} ${r.method} ${r.url} own ${own}`).not.toContain(res.statusCode);
        }
      }
    }
    expect(await counts()).toEqual(before);
  });

  it('references to another tenant’s client, service, key or endpoint inside a request are refused', async () => {
    const [a, , b] = tenants as [Tenant, Tenant, Tenant, Tenant];
    const aLive = tenants[1]!;
    for (const other of [aLive, b]) {
      const mine = { client: a.ids.get('client')![0]!, service: a.ids.get('service')![0]! };
      const theirs = { client: other.ids.get('client')![0]!, service: other.ids.get('service')![0]! };
      const attempts: [string, unknown][] = [
        ['/api/v1/invoices', { client_id: theirs.client, lines: [{ service_id: mine.service, qty: 1 }] }],
        ['/api/v1/invoices', { client_id: mine.client, lines: [{ service_id: theirs.service, qty: 1 }] }],
        [
          `/api/v1/events/${a.ids.get('event')![0]}/redeliver`,
          { endpoint_id: other.ids.get('webhookEndpoint')![0] },
        ],
      ];
      for (const [url, body] of attempts) {
        const res = await call('POST', url, a.key, body);
        figures.tenantChecks += 1;
        expect([404, 422], `${url} ${JSON.stringify(body)}: ${res.body}`).toContain(res.statusCode);
      }
      const usage = await call('GET', `/api/v1/usage?key_id=${other.ids.get('apiKey')![0]}`, a.key);
      figures.tenantChecks += 1;
      problem(usage, 404, 'resource_not_found', 'usage of another tenant’s key');
      const filtered = await call('GET', `/api/v1/invoices?client=${theirs.client}`, a.key);
      figures.tenantChecks += 1;
      expect(filtered.json().data).toEqual([]);
    }
  });

  it('no answer to a tenant, lists included, carries an id of another tenant', async () => {
    for (const t of tenants) t.ids = await dbIds(t.companyId, t.livemode);
    const reads = api.filter((r) => r.method === 'GET');
    for (const x of tenants) {
      const own = new Set([...x.ids.values()].flat());
      for (const r of reads) {
        const kind = idKindOf(r);
        const ids = kind ? x.ids.get(kind)!.slice(0, 2) : [''];
        for (const id of ids) {
          const res = await call('GET', r.url.replace(':id', id), x.key);
          figures.listChecks += 1;
          if (res.statusCode >= 400) continue; // e.g. the XML of an unsigned invoice
          const foreign = [...res.body.matchAll(ID_TOKEN)].map((m) => m[0]).filter((t) => !own.has(t));
          expect(foreign, `${x.name} GET ${r.url} (${id}) shows ids it does not own`).toEqual([]);
          if (res.headers['content-type']?.toString().startsWith('application/json')) {
            const body = res.json();
            for (const item of Array.isArray(body.data) ? body.data : [body])
              if (item && typeof item === 'object' && 'livemode' in item)
                expect(item.livemode, `${x.name} GET ${r.url}`).toBe(x.livemode);
          }
        }
      }
    }
    // The lists are not trivially empty: each tenant sees its own resources.
    for (const x of tenants) {
      const clients = (await call('GET', '/api/v1/clients', x.key)).json().data;
      expect(clients.length, x.name).toBeGreaterThan(0);
    }
  });
});

/** A signed-in person: cookie and CSRF token. */
interface SignedIn {
  cookie: string;
  csrf: string;
}

/** A person of `role` in the company, signed in through POST /api/v1/session. */
async function signedIn(companyId: number, role: Role): Promise<SignedIn> {
  const email = `${role}-${companyId}-${randomBytes(3).toString('hex')}@e.example`;
  const password = 'a long passphrase 7';
  const u = await createUser(f.database.db, {
    email,
    name: `Persona ${role}`,
    locale: 'es-CR',
    passwordHash: await hashPassword(password),
    confirmed: true,
  });
  await addMembership(f.database.db, companyId, u.id, role);
  const res = await f.app.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password } });
  expect(res.statusCode, res.body).toBe(200);
  const set = [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('factura_session='))!;
  return { cookie: set.split(';')[0]!, csrf: res.json().csrf_token as string };
}

/** A request of a person acting for a company (Factura-Company) in a mode (Factura-Mode). */
function callAs(
  p: SignedIn,
  company: number,
  mode: 'test' | 'live',
  method: Method,
  url: string,
  body?: unknown,
) {
  return f.app.inject({
    method,
    url,
    headers: {
      cookie: p.cookie,
      'x-csrf-token': p.csrf,
      'factura-company': formatId('company', company),
      'factura-mode': mode,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

describe('people', () => {
  it('a person gets 403 insufficient_scope exactly on the routes their role lacks the scope of', async () => {
    const own = tenants.find((t) => t.name === 'A-test')!;
    const foreign = tenants.find((t) => t.name === 'B-test')!;
    for (const role of ROLES) {
      const p = await signedIn(own.companyId, role);
      for (const r of api) {
        const kind = idKindOf(r);
        const id = kind ? (writes(r) ? foreign : own).ids.get(kind)![0]! : '';
        const body = writes(r) ? REFUSED_BODY : undefined;
        const res = await callAs(
          p,
          own.companyId,
          'test',
          r.method as Method,
          r.url.replace(':id', id),
          body,
        );
        const where = `${r.method} ${r.url} as ${role}`;
        figures.personChecks += 1;
        if (needs(r).some((n) => ROLE_SCOPES[role].includes(n))) {
          expect([401, 403], `${where}: ${res.body.slice(0, 200)}`).not.toContain(res.statusCode);
          expect(res.statusCode, where).toBeLessThan(500);
        } else problem(res, 403, 'insufficient_scope', where);
      }
    }
  });

  it("a person naming another company gets 403 not_a_member everywhere, and never reaches another tenant's ids", async () => {
    const a = tenants.find((t) => t.name === 'A-test')!;
    const b = tenants.find((t) => t.name === 'B-test')!;
    const p = await signedIn(a.companyId, 'owner');
    for (const r of api) {
      const kind = idKindOf(r);
      const id = kind ? b.ids.get(kind)![0]! : '';
      const body = writes(r) ? REFUSED_BODY : undefined;
      const res = await callAs(p, b.companyId, 'test', r.method as Method, r.url.replace(':id', id), body);
      figures.personChecks += 1;
      problem(res, 403, 'not_a_member', `${r.method} ${r.url} naming B`);
    }
    const reads = api.filter((r) => r.method === 'GET' && r.url.endsWith(':id'));
    expect(reads.length).toBeGreaterThanOrEqual(5);
    for (const r of reads) {
      const kind = idKindOf(r)!;
      for (const other of tenants.filter((t) => t !== a)) {
        if (other.companyId === a.companyId && COMPANY_WIDE.has(kind)) continue;
        const id = other.ids.get(kind)?.[0];
        if (!id) continue;
        const res = await callAs(p, a.companyId, 'test', 'GET', r.url.replace(':id', id));
        figures.personChecks += 1;
        expect(res.statusCode, `${r.url} with ${other.name}'s ${id}: ${res.body.slice(0, 200)}`).toBe(404);
      }
    }
  });
});

describe('key states and plans', () => {
  const everyRoute = async (key: string | undefined, status: number, code: string, label: string) => {
    const foreign = tenants[3]!; // B-live: ids no sandbox key of A may touch
    for (const r of api) {
      const kind = idKindOf(r);
      const url = r.url.replace(':id', kind ? foreign.ids.get(kind)![0]! : '');
      const res = await call(r.method as Method, url, key, writes(r) ? REFUSED_BODY : undefined);
      figures.keyStateChecks += 1;
      problem(res, status, code, `${label} ${r.method} ${r.url}`);
      if (status === 401) expect(res.headers['www-authenticate'], label).toMatch(/^Bearer /);
    }
  };

  it('missing, malformed, revoked and expired keys get 401 on every route', async () => {
    const db = f.database.db;
    const a = tenants[0]!;
    await everyRoute(undefined, 401, 'missing_api_key', 'no key');
    await everyRoute(`ik_test_${'x'.repeat(40)}`, 401, 'invalid_api_key', 'unknown key');
    const revoked = await createApiKey(db, {
      companyId: a.companyId,
      livemode: false,
      name: 'r',
      scopes: [...SCOPES],
    });
    await revokeApiKey(db, revoked.key.id);
    await everyRoute(revoked.secret, 401, 'api_key_revoked', 'revoked key');
    const expired = await createApiKey(db, {
      companyId: a.companyId,
      livemode: true,
      name: 'e',
      scopes: [...SCOPES],
    });
    await rollApiKey(db, expired.key, 0);
    await everyRoute(expired.secret, 401, 'api_key_expired', 'expired key');
  });

  it('a key revoked through the API stops at once; a rolled key’s old secret stops after its grace', async () => {
    const a = tenants[0]!;
    const victim = await call('POST', '/api/v1/keys', a.key, { scopes: ['read:clients'] });
    expect((await call('GET', '/api/v1/clients', victim.json().secret)).statusCode).toBe(200);
    expect((await call('DELETE', `/api/v1/keys/${victim.json().id}`, a.key)).statusCode).toBe(200);
    problem(
      await call('GET', '/api/v1/clients', victim.json().secret),
      401,
      'api_key_revoked',
      'revoked via API',
    );

    const rolled = await call('POST', '/api/v1/keys', a.key, { scopes: [...SCOPES] });
    const old = rolled.json().secret as string;
    const roll = await call('POST', `/api/v1/keys/${rolled.json().id}/roll`, a.key, {
      grace_period_seconds: 2,
    });
    expect(roll.statusCode).toBe(200);
    const fresh = roll.json().secret as string;
    expect((await call('GET', '/api/v1/clients', old)).statusCode, 'old secret within grace').toBe(200);
    expect((await call('GET', '/api/v1/clients', fresh)).statusCode, 'new secret').toBe(200);
    await waitFor(
      async () => (await call('GET', '/api/v1/clients', old)).statusCode === 401,
      10_000,
      100,
      'grace',
    );
    await everyRoute(old, 401, 'api_key_expired', 'rolled key after its grace');
    expect((await call('GET', '/api/v1/clients', fresh)).statusCode, 'new secret after the grace').toBe(200);
  });

  it('pyme and pro keys, in both modes, get 403 plan_not_included on every route', async () => {
    for (const plan of ['pyme', 'pro'] as const) {
      const c = await createCompany(f.database.db, companyInput({ plan, rateLimitPerSecond: 100_000 }));
      for (const livemode of [false, true]) {
        const k = await createApiKey(f.database.db, {
          companyId: c.id,
          livemode,
          name: plan,
          scopes: [...SCOPES],
        });
        const before = figures.keyStateChecks;
        await everyRoute(k.secret, 403, 'plan_not_included', `${plan} ${livemode ? 'live' : 'test'}`);
        figures.planChecks += figures.keyStateChecks - before;
        figures.keyStateChecks = before;
      }
    }
  });
});

describe('admin pages', () => {
  it('every Bull Board route and /metrics want the admin credentials; an API key is not one', async () => {
    const admin = f.app
      .routeTable()
      .filter((r) => r.url.startsWith('/admin/') || r.url === '/metrics')
      .filter((r) => r.method !== 'HEAD');
    expect(admin.length).toBeGreaterThan(20);
    const right = basicAuth(f.admin.user, f.admin.password);
    const wrong = [
      undefined,
      basicAuth(f.admin.user, 'nope'),
      basicAuth('', ''),
      `Bearer ${tenants[0]!.key}`,
      'Basic',
    ];
    for (const r of admin) {
      const url = r.url.replace(/:[A-Za-z]+/g, 'invoice-sign').replace('*', 'index.html');
      for (const auth of wrong) {
        const res = await f.app.inject({
          method: r.method as Method,
          url,
          headers: auth ? { authorization: auth } : {},
        });
        figures.adminChecks += 1;
        problem(
          res,
          401,
          'admin_credentials_required',
          `${r.method} ${url} with ${String(auth).slice(0, 12)}`,
        );
        expect(res.headers['www-authenticate'], url).toMatch(/^Basic /);
      }
      if (r.method === 'GET') {
        const res = await f.app.inject({ method: 'GET', url, headers: { authorization: right } });
        figures.adminChecks += 1;
        expect(res.statusCode, `${url} with the admin credentials`).not.toBe(401);
        expect(res.statusCode, url).toBeLessThan(500);
        expect(res.headers['x-frame-options'], url).toBe('DENY');
        if (String(res.headers['content-type']).startsWith('text/html'))
          expect(res.headers['content-security-policy'], url).toMatch(
            /script-src 'self';.*frame-ancestors 'none'/,
          );
      }
    }
  });

  it('the old dashboard address leads to the application and carries no tenant data; its data needs read:usage', async () => {
    const page = await call('GET', '/dashboard', undefined);
    expect(page.statusCode).toBe(301);
    expect(page.headers.location).toBe('/app/');
    expect(page.body.match(ID_TOKEN) ?? []).toEqual([]);
    expect(page.body).not.toMatch(/Servicios Ejemplo|Cliente [AB]/);
    problem(
      await call('GET', '/api/v1/usage/keys', scopeKeys.get('allBut:read:usage')),
      403,
      'insufficient_scope',
      'usage keys',
    );
    const keys = await call('GET', '/api/v1/usage/keys', scopeKeys.get('only:read:usage'));
    expect(keys.statusCode).toBe(200);
    expect(keys.body).not.toMatch(/ik_(test|live)_[0-9A-Za-z]{32}/);
    figures.adminChecks += 3;
  });
});
