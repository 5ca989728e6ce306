// Webhook endpoints and events through the API: secrets shown once and stored sealed, live-mode
// URLs on private/loopback/link-local addresses refused naming `url`, validation as
// problem+json with paths, scopes, tenant and mode isolation, events of the last 30 days with
// filters and cursor pagination, redelivery requests.
import dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { open } from '../hacienda/secret-box.ts';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';
import { startReceiver } from './helpers/webhook-receiver.ts';

let t: TestApp;
let companyId: number;
let key: string;
let liveKey: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp();
  companyId = (await createTestCompany(t.db)).id;
  key = (await createTestKey(t.db, companyId)).secret;
  liveKey = (await createTestKey(t.db, companyId, { livemode: true })).secret;
  otherKey = (await createTestKey(t.db, (await createTestCompany(t.db)).id)).secret;
});
afterAll(async () => {
  await t.close();
});

const create = (k: string, body: unknown) =>
  call(t.app, 'POST', '/api/v1/webhook_endpoints', { key: k, body });

describe('webhook endpoints', () => {
  it('creates a sandbox endpoint on localhost; the whsec_ secret is shown once and stored sealed', async () => {
    const res = await create(key, {
      url: 'http://localhost:9999/hooks',
      events: ['invoice.paid', 'client.created'],
      description: 'ERP',
    });
    expect(res.statusCode).toBe(201);
    const ep = res.json();
    expect(ep).toMatchObject({
      object: 'webhook_endpoint',
      url: 'http://localhost:9999/hooks',
      events: ['invoice.paid', 'client.created'],
      status: 'enabled',
      livemode: false,
      previous_secret_expires_at: null,
    });
    expect(ep.id).toMatch(/^we_\d{12}$/);
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.location).toBe(`/api/v1/webhook_endpoints/${ep.id}`);

    const row = await t
      .db('webhook_endpoints')
      .where({ id: Number(ep.id.slice(3)) })
      .first();
    expect(row.secretEnc.includes(Buffer.from(ep.secret))).toBe(false);
    expect(open(t.config.secretsKey, row.secretEnc).toString()).toBe(ep.secret);

    const got = await call(t.app, 'GET', `/api/v1/webhook_endpoints/${ep.id}`, { key });
    expect(got.statusCode).toBe(200);
    expect(got.json().secret).toBeUndefined();
    expect(got.body).not.toContain('whsec_');
    const list = await call(t.app, 'GET', '/api/v1/webhook_endpoints', { key });
    expect(list.json().data.map((x: any) => x.id)).toContain(ep.id);
    expect(list.body).not.toContain('whsec_');
  });

  it.each([
    'https://127.0.0.1/hooks',
    'https://localhost/hooks',
    'https://[::1]/hooks',
    'https://[::ffff:10.0.0.1]/hooks',
    'https://0.0.0.0/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.5/hooks',
    'https://172.16.3.4/hooks',
    'https://192.168.1.10/hooks',
    'https://100.64.0.1/hooks',
    'https://[fd00::1]/hooks',
    'https://[fe80::1]/hooks',
    'https://2130706433/hooks',
    'https://[64:ff9b:1::a00:1]/hooks',
    'https://[::ffff:0:808:808]/hooks',
    'https://[2001::1]/hooks',
    'https://[2001:0:4136:e378:8000:63bf:3f57:fdf2]/hooks',
    'https://[5f00::1]/hooks',
  ])('refuses the live-mode URL %s with 422 naming url', async (url) => {
    const res = await create(liveKey, { url, events: ['invoice.paid'] });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const p = res.json();
    expect(p.code).toBe('validation_failed');
    expect(p.errors).toEqual([expect.objectContaining({ path: '/url', code: 'private_address' })]);
    expect(p.request_id).toBeTruthy();
  });

  it.each([
    ['64:ff9b:1::a00:1', 6],
    ['::ffff:0:808:808', 6],
    ['2001:0:4136:e378:8000:63bf:3f57:fdf2', 6],
    ['3fff::1', 6],
  ] as const)(
    'refuses a live-mode host that resolves to %s (beside a public address), and nothing is stored',
    async (address, family) => {
      // The DNS answer is the only fake: a name on the internet whose AAAA record points there.
      const lookup = vi.spyOn(dns.promises, 'lookup').mockResolvedValue([
        { address: '93.184.216.34', family: 4 },
        { address, family },
      ] as never);
      try {
        const before = await t.db('webhook_endpoints').count('* as n');
        const res = await create(liveKey, {
          url: 'https://hooks.customer.example/in',
          events: ['invoice.paid'],
        });
        expect(lookup).toHaveBeenCalledWith('hooks.customer.example', expect.anything());
        expect(res.statusCode, res.body).toBe(422);
        expect(res.json().errors).toEqual([
          expect.objectContaining({ path: '/url', code: 'private_address' }),
        ]);
        expect(res.json().errors[0].message).toContain(address);
        expect(await t.db('webhook_endpoints').count('* as n')).toEqual(before);
      } finally {
        lookup.mockRestore();
      }
    },
  );

  it('live mode needs https and a public address; an IP literal on the internet is accepted', async () => {
    const http = await create(liveKey, { url: 'http://93.184.216.34/hooks', events: ['invoice.paid'] });
    expect(http.statusCode).toBe(422);
    expect(http.json().errors[0]).toMatchObject({ path: '/url', code: 'https_required' });
    const ok = await create(liveKey, { url: 'https://93.184.216.34/hooks', events: ['invoice.paid'] });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().livemode).toBe(true);
    // Modes are separate: the sandbox key does not see the live endpoint.
    expect((await call(t.app, 'GET', `/api/v1/webhook_endpoints/${ok.json().id}`, { key })).statusCode).toBe(
      404,
    );
  });

  it('sandbox endpoints on private addresses can be turned off (WEBHOOK_SANDBOX_ALLOW_PRIVATE=false)', async () => {
    const strict = await startTestApp({ WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'false' });
    try {
      const k = (await createTestKey(strict.db, (await createTestCompany(strict.db)).id)).secret;
      const post = (url: string) =>
        call(strict.app, 'POST', '/api/v1/webhook_endpoints', {
          key: k,
          body: { url, events: ['invoice.paid'] },
        });
      const local = await post('http://localhost:8080/hooks');
      expect(local.statusCode).toBe(422);
      expect(local.json().errors[0]).toMatchObject({ path: '/url', code: 'private_address' });
      // Plain http stays allowed in sandbox; only the address matters.
      expect((await post('http://93.184.216.34/hooks')).statusCode).toBe(201);
    } finally {
      await strict.close();
    }
  });

  it('validation errors are problem+json with paths', async () => {
    const cases: [unknown, string, string][] = [
      [{ events: ['invoice.paid'] }, '/url', 'required'],
      [{ url: 'http://localhost/x', events: [] }, '/events', 'too_few_items'],
      [{ url: 'http://localhost/x', events: ['invoice.deleted'] }, '/events/0', 'invalid_value'],
      [{ url: 'http://localhost/x', events: ['invoice.paid', 'invoice.paid'] }, '/events', 'duplicate_items'],
      [{ url: 'http://localhost/x', events: ['invoice.paid'], secret: 'mine' }, '/secret', 'unknown_field'],
      [{ url: 'ftp://localhost/x', events: ['invoice.paid'] }, '/url', 'invalid_format'],
      [{ url: 'not a url', events: ['invoice.paid'] }, '/url', 'invalid_format'],
      [{ url: 'http://user:pw@localhost/x', events: ['invoice.paid'] }, '/url', 'invalid_format'],
    ];
    for (const [body, path, code] of cases) {
      const res = await create(key, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    }
  });

  it('needs manage:webhooks', async () => {
    const limited = (await createTestKey(t.db, companyId, { scopes: ['read:invoices', 'write:payments'] }))
      .secret;
    const res = await create(limited, { url: 'http://localhost/x', events: ['invoice.paid'] });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'manage:webhooks' });
    for (const [m, u] of [
      ['GET', '/api/v1/webhook_endpoints'],
      ['GET', '/api/v1/events'],
    ] as const) {
      expect((await call(t.app, m, u, { key: limited })).statusCode).toBe(403);
    }
  });

  it("another company's endpoint is a 404 for every route", async () => {
    const ep = (await create(key, { url: 'http://localhost/x', events: ['invoice.paid'] })).json();
    for (const [m, u] of [
      ['GET', `/api/v1/webhook_endpoints/${ep.id}`],
      ['GET', `/api/v1/webhook_endpoints/${ep.id}/deliveries`],
      ['POST', `/api/v1/webhook_endpoints/${ep.id}/rotate_secret`],
      ['POST', `/api/v1/webhook_endpoints/${ep.id}`],
      ['DELETE', `/api/v1/webhook_endpoints/${ep.id}`],
    ] as const) {
      const res = await call(t.app, m, u, {
        key: otherKey,
        ...(m === 'POST' && !u.endsWith('secret') ? { body: { enabled: false } } : {}),
      });
      expect(res.statusCode, `${m} ${u}`).toBe(404);
      expect(res.json().code).toBe('resource_not_found');
    }
    expect((await call(t.app, 'GET', '/api/v1/webhook_endpoints', { key: otherKey })).json().data).toEqual(
      [],
    );
    // Still there, untouched.
    expect((await call(t.app, 'GET', `/api/v1/webhook_endpoints/${ep.id}`, { key })).json().status).toBe(
      'enabled',
    );
  });

  it('rotates the secret: a new one shown once, the old one signing for 24 hours more', async () => {
    const ep = (await create(key, { url: 'http://localhost/r', events: ['invoice.paid'] })).json();
    const res = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}/rotate_secret`, { key });
    expect(res.statusCode).toBe(200);
    const rotated = res.json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(ep.secret);
    const hours = (new Date(rotated.previous_secret_expires_at).getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const row = await t
      .db('webhook_endpoints')
      .where({ id: Number(ep.id.slice(3)) })
      .first();
    expect(open(t.config.secretsKey, row.secretEnc).toString()).toBe(rotated.secret);
    expect(open(t.config.secretsKey, row.previousSecretEnc).toString()).toBe(ep.secret);
  });

  it('updates, disables and re-enables, and deletes an endpoint', async () => {
    const ep = (await create(key, { url: 'http://localhost/u', events: ['invoice.paid'] })).json();
    const upd = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}`, {
      key,
      body: { events: ['client.created'], enabled: false },
    });
    expect(upd.json()).toMatchObject({ events: ['client.created'], status: 'disabled' });
    const again = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}`, {
      key,
      body: { enabled: true },
    });
    expect(again.json()).toMatchObject({ status: 'enabled', disabled_reason: null });
    const empty = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}`, { key, body: {} });
    expect(empty.statusCode).toBe(422);
    const del = await call(t.app, 'DELETE', `/api/v1/webhook_endpoints/${ep.id}`, { key });
    expect(del.json()).toEqual({ id: ep.id, object: 'webhook_endpoint', deleted: true });
    expect((await call(t.app, 'GET', `/api/v1/webhook_endpoints/${ep.id}`, { key })).statusCode).toBe(404);
    expect((await call(t.app, 'DELETE', `/api/v1/webhook_endpoints/${ep.id}`, { key })).statusCode).toBe(404);
  });

  it('caps the endpoints of a mode', async () => {
    const c = (await createTestCompany(t.db)).id;
    const k = (await createTestKey(t.db, c)).secret;
    for (let i = 0; i < 16; i++)
      expect((await create(k, { url: `http://localhost/${i}`, events: ['invoice.paid'] })).statusCode).toBe(
        201,
      );
    const res = await create(k, { url: 'http://localhost/17', events: ['invoice.paid'] });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('webhook_endpoint_limit');
  });
});

