// The audit log: every successful write under /api/v1 becomes one event with its actor, action and
// target (api/audit.ts), listed newest first per company and mode (GET /api/v1/audit_events);
// reads, refusals and idempotent replays record nothing, and a failing audit insert never fails
// the write it describes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../api/passwords.ts';
import { recordAuditEvent } from '../db/queries/audit.ts';
import { addMembership } from '../db/queries/memberships.ts';
import { createUser } from '../db/queries/users.ts';
import { auditAction, targetTypeOf } from '../domain/audit-actions.ts';
import { formatId } from '../domain/ids.ts';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';
import { seedIssuer } from './helpers/e2e.ts';
import { supplierInvoice } from './helpers/supplier-documents.ts';

let t: TestApp;
let companyId: number;
/** Two keys of company A (sandbox), one of A in live mode, one of company B. */
const keys = {} as Record<'shop' | 'erp' | 'live' | 'other' | 'reader', { id: number; secret: string }>;
let issuer: Awaited<ReturnType<typeof seedIssuer>>;

/** A client of a new física cédula (9 digits) each time. */
let cedulaSeq = Math.floor(Math.random() * 1_000_000);
const client = (name: string) => {
  cedulaSeq += 1;
  return { cedula: `1${String(10_000_000 + cedulaSeq)}`, name };
};

beforeAll(async () => {
  t = await startTestApp();
  companyId = (await createTestCompany(t.db)).id;
  keys.shop = await createTestKey(t.db, companyId, { name: 'Tienda en línea' });
  keys.erp = await createTestKey(t.db, companyId, { name: 'ERP' });
  keys.live = await createTestKey(t.db, companyId, { name: 'Producción', livemode: true });
  keys.reader = await createTestKey(t.db, companyId, { name: 'Auditor', scopes: ['read:audit'] });
  keys.other = await createTestKey(t.db, (await createTestCompany(t.db)).id, { name: 'Otra' });
  issuer = await seedIssuer(t.db, t.config, '3101777888');
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** Writes, then waits for their audit inserts (they run after the answer). */
async function write(method: 'POST' | 'PATCH' | 'DELETE', url: string, key: string, body?: unknown) {
  const res = await call(t.app, method, url, { key, body });
  await t.app.auditSettled();
  return res;
}

async function list(key: string, query: Record<string, string> = {}) {
  const res = await call(t.app, 'GET', '/api/v1/audit_events', { key, query });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: any[]; has_more: boolean };
}

const auditCount = async () => Number((await t.db('audit_events').count('* as n'))[0]!.n);

describe('recording writes', () => {
  const made: { action: string; target: string; key: 'shop' | 'erp' }[] = [];

  it('records who did what to which resource, newest first, with the key as actor', async () => {
    const c = await write('POST', '/api/v1/clients', keys.shop.secret, client('Ana Rojas'));
    expect(c.statusCode, c.body).toBe(201);
    made.push({ action: 'clients.create', target: c.json().id, key: 'shop' });
    const ep = await write('POST', '/api/v1/webhook_endpoints', keys.erp.secret, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['invoice.created'],
    });
    expect(ep.statusCode, ep.body).toBe(201);
    made.push({ action: 'webhook_endpoints.create', target: ep.json().id, key: 'erp' });
    const del = await write('DELETE', `/api/v1/webhook_endpoints/${ep.json().id}`, keys.shop.secret);
    expect(del.statusCode, del.body).toBeLessThan(300);
    made.push({ action: 'webhook_endpoints.delete', target: ep.json().id, key: 'shop' });
    const spare = await createTestKey(t.db, companyId, { name: 'Temporal' });
    const revoke = await write('DELETE', `/api/v1/keys/${formatId('apiKey', spare.id)}`, keys.erp.secret);
    expect(revoke.statusCode, revoke.body).toBe(200);
    made.push({ action: 'keys.revoke', target: formatId('apiKey', spare.id), key: 'erp' });

    const page = await list(keys.reader.secret, { limit: '4' });
    expect(page.data.map((e) => e.action)).toEqual(made.map((m) => m.action).reverse());
    for (const [i, m] of [...made].reverse().entries()) {
      const e = page.data[i];
      expect(e).toMatchObject({
        object: 'audit_event',
        livemode: false,
        actor: {
          type: 'key',
          id: formatId('apiKey', keys[m.key].id),
          name: keys[m.key] === keys.shop ? 'Tienda en línea' : 'ERP',
        },
        action: m.action,
        target: { id: m.target, type: targetTypeOf(m.target) },
        ip: '127.0.0.1',
      });
      expect(e.id).toMatch(/^aud_\d{12}$/);
      expect(Date.parse(e.at)).toBeGreaterThan(Date.now() - 60_000);
      expect(e.request_id).toMatch(/^req_/);
    }
    expect(page.data[3].target.type).toBe('client');
    expect(page.data[0].target.type).toBe('api_key');
  });

  it('pages with limit, starting_after and ending_before', async () => {
    const first = await list(keys.reader.secret, { limit: '2' });
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const second = await list(keys.reader.secret, { limit: '2', starting_after: first.data[1].id });
    expect(second.data).toHaveLength(2);
    expect(second.has_more).toBe(false);
    expect(second.data.map((e) => e.action)).toEqual(['webhook_endpoints.create', 'clients.create']);
    const back = await list(keys.reader.secret, { limit: '2', ending_before: second.data[0].id });
    expect(back.data.map((e) => e.id)).toEqual(first.data.map((e) => e.id));
    expect(back.has_more).toBe(false);
    const both = await call(t.app, 'GET', '/api/v1/audit_events', {
      key: keys.reader.secret,
      query: { starting_after: first.data[1].id, ending_before: first.data[0].id },
    });
    expect(both.statusCode).toBe(422);
    expect(both.json().errors[0]).toMatchObject({
      path: 'querystring:/ending_before',
      code: 'conflicting_fields',
    });
  });

  it('filters by action, actor type and time', async () => {
    const deletes = await list(keys.reader.secret, { action: 'webhook_endpoints.delete' });
    expect(deletes.data.map((e) => e.action)).toEqual(['webhook_endpoints.delete']);
    expect((await list(keys.reader.secret, { actor_type: 'user' })).data).toEqual([]);
    expect((await list(keys.reader.secret, { actor_type: 'key' })).data.length).toBeGreaterThanOrEqual(4);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await list(keys.reader.secret, { since: future })).data).toEqual([]);
    expect((await list(keys.reader.secret, { until: '2020-01-01T00:00:00Z' })).data).toEqual([]);
    const bad = await call(t.app, 'GET', '/api/v1/audit_events', {
      key: keys.reader.secret,
      query: { action: 'DROP TABLE' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].path).toBe('querystring:/action');
  });

  it('needs read:audit', async () => {
    const noScope = await createTestKey(t.db, companyId, { scopes: ['read:invoices'] });
    const res = await call(t.app, 'GET', '/api/v1/audit_events', { key: noScope.secret });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'read:audit' });
  });
});

