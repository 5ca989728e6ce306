// Sessions against abuse: cookie flags, CSRF on every unsafe cookie request (nothing changes
// without the token), a new session id at every sign-in, revoked sessions refused, password and
// TOTP guessing answered 429, people refused by role and by company on the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { addMembership } from '../db/queries/memberships.ts';
import { createUser, updateUser } from '../db/queries/users.ts';
import type { Role } from '../domain/roles.ts';
import { hashPassword } from '../api/passwords.ts';
import { cookieOptions } from '../api/sessions.ts';
import { newTotpSecret, totpCodeAt } from '../api/totp.ts';
import { createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
const PASSWORD = 'a long passphrase 7';

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://factura.example' });
}, 60_000);
afterAll(async () => t?.close());

let seq = 0;
async function person(role: Role | null = null, companyId?: number) {
  seq += 1;
  const email = `p${seq}-${Date.now()}@e.example`;
  const u = await createUser(t.db, {
    email,
    name: `P ${seq}`,
    locale: 'es-CR',
    passwordHash: await hashPassword(PASSWORD),
    confirmed: true,
  });
  if (role && companyId) await addMembership(t.db, companyId, u.id, role);
  return { id: u.id, email };
}

const cookieOf = (res: LightMyRequestResponse) =>
  [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('factura_session='));
const idOf = (setCookie: string | undefined) => setCookie?.split(';')[0]!.split('=')[1] ?? '';

async function signIn(email: string, extra: { cookie?: string; totp_code?: string } = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/session',
    headers: extra.cookie ? { cookie: `factura_session=${extra.cookie}` } : {},
    payload: { email, password: PASSWORD, ...(extra.totp_code ? { totp_code: extra.totp_code } : {}) },
  });
  return {
    res,
    cookie: idOf(cookieOf(res)),
    csrf: res.statusCode === 200 ? (res.json().csrf_token as string) : '',
  };
}

function as(
  cookie: string,
  method: string,
  url: string,
  opts: { csrf?: string; company?: number; body?: unknown } = {},
) {
  return t.app.inject({
    method: method as 'GET',
    url,
    headers: {
      cookie: `factura_session=${cookie}`,
      ...(opts.csrf !== undefined ? { 'x-csrf-token': opts.csrf } : {}),
      ...(opts.company ? { 'factura-company': `cmp_${String(opts.company).padStart(12, '0')}` } : {}),
    },
    ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
  });
}

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, Secure when PUBLIC_URL is https; not Secure over http outside production', async () => {
    const p = await person();
    const { res } = await signIn(p.email);
    const c = cookieOf(res)!;
    expect(c).toMatch(/HttpOnly/);
    expect(c).toMatch(/SameSite=Lax/);
    expect(c).toMatch(/Path=\//);
    expect(c).toMatch(/Secure/);
    expect(cookieOptions({ publicUrl: 'http://127.0.0.1:3000', env: 'development' }).secure).toBe(false);
    expect(cookieOptions({ publicUrl: 'http://127.0.0.1:3000', env: 'production' }).secure).toBe(true);
    // Only a hash of the id is stored.
    const rows = await t.db('sessions').where({ userId: p.id });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(idOf(c));
  });

  it('gets a new id at every sign-in; the earlier one is revoked and answers 401', async () => {
    const p = await person();
    const first = await signIn(p.email);
    expect((await as(first.cookie, 'GET', '/api/v1/session')).statusCode).toBe(200);
    const second = await signIn(p.email, { cookie: first.cookie });
    expect(second.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.cookie).not.toBe(first.cookie);
    const old = await as(first.cookie, 'GET', '/api/v1/session');
    expect(old.statusCode).toBe(401);
    expect(old.json().code).toBe('session_invalid');
    // A planted id never becomes a session.
    const planted = 'x'.repeat(43);
    const third = await signIn(p.email, { cookie: planted });
    expect(third.cookie).not.toBe(planted);
    expect((await as(planted, 'GET', '/api/v1/session')).statusCode).toBe(401);
  });

  it('a session revoked from the list answers 401; sign-out clears the cookie', async () => {
    const p = await person();
    const a = await signIn(p.email);
    const b = await signIn(p.email);
    const list = (await as(b.cookie, 'GET', '/api/v1/account/sessions')).json().data;
    expect(list).toHaveLength(2);
    const other = list.find((s: { current: boolean }) => !s.current);
    expect(
      (await as(b.cookie, 'DELETE', `/api/v1/account/sessions/${other.id}`, { csrf: b.csrf })).statusCode,
    ).toBe(204);
    expect((await as(a.cookie, 'GET', '/api/v1/session')).statusCode).toBe(401);
    const out = await as(b.cookie, 'DELETE', '/api/v1/session', { csrf: b.csrf });
    expect(out.statusCode).toBe(204);
    expect(cookieOf(out)).toMatch(/factura_session=;|Expires=Thu, 01 Jan 1970/);
    expect((await as(b.cookie, 'GET', '/api/v1/session')).statusCode).toBe(401);
  });
});

