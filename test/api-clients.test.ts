// Clients API: creation (Nota 4, lengths, addresses, event + outbox in one transaction),
// reads by id and UUID, filters, pagination, tenant and mode isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let companyId: number;
let key: string;

const valid = () => ({
  cedula: '1-0234-0567',
  name: 'José Ángel Pérez Núñez',
  commercial_name: 'Pérez Consultores',
  email: 'jose@perez.example',
  phone: '88887777',
  activity_code: '741203',
  addresses: [
    {
      provincia: '1',
      canton: '01',
      distrito: '08',
      barrio: 'San Pedro',
      otras_senas: '200 m norte de la iglesia',
    },
    { provincia: '4', canton: '01', distrito: '01', otras_senas: 'Oficina en Heredia centro' },
  ],
  metadata: { erp_id: 'C-100' },
});

beforeAll(async () => {
  t = await startTestApp();
  companyId = (await createTestCompany(t.db)).id;
  key = (await createTestKey(t.db, companyId)).secret;
});
afterAll(async () => {
  await t.close();
});

async function counts() {
  const [c, a, e, o] = await Promise.all(
    ['clients', 'client_addresses', 'events', 'outbox'].map(async (tb) =>
      Number((await t.db(tb).count('* as n'))[0]!.n),
    ),
  );
  return { clients: c!, addresses: a!, events: e!, outbox: o! };
}

