// Services catalogue and the company endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealSecret } from './helpers/secrets.ts';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let companyId: number;
let key: string;
const service = {
  cabys: '8314100000200',
  description: 'Consultoría en sistemas',
  unit: 'Sp',
  iva_rate_code: '08',
  price: '50000.00',
};

beforeAll(async () => {
  t = await startTestApp();
  companyId = (await createTestCompany(t.db)).id;
  key = (await createTestKey(t.db, companyId)).secret;
});
afterAll(async () => {
  await t.close();
});

describe('services', () => {
  it('creates and reads a service by srv_ id and UUID', async () => {
    const res = await call(t.app, 'POST', '/api/v1/services', { key, body: service });
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(s).toMatchObject({
      ...service,
      object: 'service',
      kind: 'services',
      tax_code: '01',
      livemode: false,
    });
    expect(s.id).toMatch(/^srv_\d{12}$/);
    for (const id of [s.id, s.uuid])
      expect((await call(t.app, 'GET', `/api/v1/services/${id}`, { key })).json()).toEqual(s);
    const goods = await call(t.app, 'POST', '/api/v1/services', {
      key,
      body: {
        cabys: '2399999009900',
        description: 'Cemento 50 kg',
        unit: 'Unid',
        iva_rate_code: '08',
        price: '7500.12345',
      },
    });
    expect(goods.json()).toMatchObject({ kind: 'goods', price: '7500.12345' });
    const list = await call(t.app, 'GET', '/api/v1/services', { key });
    expect(list.json().data.map((x: { id: string }) => x.id)).toEqual([goods.json().id, s.id]);
    const byCabys = await call(t.app, 'GET', '/api/v1/services', { key, query: { cabys: service.cabys } });
    expect(byCabys.json().data.map((x: { id: string }) => x.id)).toEqual([s.id]);
  });

  it('keeps up to 5 decimals of a price, stored and returned as given (at least 2 decimals)', async () => {
    const uuids: string[] = [];
    for (const [given, shown] of [
      ['1234.56789', '1234.56789'],
      ['1234.5', '1234.50'],
      ['0.12300', '0.123'],
      ['99', '99.00'],
    ]) {
      const res = await call(t.app, 'POST', '/api/v1/services', { key, body: { ...service, price: given } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().price).toBe(shown);
      uuids.push(res.json().uuid);
      expect((await call(t.app, 'GET', `/api/v1/services/${res.json().id}`, { key })).json().price).toBe(
        shown,
      );
    }
    const row = await t.db('services').where({ uuid: uuids[0] }).first();
    expect(row.price).toBe('1234.56789');
    const before = Number((await t.db('services').count('* as n'))[0]!.n);
    const tooFine = await call(t.app, 'POST', '/api/v1/services', {
      key,
      body: { ...service, price: '1.123456' },
    });
    expect(tooFine.statusCode).toBe(422);
    expect(tooFine.json().errors).toContainEqual(
      expect.objectContaining({ path: '/price', code: 'invalid_format' }),
    );
    expect(Number((await t.db('services').count('* as n'))[0]!.n)).toBe(before);
  });

  it.each([
    ['cabys', { cabys: '123' }, '/cabys', 'invalid_format'],
    ['description', { description: 'ab' }, '/description', 'too_short'],
    ['unit', { unit: 'Litros' }, '/unit', 'invalid_value'],
    ['iva rate 07 (disabled)', { iva_rate_code: '07' }, '/iva_rate_code', 'invalid_value'],
    ['price negative', { price: '-1.00' }, '/price', 'invalid_format'],
    ['price as number', { price: 100 }, '/price', 'invalid_type'],
    ['unknown field', { tax: 13 }, '/tax', 'unknown_field'],
    ['tax code beside the IVA', { tax_code: '02' }, '/tax_code', 'invalid_value'],
  ])('422 for %s', async (_l, patch, path, code) => {
    const before = Number((await t.db('services').count('* as n'))[0]!.n);
    const res = await call(t.app, 'POST', '/api/v1/services', { key, body: { ...service, ...patch } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    expect(Number((await t.db('services').count('* as n'))[0]!.n)).toBe(before);
  });

  it('isolates companies and modes', async () => {
    const s = (await call(t.app, 'POST', '/api/v1/services', { key, body: service })).json();
    const other = (await createTestKey(t.db, (await createTestCompany(t.db)).id)).secret;
    const live = (await createTestKey(t.db, companyId, { livemode: true })).secret;
    for (const k of [other, live]) {
      expect((await call(t.app, 'GET', `/api/v1/services/${s.id}`, { key: k })).statusCode).toBe(404);
      expect((await call(t.app, 'GET', `/api/v1/services/${s.uuid}`, { key: k })).statusCode).toBe(404);
      expect((await call(t.app, 'GET', '/api/v1/services', { key: k })).json().data).toEqual([]);
    }
  });
});

describe('GET /api/v1/company', () => {
  it('returns the emisor data and never a secret', async () => {
    await t.db('company_credentials').insert({
      companyId,
      livemode: false,
      signingKeyEnc: sealSecret('-----BEGIN PRIVATE KEY-----supersecretkey'),
      certificateSubject: 'CN=EMPRESA DE PRUEBA, serialNumber=CPJ-3-101-000000',
      certificateNotAfter: new Date('2028-01-01T00:00:00Z'),
      haciendaUsername: 'cpj-3-101-000000@stag.comprobanteselectronicos.go.cr',
      haciendaPasswordEnc: sealSecret('hacienda-password-123'),
    });
    const res = await call(t.app, 'GET', '/api/v1/company', { key });
    expect(res.statusCode).toBe(200);
    const c = res.json();
    expect(c).toMatchObject({
      id: `cmp_${String(companyId).padStart(12, '0')}`,
      object: 'company',
      plan: 'business',
      livemode: false,
      emisor: { identification: { type: '02' }, activity_code: '620100', location: { provincia: '1' } },
      certificate: {
        subject: 'CN=EMPRESA DE PRUEBA, serialNumber=CPJ-3-101-000000',
        not_after: '2028-01-01T00:00:00.000Z',
      },
      hacienda_credentials_configured: true,
    });
    const text = res.body;
    for (const secret of ['supersecretkey', 'hacienda-password-123', 'signing_key', 'password_enc'])
      expect(text).not.toContain(secret);
    const live = (await createTestKey(t.db, companyId, { livemode: true })).secret;
    expect((await call(t.app, 'GET', '/api/v1/company', { key: live })).json()).toMatchObject({
      livemode: true,
      certificate: null,
    });
  });
});