describe('CSRF', () => {
  it('refuses an unsafe cookie request without the token or with a wrong one (403 csrf_invalid), changing nothing', async () => {
    const company = await createTestCompany(t.db);
    const p = await person('owner', company.id);
    const s = await signIn(p.email);
    const body = { cedula: '1-0234-0567', name: 'Juana Pérez' };
    const other = await signIn((await person()).email);
    for (const csrf of [undefined, '', 'wrong-token', other.csrf]) {
      const res = await as(s.cookie, 'POST', '/api/v1/clients', { company: company.id, body, csrf });
      expect(res.statusCode, String(csrf)).toBe(403);
      expect(res.json().code).toBe('csrf_invalid');
    }
    expect(await t.db('clients').where({ companyId: company.id }).count('* as n')).toEqual([{ n: 0 }]);
    const ok = await as(s.cookie, 'POST', '/api/v1/clients', { company: company.id, body, csrf: s.csrf });
    expect(ok.statusCode, ok.body).toBe(201);
    // Sign-out is an unsafe request too.
    expect((await as(s.cookie, 'DELETE', '/api/v1/session')).json().code).toBe('csrf_invalid');
    // Keys need no token.
    const key = await createTestKey(t.db, company.id);
    const byKey = await t.app.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: { authorization: `Bearer ${key.secret}` },
      payload: { cedula: '1-0345-0678', name: 'Otra' },
    });
    expect(byKey.statusCode, byKey.body).toBe(201);
  });
});

describe('guessing', () => {
  it('answers 429 too_many_attempts with Retry-After after 5 wrong passwords for one email, even with the right one', async () => {
    const p = await person();
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        payload: { email: p.email, password: `wrong ${i} password` },
      });
      expect(res.json().code).toBe('invalid_credentials');
    }
    const blocked = await signIn(p.email);
    expect(blocked.res.statusCode).toBe(429);
    expect(blocked.res.json().code).toBe('too_many_attempts');
    expect(Number(blocked.res.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.cookie).toBe('');
  });

  it('TOTP: no code → 401 totp_required; wrong codes count and end in 429; the right code signs in', async () => {
    const p = await person();
    const secret = newTotpSecret(t.config.secretsKey, p.email);
    await updateUser(t.db, p.id, { totpSecret: secret.sealed });
    const none = await signIn(p.email);
    expect(none.res.json()).toMatchObject({ code: 'totp_required' });
    const good = await signIn(p.email, {
      totp_code: totpCodeAt(t.config.secretsKey, secret.sealed, Date.now()),
    });
    expect(good.res.statusCode, good.res.body).toBe(200);
    const wrong = totpCodeAt(t.config.secretsKey, secret.sealed, Date.now() + 10 * 60_000);
    for (let i = 0; i < 5; i++)
      expect((await signIn(p.email, { totp_code: wrong })).res.json().code).toBe('invalid_totp');
    const blocked = await signIn(p.email, {
      totp_code: totpCodeAt(t.config.secretsKey, secret.sealed, Date.now()),
    });
    expect(blocked.res.statusCode).toBe(429);
  });
});

describe('companies and roles on the server', () => {
  it('a session naming a company it is not a member of gets 403 not_a_member and none of its data', async () => {
    const mine = await createTestCompany(t.db);
    const theirs = await createTestCompany(t.db);
    const p = await person('viewer', mine.id);
    const s = await signIn(p.email);
    const res = await as(s.cookie, 'GET', '/api/v1/company', { company: theirs.id });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('not_a_member');
    expect(res.body).not.toContain(theirs.idNumber);
    expect((await as(s.cookie, 'GET', '/api/v1/company')).json().code).toBe('company_required');
    expect((await as(s.cookie, 'GET', '/api/v1/company', { company: mine.id })).statusCode).toBe(200);
  });

  it('a viewer is refused writes (403 insufficient_scope); an owner of a pyme company is not', async () => {
    const company = await createTestCompany(t.db, { plan: 'pyme' });
    const viewer = await signIn((await person('viewer', company.id)).email);
    const owner = await signIn((await person('owner', company.id)).email);
    const body = { cedula: '1-0456-0789', name: 'Cliente' };
    const refused = await as(viewer.cookie, 'POST', '/api/v1/clients', {
      company: company.id,
      body,
      csrf: viewer.csrf,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'write:clients' });
    const members = await as(viewer.cookie, 'GET', '/api/v1/members', { company: company.id });
    expect(members.json().code).toBe('insufficient_scope');
    const ok = await as(owner.cookie, 'POST', '/api/v1/clients', {
      company: company.id,
      body,
      csrf: owner.csrf,
    });
    expect(ok.statusCode, ok.body).toBe(201);
    // A pyme key is refused: the API is not in the plan.
    const key = await createTestKey(t.db, company.id);
    const byKey = await t.app.inject({
      method: 'GET',
      url: '/api/v1/clients',
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(byKey.json().code).toBe('plan_not_included');
  });

  it('only an owner touches owners, and the last owner stays (409 last_owner)', async () => {
    const company = await createTestCompany(t.db);
    const ownerP = await person('owner', company.id);
    const adminP = await person('administrator', company.id);
    const owner = await signIn(ownerP.email);
    const admin = await signIn(adminP.email);
    const uid = (id: number) => `usr_${String(id).padStart(12, '0')}`;
    const demote = await as(admin.cookie, 'PATCH', `/api/v1/members/${uid(ownerP.id)}`, {
      company: company.id,
      csrf: admin.csrf,
      body: { role: 'viewer' },
    });
    expect(demote.json().code).toBe('owner_required');
    const self = await as(owner.cookie, 'DELETE', `/api/v1/members/${uid(ownerP.id)}`, {
      company: company.id,
      csrf: owner.csrf,
    });
    expect(self.statusCode).toBe(409);
    expect(self.json().code).toBe('last_owner');
    const promote = await as(owner.cookie, 'PATCH', `/api/v1/members/${uid(adminP.id)}`, {
      company: company.id,
      csrf: owner.csrf,
      body: { role: 'owner' },
    });
    expect(promote.statusCode, promote.body).toBe(200);
    const list = (await as(owner.cookie, 'GET', '/api/v1/members', { company: company.id })).json();
    expect(list.data.map((m: { role: string }) => m.role).sort()).toEqual(['owner', 'owner']);
  });
});