describe('POST /api/v1/clients', () => {
  it('creates the client with its addresses, reads Nota 4 from a física and records client.created', async () => {
    const before = await counts();
    const res = await call(t.app, 'POST', '/api/v1/clients', { key, body: valid() });
    expect(res.statusCode).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({
      object: 'client',
      cedula: '102340567',
      identification_type: '01',
      name: 'José Ángel Pérez Núñez',
      balance: '0.00',
      livemode: false,
      phone_country_code: '506',
      metadata: { erp_id: 'C-100' },
    });
    expect(c.id).toMatch(/^cli_\d{12}$/);
    expect(c.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.addresses).toHaveLength(2);
    expect(c.addresses[0]).toEqual({
      provincia: '1',
      canton: '01',
      distrito: '08',
      barrio: 'San Pedro',
      otras_senas: '200 m norte de la iglesia',
    });
    const after = await counts();
    expect(after).toEqual({
      clients: before.clients + 1,
      addresses: before.addresses + 2,
      events: before.events + 1,
      outbox: before.outbox + 1,
    });
    const event = await t.db('events').orderBy('id', 'desc').first();
    expect(event).toMatchObject({ type: 'client.created', companyId, livemode: false });
    expect(event.data.id).toBe(c.id);
    expect(event.data.addresses).toHaveLength(2);
    const outbox = await t.db('outbox').orderBy('id', 'desc').first();
    expect(outbox).toMatchObject({ kind: 'event.dispatch', payload: { eventId: event.id } });
  });

  it.each([
    ['3-101-123456', '02', '02', '3101123456'],
    ['155200123456', undefined, '03', '155200123456'],
    ['3101654321', '04', '04', '3101654321'],
    ['3-101-AB1234', undefined, '02', '3101AB1234'],
    ['01-0456-0789', undefined, '01', '104560789'],
    ['0104560788', undefined, '01', '104560788'],
    ['0104560787', '01', '01', '104560787'],
    ['0104560786', '04', '04', '0104560786'],
  ])('identification %s (type %s) → %s', async (cedula, type, expected, number) => {
    const res = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { cedula, name: 'Cliente de prueba', ...(type ? { identification_type: type } : {}) },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ identification_type: expected, cedula: number });
  });

  it('422 ambiguous_identification for ten digits without a type, naming both readings, writing nothing', async () => {
    const before = await counts();
    const res = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { cedula: '3-101-998877', name: 'Cliente Sin Tipo' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
    expect(res.json().errors).toEqual([
      {
        path: '/cedula',
        code: 'ambiguous_identification',
        message:
          '3101998877 puede ser cédula jurídica (02) o NITE (04): indique identification_type / ' +
          '3101998877 may be a cédula jurídica (02) or a NITE (04): give identification_type',
      },
    ]);
    expect(await counts()).toEqual(before);
  });

  it('a física written with a leading zero is the same client as the física', async () => {
    const first = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { cedula: '2-0987-0654', name: 'Física Sin Cero' },
    });
    expect(first.statusCode).toBe(201);
    const dup = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { cedula: '02-0987-0654', name: 'Física Con Cero' },
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ code: 'duplicate_client', existing_client_id: first.json().id });
    const found = await call(t.app, 'GET', '/api/v1/clients', { key, query: { cedula: '0209870654' } });
    expect(found.json().data.map((c: { id: string }) => c.id)).toEqual([first.json().id]);
  });

  it('409 for a duplicate identification in the same company and mode, naming the existing client', async () => {
    const first = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { cedula: '2-0345-0678', name: 'Primera' },
    });
    expect(first.statusCode).toBe(201);
    const before = await counts();
    const dup = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { cedula: '203450678', name: 'Segunda' },
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ code: 'duplicate_client', existing_client_id: first.json().id });
    expect(await counts()).toEqual(before);
  });

  const invalid: [string, Record<string, unknown>, string, string][] = [
    ['missing cedula', { cedula: undefined }, '/cedula', 'required'],
    ['uninferable cedula', { cedula: '12345' }, '/cedula', 'invalid_identification'],
    ['física of 0 + 8 digits', { cedula: '0-1234-5678' }, '/cedula', 'invalid_identification'],
    ['ten digits, no type', { cedula: '4000042147' }, '/cedula', 'ambiguous_identification'],
    ['type mismatch', { identification_type: '02' }, '/cedula', 'identification_type_mismatch'],
    ['unknown type', { identification_type: '09' }, '/identification_type', 'invalid_value'],
    ['name too short', { name: 'Al' }, '/name', 'too_short'],
    ['name too long', { name: 'x'.repeat(101) }, '/name', 'too_long'],
    ['name not a string', { name: 42 }, '/name', 'invalid_type'],
    ['commercial name too short', { commercial_name: 'AB' }, '/commercial_name', 'too_short'],
    ['commercial name too long', { commercial_name: 'x'.repeat(81) }, '/commercial_name', 'too_long'],
    ['bad email', { email: 'not-an-email' }, '/email', 'invalid_format'],
    ['email too long', { email: `${'a'.repeat(150)}@example.com` }, '/email', 'too_long'],
    ['phone too short', { phone: '1234567' }, '/phone', 'invalid_format'],
    ['phone too long', { phone: '1'.repeat(21) }, '/phone', 'invalid_format'],
    ['phone with letters', { phone: '8888-777x' }, '/phone', 'invalid_format'],
    ['activity code', { activity_code: '12345' }, '/activity_code', 'invalid_format'],
    [
      'provincia',
      { addresses: [{ provincia: '8', canton: '01', distrito: '01', otras_senas: 'Cerca del parque' }] },
      '/addresses/0/provincia',
      'invalid_format',
    ],
    [
      'canton',
      { addresses: [{ provincia: '1', canton: '1', distrito: '01', otras_senas: 'Cerca del parque' }] },
      '/addresses/0/canton',
      'invalid_format',
    ],
    [
      'distrito',
      { addresses: [{ provincia: '1', canton: '01', distrito: 'AB', otras_senas: 'Cerca del parque' }] },
      '/addresses/0/distrito',
      'invalid_format',
    ],
    [
      'otras señas too short',
      { addresses: [{ provincia: '1', canton: '01', distrito: '01', otras_senas: 'ab' }] },
      '/addresses/0/otras_senas',
      'too_short',
    ],
    [
      'otras señas too long',
      { addresses: [{ provincia: '1', canton: '01', distrito: '01', otras_senas: 'x'.repeat(251) }] },
      '/addresses/0/otras_senas',
      'too_long',
    ],
    [
      'barrio too short',
      {
        addresses: [
          { provincia: '1', canton: '01', distrito: '01', barrio: 'ab', otras_senas: 'Cerca del parque' },
        ],
      },
      '/addresses/0/barrio',
      'too_short',
    ],
    [
      'missing otras señas',
      { addresses: [{ provincia: '1', canton: '01', distrito: '01' }] },
      '/addresses/0/otras_senas',
      'required',
    ],
    [
      'unknown address field',
      {
        addresses: [
          { provincia: '1', canton: '01', distrito: '01', otras_senas: 'Cerca del parque', zip: '1000' },
        ],
      },
      '/addresses/0/zip',
      'unknown_field',
    ],
    ['unknown field', { balance: '100.00' }, '/balance', 'unknown_field'],
    [
      'too many addresses',
      {
        addresses: Array.from({ length: 11 }, () => ({
          provincia: '1',
          canton: '01',
          distrito: '01',
          otras_senas: 'Cerca del parque',
        })),
      },
      '/addresses',
      'too_many_items',
    ],
  ];
  it.each(invalid)('422 %s, naming the field, writing nothing', async (_label, patch, path, code) => {
    const before = await counts();
    const body: Record<string, unknown> = { ...valid(), cedula: '5-0123-0456', ...patch };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const res = await call(t.app, 'POST', '/api/v1/clients', { key, body });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const problem = res.json();
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toContainEqual(expect.objectContaining({ path, code }));
    expect(await counts()).toEqual(before);
  });

  it('400 for malformed JSON and 415 for a non-JSON body', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"cedula": "102340567",',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_json' });
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      payload: 'cedula=1',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ code: 'unsupported_media_type' });
  });
});