describe('tenants and modes', () => {
  it("never lists another company's events, nor the other mode's", async () => {
    const theirs = await write('POST', '/api/v1/clients', keys.other.secret, client('Cliente Ajeno'));
    expect(theirs.statusCode).toBe(201);
    const live = await write('POST', '/api/v1/clients', keys.live.secret, client('Cliente Real'));
    expect(live.statusCode).toBe(201);
    const mine = await list(keys.reader.secret, { limit: '100' });
    const targets = mine.data.map((e) => e.target?.id);
    expect(targets).not.toContain(theirs.json().id);
    expect(targets).not.toContain(live.json().id);
    const other = await list(keys.other.secret, { limit: '100' });
    expect(other.data.map((e) => e.target.id)).toEqual([theirs.json().id]);
    expect(other.data[0].actor).toMatchObject({ id: formatId('apiKey', keys.other.id), name: 'Otra' });
    const liveList = await list(keys.live.secret, { limit: '100' });
    expect(liveList.data.map((e) => [e.livemode, e.target.id])).toEqual([[true, live.json().id]]);
  });

  it('keeps events of no company unlisted, and lists a person as actor', async () => {
    await recordAuditEvent(t.db, {
      companyId: null,
      livemode: null,
      actor: { type: 'user', id: 7, name: 'Ana' },
      action: 'session.create',
      ip: '10.0.0.1',
    });
    await recordAuditEvent(t.db, {
      companyId,
      livemode: false,
      actor: { type: 'user', id: 7, name: 'Ana Rojas' },
      action: 'session.delete',
    });
    const people = await list(keys.reader.secret, { actor_type: 'user' });
    expect(people.data.map((e) => [e.action, e.actor, e.target])).toEqual([
      ['session.delete', { type: 'user', id: 'usr_000000000007', name: 'Ana Rojas' }, null],
    ]);
    expect(await t.db('audit_events').whereNull('companyId').count('* as n')).toEqual([{ n: 1 }]);
  });
});

