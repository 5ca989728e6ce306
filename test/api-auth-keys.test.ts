// Authentication, plans, scopes and the keys API against the real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../domain/scopes.ts';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestApp;
let companyId: number;
let admin: string;

beforeAll(async () => {
  t = await startTestApp();
  companyId = (await createTestCompany(t.db)).id;
  admin = (await createTestKey(t.db, companyId)).secret;
});
afterAll(async () => {
  await t.close();
});

function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json: () => any },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(body).toMatchObject({ status, code });
  expect(typeof body.request_id).toBe('string');
  expect(res.headers['request-id']).toBe(body.request_id);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|select .* from/i);
  return body;
}

const keyId = (id: number) => `key_${String(id).padStart(12, '0')}`;

describe('authentication', () => {
  it('401 missing key with WWW-Authenticate', async () => {
    const res = await call(t.app, 'GET', '/api/v1/clients');
    expectProblem(res, 401, 'missing_api_key');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it('401 for a malformed, an unknown, a revoked and an expired key', async () => {
    for (const bad of ['nope', 'ik_test_short', 'sk_live_' + 'a'.repeat(40)]) {
      const res = await call(t.app, 'GET', '/api/v1/clients', { key: bad });
      expectProblem(res, 401, 'invalid_api_key');
      expect(res.headers['www-authenticate']).toContain('invalid_token');
    }
    const unknown = await call(t.app, 'GET', '/api/v1/clients', { key: 'ik_test_' + 'A'.repeat(40) });
    expectProblem(unknown, 401, 'invalid_api_key');

    const k = await createTestKey(t.db, companyId);
    const del = await call(t.app, 'DELETE', `/api/v1/keys/key_${String(k.id).padStart(12, '0')}`, {
      key: admin,
    });
    expect(del.statusCode).toBe(200);
    expect(del.json().revoked_at).not.toBeNull();
    expectProblem(await call(t.app, 'GET', '/api/v1/clients', { key: k.secret }), 401, 'api_key_revoked');

    const k2 = await createTestKey(t.db, companyId);
    await t
      .db('api_key_secrets')
      .where({ keyId: k2.id })
      .update({ expiresAt: t.db.raw(`now() - interval '1 second'`) });
    expectProblem(await call(t.app, 'GET', '/api/v1/clients', { key: k2.secret }), 401, 'api_key_expired');
  });

  it('the mode comes from the key: a live-prefixed secret cannot be forged from a test key', async () => {
    const live = await createTestKey(t.db, companyId, { livemode: true });
    expect(live.secret.startsWith('ik_live_')).toBe(true);
    const res = await call(t.app, 'GET', '/api/v1/keys', { key: live.secret });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.every((k: { livemode: boolean }) => k.livemode)).toBe(true);
    const forged =
      'ik_live_' + live.secret.slice('ik_live_'.length + 0).replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    expectProblem(await call(t.app, 'GET', '/api/v1/keys', { key: forged }), 401, 'invalid_api_key');
  });

  it('records last_used_at', async () => {
    const k = await createTestKey(t.db, companyId);
    expect((await t.db('api_keys').where({ id: k.id }).first()).lastUsedAt).toBeNull();
    await call(t.app, 'GET', '/api/v1/clients', { key: k.secret });
    await waitFor(async () => (await t.db('api_keys').where({ id: k.id }).first()).lastUsedAt !== null);
  });
});

describe('plans', () => {
  it.each(['pyme', 'pro'])('%s companies get 403 plan_not_included on every API call', async (plan) => {
    const c = await createTestCompany(t.db, { plan });
    const k = await createTestKey(t.db, c.id);
    for (const [m, u] of [
      ['GET', '/api/v1/clients'],
      ['POST', '/api/v1/clients'],
      ['GET', '/api/v1/keys'],
      ['GET', '/api/v1/company'],
      ['GET', '/api/v1/services'],
    ] as const) {
      expectProblem(
        await call(t.app, m, u, { key: k.secret, body: m === 'POST' ? {} : undefined }),
        403,
        'plan_not_included',
      );
    }
  });

  it.each(['business', 'corporate'])('%s companies use the API', async (plan) => {
    const c = await createTestCompany(t.db, { plan });
    const k = await createTestKey(t.db, c.id);
    expect((await call(t.app, 'GET', '/api/v1/company', { key: k.secret })).statusCode).toBe(200);
  });
});

describe('keys API', () => {
  it('creates a key whose secret is shown once and works at once', async () => {
    const res = await call(t.app, 'POST', '/api/v1/keys', {
      key: admin,
      body: { name: 'tienda', scopes: ['read:clients'] },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.id).toMatch(/^key_\d{12}$/);
    expect(body.secret).toMatch(/^ik_test_[0-9A-Za-z]{32,}$/);
    expect(body.redacted).toBe(`ik_test_…${body.secret.slice(-4)}`);
    expect(body.scopes).toEqual(['read:clients']);
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: body.secret })).statusCode).toBe(200);
    expectProblem(
      await call(t.app, 'POST', '/api/v1/clients', { key: body.secret, body: {} }),
      403,
      'insufficient_scope',
    );

    const list = await call(t.app, 'GET', '/api/v1/keys', { key: admin });
    const listed = list.json().data.find((k: { id: string }) => k.id === body.id);
    expect(listed).toBeDefined();
    expect(JSON.stringify(list.json())).not.toContain(body.secret);
    expect(listed.secret).toBeUndefined();
  });

  it('a key cannot grant a scope it does not hold', async () => {
    const limited = await createTestKey(t.db, companyId, { scopes: ['manage:keys', 'read:clients'] });
    const ok = await call(t.app, 'POST', '/api/v1/keys', {
      key: limited.secret,
      body: { scopes: ['read:clients'] },
    });
    expect(ok.statusCode).toBe(201);
    const res = await call(t.app, 'POST', '/api/v1/keys', {
      key: limited.secret,
      body: { scopes: ['read:clients', 'write:invoices'] },
    });
    const body = expectProblem(res, 403, 'insufficient_scope');
    expect(body.detail).toContain('write:invoices');
  });

  it('validates the body: unknown scope, empty scopes, unknown field', async () => {
    const a = expectProblem(
      await call(t.app, 'POST', '/api/v1/keys', { key: admin, body: { scopes: ['root'] } }),
      422,
      'validation_failed',
    );
    expect(a.errors[0]).toMatchObject({ path: '/scopes/0', code: 'invalid_value' });
    const b = expectProblem(
      await call(t.app, 'POST', '/api/v1/keys', { key: admin, body: { scopes: [] } }),
      422,
      'validation_failed',
    );
    expect(b.errors[0]).toMatchObject({ path: '/scopes', code: 'too_few_items' });
    const c = expectProblem(
      await call(t.app, 'POST', '/api/v1/keys', {
        key: admin,
        body: { scopes: ['read:clients'], admin: true },
      }),
      422,
      'validation_failed',
    );
    expect(c.errors[0]).toMatchObject({ path: '/admin', code: 'unknown_field' });
  });

  it('several keys are active at once; rolling keeps the old secret for the grace period', async () => {
    const a = await createTestKey(t.db, companyId, { scopes: ['read:clients'] });
    const b = await createTestKey(t.db, companyId, { scopes: ['read:clients'] });
    for (const k of [a, b])
      expect((await call(t.app, 'GET', '/api/v1/clients', { key: k.secret })).statusCode).toBe(200);

    const id = `key_${String(a.id).padStart(12, '0')}`;
    const rolled = await call(t.app, 'POST', `/api/v1/keys/${id}/roll`, {
      key: admin,
      body: { grace_period_seconds: 1 },
    });
    expect(rolled.statusCode).toBe(200);
    const fresh = rolled.json().secret as string;
    expect(fresh).not.toBe(a.secret);
    expect(rolled.json().id).toBe(id);
    expect(rolled.json().secrets).toHaveLength(2);
    // During the grace period both work.
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: a.secret })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: fresh })).statusCode).toBe(200);
    // After it, only the new one.
    await waitFor(
      async () => (await call(t.app, 'GET', '/api/v1/clients', { key: a.secret })).statusCode === 401,
      5000,
    );
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: fresh })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: b.secret })).statusCode).toBe(200);
  });

  it('rolling with the default grace keeps the old secret for 24 hours', async () => {
    const a = await createTestKey(t.db, companyId);
    const id = `key_${String(a.id).padStart(12, '0')}`;
    const rolled = await call(t.app, 'POST', `/api/v1/keys/${id}/roll`, { key: admin });
    expect(rolled.statusCode).toBe(200);
    const old = rolled.json().secrets.find((s: { last4: string }) => s.last4 === a.secret.slice(-4));
    const hours = (Date.parse(old.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
  });

  it('a key rolls or revokes only keys whose every scope it holds (403 naming the rest; nothing changes)', async () => {
    const keysOnly = await createTestKey(t.db, companyId, { scopes: ['manage:keys'] });
    const owner = await createTestKey(t.db, companyId); // every scope
    const secretsOf = (id: number) =>
      t.db('api_key_secrets').where({ keyId: id }).orderBy('id').select('secretHash', 'expiresAt');
    const before = {
      secrets: await secretsOf(owner.id),
      key: await t.db('api_keys').where({ id: owner.id }).first(),
    };
    const others = SCOPES.filter((s) => s !== 'manage:keys');

    // The take-over: roll with no grace (the caller would get the only working secret) and revoke.
    const roll = expectProblem(
      await call(t.app, 'POST', `/api/v1/keys/${keyId(owner.id)}/roll`, {
        key: keysOnly.secret,
        body: { grace_period_seconds: 0 },
      }),
      403,
      'insufficient_scope',
    );
    expect(roll.required_scope).toEqual(others);
    expect(roll.detail).toContain('write:invoices');
    expect(JSON.stringify(roll)).not.toMatch(/ik_(test|live)_/);
    const revoke = expectProblem(
      await call(t.app, 'DELETE', `/api/v1/keys/${keyId(owner.id)}`, { key: keysOnly.secret }),
      403,
      'insufficient_scope',
    );
    expect(revoke.required_scope).toEqual(others);
    expect(await secretsOf(owner.id)).toEqual(before.secrets);
    expect(await t.db('api_keys').where({ id: owner.id }).first()).toEqual(before.key);
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: owner.secret })).statusCode).toBe(200);

    // One scope short is enough to be refused, and only that scope is named.
    const almost = await createTestKey(t.db, companyId, { scopes: ['manage:keys', 'read:clients'] });
    const target = await createTestKey(t.db, companyId, { scopes: ['read:clients', 'write:clients'] });
    for (const [method, url] of [
      ['POST', `/api/v1/keys/${keyId(target.id)}/roll`],
      ['DELETE', `/api/v1/keys/${keyId(target.id)}`],
    ] as const) {
      const p = expectProblem(
        await call(t.app, method, url, { key: almost.secret, body: method === 'POST' ? {} : undefined }),
        403,
        'insufficient_scope',
      );
      expect(p.required_scope).toEqual(['write:clients']);
    }
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: target.secret })).statusCode).toBe(200);

    // Holding every scope of the target (and more) is enough; a key may roll and revoke itself.
    const lesser = await createTestKey(t.db, companyId, { scopes: ['read:clients'] });
    const rolled = await call(t.app, 'POST', `/api/v1/keys/${keyId(lesser.id)}/roll`, {
      key: almost.secret,
      body: { grace_period_seconds: 0 },
    });
    expect(rolled.statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: rolled.json().secret })).statusCode).toBe(200);
    expect(
      (await call(t.app, 'DELETE', `/api/v1/keys/${keyId(lesser.id)}`, { key: almost.secret })).statusCode,
    ).toBe(200);
    expect(
      (await call(t.app, 'DELETE', `/api/v1/keys/${keyId(keysOnly.id)}`, { key: keysOnly.secret }))
        .statusCode,
    ).toBe(200);
  });

  it("another company's key, or a key of the other mode, is 404", async () => {
    const other = await createTestCompany(t.db);
    const theirs = await createTestKey(t.db, other.id);
    const live = await createTestKey(t.db, companyId, { livemode: true });
    for (const k of [theirs, live]) {
      const id = `key_${String(k.id).padStart(12, '0')}`;
      expectProblem(
        await call(t.app, 'DELETE', `/api/v1/keys/${id}`, { key: admin }),
        404,
        'resource_not_found',
      );
      expectProblem(
        await call(t.app, 'POST', `/api/v1/keys/${id}/roll`, { key: admin, body: {} }),
        404,
        'resource_not_found',
      );
    }
    expect((await call(t.app, 'GET', '/api/v1/clients', { key: theirs.secret })).statusCode).toBe(200);
  });

  it('stores no plaintext secret: every column of the key tables is searched', async () => {
    const res = await call(t.app, 'POST', '/api/v1/keys', { key: admin, body: { scopes: ['read:clients'] } });
    const secret = res.json().secret as string;
    const body = secret.slice('ik_test_'.length);
    for (const table of ['api_keys', 'api_key_secrets']) {
      const rows = await t.db.raw(
        `select t::text as row_text, encode(convert_to(t::text, 'UTF8'), 'hex') as hex from ${table} t`,
      );
      for (const r of rows.rows as { row_text: string }[]) {
        expect(r.row_text).not.toContain(body.slice(0, 20));
        expect(r.row_text).not.toContain(body.slice(-20));
      }
      // bytea columns hold a SHA-256, not the secret's bytes.
      const hex = Buffer.from(secret).toString('hex');
      expect((rows.rows as { hex: string }[]).some((r) => r.hex.includes(hex))).toBe(false);
    }
    const stored = await t.db('api_key_secrets').orderBy('id', 'desc').first();
    expect(stored.secretHash.length).toBe(32);
  });
});