describe('events', () => {
  let evtKey: string;
  let ids: string[] = [];
  beforeAll(async () => {
    const c = (await createTestCompany(t.db)).id;
    evtKey = (await createTestKey(t.db, c)).secret;
    for (let i = 0; i < 5; i++) {
      const res = await call(t.app, 'POST', '/api/v1/clients', {
        key: evtKey,
        body: { cedula: `1-0${i}00-0${i}00`, name: `Cliente ${i} de Prueba` },
      });
      expect(res.statusCode).toBe(201);
    }
    ids = (await call(t.app, 'GET', '/api/v1/events', { key: evtKey })).json().data.map((e: any) => e.id);
  });

  it('lists the tenant’s events newest first with cursor pagination', async () => {
    expect(ids).toHaveLength(5);
    expect([...ids].sort().reverse()).toEqual(ids);
    const p1 = (await call(t.app, 'GET', '/api/v1/events?limit=2', { key: evtKey })).json();
    expect(p1.data.map((e: any) => e.id)).toEqual(ids.slice(0, 2));
    expect(p1.has_more).toBe(true);
    const p3 = (
      await call(t.app, 'GET', `/api/v1/events?limit=2&starting_after=${ids[3]}`, { key: evtKey })
    ).json();
    expect(p3.data.map((e: any) => e.id)).toEqual(ids.slice(4));
    expect(p3.has_more).toBe(false);
    const e = p1.data[0];
    expect(e).toMatchObject({ object: 'event', event: 'client.created', livemode: false });
    expect(e.data).toMatchObject({ object: 'client', name: 'Cliente 4 de Prueba' });
    expect(e.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // Other tenants see none of them.
    expect(
      (await call(t.app, 'GET', '/api/v1/events', { key: otherKey })).json().data.map((x: any) => x.id),
    ).not.toContain(ids[0]);
  });

  it('filters by type and creation time; shows only the last 30 days', async () => {
    const byType = (await call(t.app, 'GET', '/api/v1/events?type=invoice.paid', { key: evtKey })).json();
    expect(byType.data).toEqual([]);
    const id2 = Number(ids[2]!.slice(4));
    await t
      .db('events')
      .where({ id: id2 })
      .update({ createdAt: t.db.raw(`now() - interval '31 days'`) });
    await t
      .db('events')
      .where({ id: Number(ids[1]!.slice(4)) })
      .update({ createdAt: t.db.raw(`now() - interval '2 days'`) });
    const all = (await call(t.app, 'GET', '/api/v1/events', { key: evtKey })).json();
    expect(all.data.map((x: any) => x.id)).toEqual([ids[0], ids[1], ids[3], ids[4]]);
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const recent = (await call(t.app, 'GET', `/api/v1/events?created_gte=${since}`, { key: evtKey })).json();
    expect(recent.data.map((x: any) => x.id)).toEqual([ids[0], ids[3], ids[4]]);
    const older = (await call(t.app, 'GET', `/api/v1/events?created_lt=${since}`, { key: evtKey })).json();
    expect(older.data.map((x: any) => x.id)).toEqual([ids[1]]);
    expect((await call(t.app, 'GET', `/api/v1/events/${ids[2]}`, { key: evtKey })).statusCode).toBe(404);
  });

  it('retrieves one event; other tenants get 404; bad filters are 422 with paths', async () => {
    const one = await call(t.app, 'GET', `/api/v1/events/${ids[0]}`, { key: evtKey });
    expect(one.statusCode).toBe(200);
    expect(one.json().id).toBe(ids[0]);
    expect((await call(t.app, 'GET', `/api/v1/events/${ids[0]}`, { key: otherKey })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', '/api/v1/events/evt_x', { key: evtKey })).statusCode).toBe(404);
    const bad = await call(t.app, 'GET', '/api/v1/events?type=invoice.deleted&limit=500', { key: evtKey });
    expect(bad.statusCode).toBe(422);
    expect(
      bad
        .json()
        .errors.map((e: any) => e.path)
        .sort(),
    ).toEqual(['querystring:/limit', 'querystring:/type']);
  });

  it('redelivery targets the subscribed enabled endpoints and goes through the outbox', async () => {
    const none = await call(t.app, 'POST', `/api/v1/events/${ids[0]}/redeliver`, { key: evtKey });
    expect(none.statusCode).toBe(202);
    expect(none.json()).toEqual({ object: 'redelivery', event_id: ids[0], endpoint_ids: [] });
    const sub = (await create(evtKey, { url: 'http://localhost/a', events: ['client.created'] })).json();
    await create(evtKey, { url: 'http://localhost/b', events: ['invoice.paid'] });
    const res = await call(t.app, 'POST', `/api/v1/events/${ids[0]}/redeliver`, { key: evtKey });
    expect(res.json().endpoint_ids).toEqual([sub.id]);
    const outbox = await t
      .db('outbox')
      .where({ kind: 'event.dispatch' })
      .whereRaw(`payload->>'eventId' = ?`, [String(Number(ids[0]!.slice(4)))]);
    expect(outbox.length).toBe(2); // created, then the redelivery that had a target
    const d = await t.db('webhook_deliveries').where({ endpointId: Number(sub.id.slice(3)) });
    expect(d).toMatchObject([{ status: 'pending', round: 0 }]);
    await call(t.app, 'POST', `/api/v1/events/${ids[0]}/redeliver`, {
      key: evtKey,
      body: { endpoint_id: sub.id },
    });
    expect(
      (
        await t
          .db('webhook_deliveries')
          .where({ endpointId: Number(sub.id.slice(3)) })
          .first()
      ).round,
    ).toBe(1);
    const foreign = await call(t.app, 'POST', `/api/v1/events/${ids[0]}/redeliver`, {
      key: evtKey,
      body: { endpoint_id: 'we_000000000001' },
    });
    expect(foreign.statusCode).toBe(404);
    expect(
      (await call(t.app, 'POST', `/api/v1/events/${ids[0]}/redeliver`, { key: otherKey })).statusCode,
    ).toBe(404);
  });
});

describe('POST /api/v1/webhook_endpoints/{id}/test', () => {
  it('sends a signed webhook_endpoint.test now, answers its delivery and lists it, reaching no other endpoint', async () => {
    const r = await startReceiver();
    const bystander = await startReceiver();
    try {
      const ep = (await create(key, { url: `${r.url}/hooks`, events: ['invoice.paid'] })).json();
      r.secrets.push(ep.secret);
      await create(key, { url: `${bystander.url}/all`, events: ['*'] });
      const outbox = Number((await t.db('outbox').count('* as n'))[0]!.n);

      const res = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}/test`, { key });
      expect(res.statusCode, res.body).toBe(200);
      const d = res.json();
      expect(d).toMatchObject({
        object: 'webhook_delivery',
        event: 'webhook_endpoint.test',
        endpoint_id: ep.id,
        status: 'delivered',
        attempt_count: 1,
        last_status_code: 200,
      });
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ status_code: 200 });
      expect(typeof d.attempts[0].duration_ms).toBe('number');

      expect(r.received).toHaveLength(1);
      const got = r.received[0]!;
      expect(got.verified.ok).toBe(true);
      expect(got.body).toMatchObject({ id: d.event_id, event: 'webhook_endpoint.test' });
      expect(got.body.data).toMatchObject({ endpoint_id: ep.id });
      expect(got.headers['service-delivery-id']).toBe(d.id);
      expect(got.headers['service-event-id']).toBe(d.event_id);
      expect(got.headers['service-delivery-attempt']).toBe('1');

      const listed = await call(t.app, 'GET', `/api/v1/webhook_endpoints/${ep.id}/deliveries`, { key });
      expect(listed.json().data[0]).toEqual(d);
      // Never dispatched: no outbox row, nothing to the endpoint subscribed to everything.
      expect(Number((await t.db('outbox').count('* as n'))[0]!.n)).toBe(outbox);
      expect(bystander.received).toHaveLength(0);
    } finally {
      await r.close();
      await bystander.close();
    }
  });

  it('records a refused test as a failed delivery with the receiver status, without retrying it', async () => {
    const r = await startReceiver();
    try {
      r.respond = () => 503;
      const ep = (await create(key, { url: `${r.url}/down`, events: ['invoice.paid'] })).json();
      const res = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}/test`, { key });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        status: 'failed',
        last_status_code: 503,
        attempt_count: 1,
        next_attempt_at: null,
      });
      await r.stop();
      const refused = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}/test`, { key });
      expect(refused.json()).toMatchObject({ status: 'failed', last_status_code: null });
      expect(refused.json().last_error).toBeTruthy();
      expect(r.received).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  it("is 404 for another company's endpoint and 403 without manage:webhooks", async () => {
    const ep = (await create(key, { url: 'http://localhost:9999/x', events: ['invoice.paid'] })).json();
    const other = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}/test`, { key: otherKey });
    expect(other.statusCode).toBe(404);
    const reader = (await createTestKey(t.db, companyId, { scopes: ['read:invoices'] })).secret;
    const denied = await call(t.app, 'POST', `/api/v1/webhook_endpoints/${ep.id}/test`, { key: reader });
    expect(denied.statusCode).toBe(403);
  });
});