describe('people', () => {
  const PASSWORD = 'a long passphrase 7';
  const signIn = (email: string, password = PASSWORD) =>
    t.app.inject({ method: 'POST', url: '/api/v1/session', payload: { email, password } });
  const cookieOf = (res: { headers: Record<string, unknown> }) =>
    ([res.headers['set-cookie'] ?? []].flat() as string[])
      .find((c) => c.startsWith('factura_session='))!
      .split(';')[0]!;

  it("records sign-in, failed sign-in and sign-out in each of the person's companies, and names them in writes", async () => {
    const other = (await createTestCompany(t.db)).id;
    const otherReader = await createTestKey(t.db, other, { name: 'Auditor B', scopes: ['read:audit'] });
    const u = await createUser(t.db, {
      email: 'marta@empresa.example',
      name: 'Marta Solís',
      locale: 'es-CR',
      passwordHash: await hashPassword(PASSWORD),
      confirmed: true,
    });
    await addMembership(t.db, companyId, u.id, 'administrator');
    await addMembership(t.db, other, u.id, 'viewer');
    expect((await signIn(u.email, 'not the password 1')).statusCode).toBe(401);
    const ok = await signIn(u.email);
    expect(ok.statusCode, ok.body).toBe(200);
    const cookie = cookieOf(ok);
    const csrf = ok.json().csrf_token as string;
    const headers = { cookie, 'x-csrf-token': csrf, 'factura-company': formatId('company', companyId) };
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers,
      payload: client('Luz'),
    });
    expect(made.statusCode, made.body).toBe(201);
    await t.app.auditSettled();
    const out = await t.app.inject({ method: 'DELETE', url: '/api/v1/session', headers });
    expect(out.statusCode).toBe(204);

    const marta = { type: 'user', id: formatId('user', u.id), name: 'Marta Solís' };
    const mine = (await list(keys.reader.secret, { actor_type: 'user' })).data.filter(
      (e) => e.actor.id === marta.id,
    );
    expect(mine.map((e) => [e.action, e.actor, e.livemode])).toEqual([
      ['session.delete', marta, false],
      ['clients.create', marta, false],
      ['session.create', marta, false],
      ['session.failed', marta, false],
    ]);
    const theirs = (await list(otherReader.secret, { actor_type: 'user' })).data;
    expect(theirs.map((e) => [e.action, e.actor])).toEqual([
      ['session.delete', marta],
      ['session.create', marta],
      ['session.failed', marta],
    ]);
  });

  it('a failed sign-in of an unknown email is an event of no company', async () => {
    const before = Number((await t.db('audit_events').whereNull('companyId').count('* as n'))[0]!.n);
    expect((await signIn('nadie@empresa.example')).statusCode).toBe(401);
    const rows = await t.db('audit_events').whereNull('companyId').orderBy('id', 'desc');
    expect(rows.length).toBe(before + 1);
    expect(rows[0]).toMatchObject({ action: 'session.failed', actorType: 'user', actorId: null });
  });
});

describe('what is not recorded', () => {
  it('reads and refused writes record nothing', async () => {
    const before = await auditCount();
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: keys.shop.secret })).statusCode).toBe(200);
    const invalid = await write('POST', '/api/v1/clients', keys.shop.secret, { name: '' });
    expect(invalid.statusCode).toBe(422);
    const forbidden = await write('POST', '/api/v1/clients', keys.reader.secret, client('Sin Permiso'));
    expect(forbidden.statusCode).toBe(403);
    const missing = await write('DELETE', '/api/v1/webhook_endpoints/we_000000999999', keys.shop.secret);
    expect(missing.statusCode).toBe(404);
    const anonymous = await write('POST', '/api/v1/clients', '', client('Anónimo'));
    expect(anonymous.statusCode).toBe(401);
    expect(await auditCount()).toBe(before);
  });

  it('a replayed idempotent request is not a new event', async () => {
    const before = await auditCount();
    const body = client('Cliente Idempotente');
    const headers = { 'idempotency-key': `audit-${Date.now()}` };
    const first = await call(t.app, 'POST', '/api/v1/clients', { key: keys.shop.secret, body, headers });
    const again = await call(t.app, 'POST', '/api/v1/clients', { key: keys.erp.secret, body, headers });
    await t.app.auditSettled();
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await auditCount()).toBe(before + 1);
    const rows = await t.db('audit_events').where({ targetId: first.json().id });
    expect(rows.map((r) => [r.action, r.actorId])).toEqual([['clients.create', keys.shop.id]]);
  });
});