describe('scope matrix', () => {
  const routes: { method: 'GET' | 'POST' | 'DELETE'; url: string; scope: Scope; body?: unknown }[] = [
    { method: 'POST', url: '/api/v1/keys', scope: 'manage:keys', body: { scopes: ['manage:keys'] } },
    { method: 'GET', url: '/api/v1/keys', scope: 'manage:keys' },
    // :key is a key holding only manage:keys, so a manage:keys key may act on it.
    { method: 'POST', url: '/api/v1/keys/:key/roll', scope: 'manage:keys', body: {} },
    { method: 'DELETE', url: '/api/v1/keys/:key', scope: 'manage:keys' },
    { method: 'GET', url: '/api/v1/company', scope: 'read:company' },
    {
      method: 'POST',
      url: '/api/v1/clients',
      scope: 'write:clients',
      body: { cedula: '102340567', name: 'Ana Mora' },
    },
    { method: 'GET', url: '/api/v1/clients', scope: 'read:clients' },
    { method: 'GET', url: '/api/v1/clients/cli_000000000001', scope: 'read:clients' },
    { method: 'POST', url: '/api/v1/services', scope: 'write:services', body: {} },
    { method: 'GET', url: '/api/v1/services', scope: 'read:services' },
    { method: 'GET', url: '/api/v1/services/srv_000000000001', scope: 'read:services' },
  ];
  it.each(routes)('$method $url needs $scope', async (r) => {
    const target = await createTestKey(t.db, companyId, { scopes: ['manage:keys'] });
    const url = r.url.replace(':key', keyId(target.id));
    const without = await createTestKey(t.db, companyId, { scopes: SCOPES.filter((s) => s !== r.scope) });
    const res = await call(t.app, r.method, url, { key: without.secret, body: r.body });
    const body = expectProblem(res, 403, 'insufficient_scope');
    expect(body.detail).toContain(r.scope);
    const only = await createTestKey(t.db, companyId, { scopes: [r.scope] });
    const ok = await call(t.app, r.method, url, { key: only.secret, body: r.body });
    expect(ok.statusCode).not.toBe(403);
  });
});
