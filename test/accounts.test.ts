// People's accounts end to end through the API: sign up, the confirmation email read from the mail
// catcher (a real SMTP server), confirm, sign in with the cookie, register a company and act for it
// with Factura-Company; memberships and invitations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startCatcherProcess, type CatcherProcess } from './helpers/mail-catcher.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { waitFor } from './helpers/wait.ts';

let t: TestApp;
let catcher: CatcherProcess;

beforeAll(async () => {
  catcher = await startCatcherProcess();
  t = await startTestApp({ SMTP_URL: catcher.smtpUrl, PUBLIC_URL: 'http://app.factura.example' });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await catcher?.stop();
});

interface Browser {
  cookie: string | null;
  csrf: string | null;
  company: string | null;
}

function cookieOf(res: LightMyRequestResponse): string | null {
  const set = [res.headers['set-cookie'] ?? []].flat();
  const c = set.find((v) => v.startsWith('factura_session='));
  return c ? c.split(';')[0]!.slice('factura_session='.length) : null;
}

async function send(
  b: Browser,
  method: string,
  url: string,
  body?: unknown,
  extra: Record<string, string> = {},
) {
  const res = await t.app.inject({
    method: method as 'GET',
    url,
    headers: {
      ...(b.cookie ? { cookie: `factura_session=${b.cookie}` } : {}),
      ...(b.csrf && method !== 'GET' ? { 'x-csrf-token': b.csrf } : {}),
      ...(b.company ? { 'factura-company': b.company } : {}),
      ...extra,
    },
    ...(body !== undefined ? { payload: body as object } : {}),
  });
  const c = cookieOf(res);
  if (c !== null) b.cookie = c || null;
  return res;
}

async function linkToken(to: string, page: string): Promise<string> {
  const find = async () =>
    (await catcher.messages()).findLast((x) => x.to.includes(to) && x.text?.includes(`/app/${page}?token=`));
  await waitFor(async () => (await find()) !== undefined, 15_000, 100, `the email to ${to}`);
  const m = await find();
  const match = new RegExp(`http://app\\.factura\\.example/app/${page}\\?token=([A-Za-z0-9_-]+)`).exec(
    m!.text!,
  );
  return match![1]!;
}

async function signedUp(email: string, name = 'Ana Mora'): Promise<Browser> {
  const b: Browser = { cookie: null, csrf: null, company: null };
  const up = await send(b, 'POST', '/api/v1/account/sign_up', { email, password: 'correct horse 42', name });
  expect(up.statusCode, up.body).toBe(201);
  const token = await linkToken(email, 'confirmar');
  expect((await send(b, 'POST', '/api/v1/account/confirm', { token })).statusCode).toBe(200);
  const res = await send(b, 'POST', '/api/v1/session', { email, password: 'correct horse 42' });
  expect(res.statusCode, res.body).toBe(200);
  b.csrf = res.json().csrf_token;
  return b;
}

describe('the account', () => {
  it('PATCH /api/v1/account changes the name and language; a blank name is refused; CSRF needed', async () => {
    const b = await signedUp('rita@empresa.example', 'Rita Vargas');
    const patched = await send(b, 'PATCH', '/api/v1/account', { name: '  Rita Vargas Mora ', locale: 'en' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().user).toMatchObject({ name: 'Rita Vargas Mora', locale: 'en' });
    const blank = await send(b, 'PATCH', '/api/v1/account', { name: '  ' });
    expect(blank.statusCode).toBe(422);
    expect(blank.json().errors[0]).toMatchObject({ path: '/name' });
    expect((await send(b, 'PATCH', '/api/v1/account', { locale: 'fr' })).statusCode).toBe(422);
    const noCsrf = await send({ ...b, csrf: null }, 'PATCH', '/api/v1/account', { name: 'Otra' });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().code).toBe('csrf_invalid');
    const now = (await send(b, 'GET', '/api/v1/session')).json().user;
    expect(now).toMatchObject({ name: 'Rita Vargas Mora', locale: 'en' });
  });
});