describe('a failing audit insert', () => {
  it('does not fail the write when the table is gone', async () => {
    await t.db.raw('alter table audit_events rename to audit_events_away');
    let created: string;
    try {
      const res = await write('POST', '/api/v1/clients', keys.shop.secret, client('Sin Bitácora'));
      expect(res.statusCode, res.body).toBe(201);
      created = res.json().id;
      expect(await t.db('clients').where({ name: 'Sin Bitácora' })).toHaveLength(1);
    } finally {
      await t.db.raw('alter table audit_events_away rename to audit_events');
    }
    expect(await t.db('audit_events').where({ targetId: created })).toHaveLength(0);
    const next = await write('POST', '/api/v1/clients', keys.shop.secret, client('Con Bitácora'));
    expect(await t.db('audit_events').where({ targetId: next.json().id })).toHaveLength(1);
  });

  it('does not delay the write while the table is locked, and records it once released', async () => {
    const trx = await t.db.transaction();
    try {
      await trx.raw('lock table audit_events in access exclusive mode');
      const started = Date.now();
      const res = await call(t.app, 'POST', '/api/v1/clients', {
        key: keys.shop.secret,
        body: client('Bloqueo'),
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(Date.now() - started).toBeLessThan(2_000);
      await trx.commit();
      await t.app.auditSettled();
      expect(await t.db('audit_events').where({ targetId: res.json().id })).toHaveLength(1);
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
  });
});

describe('other writes', () => {
  it('a batch is one event, targeting the batch', async () => {
    const lines = [{ service_id: formatId('service', issuer.consulting.id), qty: 1 }];
    const clientId = formatId('client', issuer.client.id);
    const res = await write('POST', '/api/v1/invoices/batch', issuer.key, {
      invoices: [1, 2, 3].map((n) => ({ idempotency_key: `audit-batch-${n}`, client_id: clientId, lines })),
    });
    expect(res.statusCode, res.body).toBe(202);
    const events = await t.db('audit_events').where({ companyId: issuer.company.id });
    expect(events.map((e) => [e.action, e.targetType, e.targetId])).toEqual([
      ['batches.create', 'batch', res.json().id],
    ]);
  });

  it('answer:received lets a key answer a received document', async () => {
    const to = { idType: '02', idNumber: issuer.company.idNumber, name: issuer.company.legalName! };
    const doc = await call(t.app, 'POST', '/api/v1/received_documents', {
      key: issuer.key,
      body: { xml_base64: Buffer.from((await supplierInvoice(41, to)).xml, 'utf8').toString('base64') },
    });
    expect(doc.statusCode, doc.body).toBe(201);
    const accountant = await createTestKey(t.db, issuer.company.id, { scopes: ['answer:received'] });
    const res = await write('POST', `/api/v1/received_documents/${doc.json().id}/answer`, accountant.secret, {
      result: 'accepted',
    });
    expect(res.statusCode, res.body).toBe(202);
    const [event] = await t.db('audit_events').where({ actorId: accountant.id });
    expect(event).toMatchObject({
      action: 'received_documents.answer',
      targetType: 'received_document',
      targetId: doc.json().id,
    });
  });
});

describe('action names', () => {
  it('are derived from the route, with exceptions', () => {
    expect(auditAction('POST', '/api/v1/invoices')).toBe('invoices.create');
    expect(auditAction('PATCH', '/api/v1/clients/:id')).toBe('clients.update');
    expect(auditAction('DELETE', '/api/v1/webhook_endpoints/:id')).toBe('webhook_endpoints.delete');
    expect(auditAction('POST', '/api/v1/webhook_endpoints/:id')).toBe('webhook_endpoints.update');
    expect(auditAction('POST', '/api/v1/invoices/:id/send')).toBe('invoices.send');
    expect(auditAction('POST', '/api/v1/clients/:id/archive')).toBe('clients.archive');
    expect(auditAction('PATCH', '/api/v1/company')).toBe('company.update');
    expect(auditAction('PUT', '/api/v1/company/certificate')).toBe('company.certificate.update');
    expect(auditAction('POST', '/api/v1/invoices/:id/payments')).toBe('payments.create');
    expect(auditAction('POST', '/api/v1/invoices/batch')).toBe('batches.create');
    expect(auditAction('POST', '/api/v1/invoices/preview')).toBeNull();
    expect(auditAction('POST', '/api/v1/clients', 'clients.import')).toBe('clients.import');
    expect(auditAction('POST', '/api/v1/clients', false)).toBeNull();
    expect(auditAction('GET', '/api/v1/clients')).toBeNull();
    expect(auditAction('POST', '/hacienda/callback')).toBeNull();
  });
});
