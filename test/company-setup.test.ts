// Setting a company up through the API: its profile (PATCH /api/v1/company), its .p12, its
// Hacienda API user (tested against an in-process Hacienda simulator's IDP), its logo, its
// branches and terminals, and the go-live checklist. Every refused input changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
let companyId: number;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  companyId = (await createTestCompany(t.db, { idNumber: '3101123456', legalName: 'Servicios Ejemplo S.A.' }))
    .id;
  key = (await createTestKey(t.db, companyId)).secret;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

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