describe('signing up and in', () => {
  it('sign up → confirmation email (es then en) → confirm → sign in → register a company → act for it', async () => {
    const b: Browser = { cookie: null, csrf: null, company: null };
    const up = await send(b, 'POST', '/api/v1/account/sign_up', {
      email: 'ana@empresa.example',
      password: 'correct horse 42',
      name: 'Ana Mora',
    });
    expect(up.statusCode, up.body).toBe(201);
    expect(up.json().user).toMatchObject({
      email: 'ana@empresa.example',
      email_confirmed: false,
      totp_enabled: false,
    });
    expect(up.json().user.id).toMatch(/^usr_\d{12}$/);
    expect(cookieOf(up)).toBeNull();

    // Not confirmed yet: the right password still does not sign in.
    const early = await send(b, 'POST', '/api/v1/session', {
      email: 'ana@empresa.example',
      password: 'correct horse 42',
    });
    expect(early.statusCode).toBe(403);
    expect(early.json().code).toBe('email_unconfirmed');

    const mail = (await catcher.messages()).find((m) => m.to.includes('ana@empresa.example'))!;
    expect(mail.text!.indexOf('Hola')).toBeLessThan(mail.text!.indexOf('Hello'));
    const token = await linkToken('ana@empresa.example', 'confirmar');
    const confirmed = await send(b, 'POST', '/api/v1/account/confirm', { token });
    expect(confirmed.json().user.email_confirmed).toBe(true);
    // Single use.
    expect((await send(b, 'POST', '/api/v1/account/confirm', { token })).json().code).toBe('token_invalid');

    const wrong = await send(b, 'POST', '/api/v1/session', {
      email: 'ana@empresa.example',
      password: 'wrong horse 42',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe('invalid_credentials');
    const unknown = await send(b, 'POST', '/api/v1/session', {
      email: 'nadie@empresa.example',
      password: 'wrong horse 42',
    });
    expect(unknown.json().code).toBe('invalid_credentials');

    const inRes = await send(b, 'POST', '/api/v1/session', {
      email: 'ANA@empresa.example',
      password: 'correct horse 42',
    });
    expect(inRes.statusCode, inRes.body).toBe(200);
    expect(b.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(inRes.json()).toMatchObject({ user: { email_confirmed: true }, memberships: [] });
    b.csrf = inRes.json().csrf_token;

    const created = await send(b, 'POST', '/api/v1/companies', {
      identification: '3-101-765432',
      name: 'Servicios Mora S.A.',
      activity_code: '620100',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ object: 'company', plan: 'pyme', role: 'owner', livemode: false });
    expect(created.json().emisor.identification).toEqual({ type: '02', number: '3101765432' });

    b.company = created.json().id;
    const company = await send(b, 'GET', '/api/v1/company');
    expect(company.statusCode, company.body).toBe(200);
    expect(company.json().id).toBe(b.company);
    const session = await send(b, 'GET', '/api/v1/session');
    expect(session.json().memberships).toEqual([
      expect.objectContaining({
        role: 'owner',
        company: expect.objectContaining({ id: b.company, plan: 'pyme', live_enabled: false }),
      }),
    ]);
    // A write as the person (pyme plan: people use the application whatever the plan).
    const client = await send(b, 'POST', '/api/v1/clients', { cedula: '1-0234-0567', name: 'Juana Pérez' });
    expect(client.statusCode, client.body).toBe(201);
    // Live only once the company has gone live.
    const live = await send(b, 'GET', '/api/v1/company', undefined, { 'factura-mode': 'live' });
    expect(live.json().code).toBe('live_not_enabled');
  });

  it('refuses weak passwords and a taken email, changing nothing', async () => {
    const b: Browser = { cookie: null, csrf: null, company: null };
    const short = await send(b, 'POST', '/api/v1/account/sign_up', {
      email: 'x@e.example',
      password: 'short',
      name: 'X',
    });
    expect(short.statusCode).toBe(422);
    expect(short.json().errors[0]).toMatchObject({ path: '/password', code: 'too_short' });
    const same = await send(b, 'POST', '/api/v1/account/sign_up', {
      email: 'xavier@e.example',
      password: 'xavier@e.example',
      name: 'X',
    });
    expect(same.json().errors[0]).toMatchObject({ path: '/password', code: 'same_as_email' });
    expect(await t.db('users').whereRaw("email like '%e.example'").count('* as n')).toEqual([{ n: 0 }]);
    await signedUp('taken@e.example');
    const again = await send(b, 'POST', '/api/v1/account/sign_up', {
      email: 'Taken@e.example',
      password: 'another pass 1',
      name: 'Y',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('email_taken');
  });
});