describe('reading clients', () => {
  let created: any;
  beforeAll(async () => {
    created = (
      await call(t.app, 'POST', '/api/v1/clients', {
        key,
        body: { ...valid(), cedula: '6-0111-0222', name: 'Ñandú Álvarez Comercial' },
      })
    ).json();
  });

  it('by cli_ id and by UUID', async () => {
    for (const id of [created.id, created.uuid]) {
      const res = await call(t.app, 'GET', `/api/v1/clients/${id}`, { key });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(created);
    }
  });

  it('404 for an unknown id, a malformed id, and another company’s client', async () => {
    const other = await createTestCompany(t.db);
    const otherKey = (await createTestKey(t.db, other.id)).secret;
    for (const id of ['cli_000099999999', 'nope', created.id, created.uuid]) {
      const res = await call(t.app, 'GET', `/api/v1/clients/${id}`, { key: otherKey });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('resource_not_found');
    }
    const list = await call(t.app, 'GET', '/api/v1/clients', { key: otherKey });
    expect(list.json().data).toEqual([]);
  });

  it('sandbox and live data are separate (same cedula may exist in both)', async () => {
    const live = (await createTestKey(t.db, companyId, { livemode: true })).secret;
    expect((await call(t.app, 'GET', `/api/v1/clients/${created.id}`, { key: live })).statusCode).toBe(404);
    const res = await call(t.app, 'POST', '/api/v1/clients', {
      key: live,
      body: { cedula: created.cedula, name: 'Cliente en vivo' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().livemode).toBe(true);
    const liveList = (await call(t.app, 'GET', '/api/v1/clients', { key: live })).json().data;
    expect(liveList.map((c: { id: string }) => c.id)).toEqual([res.json().id]);
    const testList = (await call(t.app, 'GET', `/api/v1/clients?cedula=${created.cedula}`, { key })).json()
      .data;
    expect(testList.map((c: { id: string }) => c.id)).toEqual([created.id]);
  });

  it('lists each client as GET /api/v1/clients/{id} shows it, its addresses in their order', async () => {
    const body = valid();
    const withTwo = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { ...body, cedula: '1-0777-0888', addresses: [...body.addresses].reverse() },
    });
    const without = await call(t.app, 'POST', '/api/v1/clients', {
      key,
      body: { ...body, cedula: '1-0777-0999', addresses: [] },
    });
    expect(withTwo.statusCode).toBe(201);
    expect(without.statusCode).toBe(201);
    const statements: string[] = [];
    const record = (q: { sql: string }) => {
      if (/client/.test(q.sql)) statements.push(q.sql);
    };
    t.db.on('query', record);
    const list = await call(t.app, 'GET', '/api/v1/clients', { key, query: { limit: '2' } });
    t.db.off('query', record);
    // The page and its addresses in one statement.
    expect(statements).toHaveLength(1);
    const [second, first] = list.json().data;
    expect(first.addresses.map((a: { provincia: string }) => a.provincia)).toEqual(['4', '1']);
    expect(second.addresses).toEqual([]);
    for (const item of [first, second]) {
      const one = await call(t.app, 'GET', `/api/v1/clients/${item.id}`, { key });
      expect(item).toEqual(one.json());
    }
  });

  it('filters by cedula (exact, separators ignored)', async () => {
    const res = await call(t.app, 'GET', '/api/v1/clients', { key, query: { cedula: '6-0111-0222' } });
    expect(res.json().data.map((c: { id: string }) => c.id)).toEqual([created.id]);
    const none = await call(t.app, 'GET', '/api/v1/clients', { key, query: { cedula: '60111022' } });
    expect(none.json().data).toEqual([]);
  });

  it('filters by name, case- and accent-insensitive contains', async () => {
    for (const q of ['ñandú', 'NANDU', 'alvarez', 'ÁLVAREZ COM', 'dú Ál']) {
      const res = await call(t.app, 'GET', '/api/v1/clients', { key, query: { name: q } });
      expect(
        res.json().data.map((c: { id: string }) => c.id),
        q,
      ).toContain(created.id);
    }
    const wild = await call(t.app, 'GET', '/api/v1/clients', { key, query: { name: '%' } });
    expect(wild.json().data).toEqual([]);
  });

  it('filters by balance range', async () => {
    await t
      .db('clients')
      .where({ id: Number(created.id.slice(4)) })
      .update({ balance: '1500.50' });
    const ids = async (query: Record<string, string>) =>
      (await call(t.app, 'GET', '/api/v1/clients', { key, query }))
        .json()
        .data.map((c: { id: string }) => c.id);
    expect(await ids({ balance_gte: '1500.50' })).toEqual([created.id]);
    expect(await ids({ balance_gte: '1000', balance_lte: '2000' })).toEqual([created.id]);
    expect(await ids({ balance_gte: '1500.51' })).toEqual([]);
    expect(await ids({ balance_lte: '1500.49' })).not.toContain(created.id);
    const bad = await call(t.app, 'GET', '/api/v1/clients', { key, query: { balance_gte: 'mucho' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].path).toBe('querystring:/balance_gte');
  });

  it('paginates with limit, starting_after and has_more, newest first, without repeats', async () => {
    const c2 = await createTestCompany(t.db);
    const k2 = (await createTestKey(t.db, c2.id)).secret;
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await call(t.app, 'POST', '/api/v1/clients', {
        key: k2,
        body: { cedula: `7010${String(i).padStart(5, '0')}`, name: `Cliente ${i}` },
      });
      made.push(r.json().id);
    }
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await call(t.app, 'GET', '/api/v1/clients', {
        key: k2,
        query: { limit: '3', ...(after ? { starting_after: after } : {}) },
      });
      const page = res.json();
      seen.push(...page.data.map((c: { id: string }) => c.id));
      if (!page.has_more) break;
      after = page.data.at(-1).id;
    }
    expect(seen).toEqual([...made].reverse());
    const bad = await call(t.app, 'GET', '/api/v1/clients', { key: k2, query: { limit: '0' } });
    expect(bad.statusCode).toBe(422);
    const unknown = await call(t.app, 'GET', '/api/v1/clients', { key: k2, query: { sort: 'name' } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0]).toMatchObject({ path: 'querystring:/sort', code: 'unknown_field' });
  });
});
