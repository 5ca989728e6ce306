// Editing and archiving clients and services: PATCH with the create's rules, archive/unarchive,
// lists leaving archived ones out, and issuing refused (before any number is taken) for an
// archived client or service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../db/queries/api-keys.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
const ref = (p: string, id: number) => `${p}_${pad(id)}`;

beforeAll(async () => {
  e = await startE2E({ workers: false });
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e.close();
});

const newClient = async (cedula: string, name: string) => {
  const res = await api(e, 'POST', '/api/v1/clients', s.key, {
    cedula,
    name,
    email: 'cliente@example.com',
    addresses: [{ provincia: '1', canton: '01', distrito: '08', otras_senas: '200 m norte de la iglesia' }],
  });
  expect(res.status, res.text).toBe(201);
  return res.json as Record<string, any>;
};

async function numbering() {
  const series = await e.db('numbering_series').sum('last_number as s').first();
  const invoices = Number((await e.db('invoices').count('* as n'))[0]!.n);
  return { series: Number(series?.s ?? 0), invoices };
}

describe('PATCH /api/v1/clients/{id}', () => {
  it('changes the fields given, keeps the others, replaces addresses and clears with null', async () => {
    const c = await newClient('1-0555-0666', 'Marta Solís Vega');
    const res = await api(e, 'PATCH', `/api/v1/clients/${c.id}`, s.key, {
      name: 'Marta Solís Vargas',
      phone: '88887777',
      email: null,
      addresses: [{ provincia: '4', canton: '01', distrito: '01', otras_senas: 'Oficina en Heredia centro' }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      id: c.id,
      cedula: '105550666',
      identification_type: '01',
      name: 'Marta Solís Vargas',
      email: null,
      phone: '88887777',
      phone_country_code: '506',
      archived: false,
      addresses: [{ provincia: '4', canton: '01', distrito: '01', otras_senas: 'Oficina en Heredia centro' }],
    });
    const read = await api(e, 'GET', `/api/v1/clients/${c.id}`, s.key);
    expect(read.json).toEqual(res.json);
    const keep = await api(e, 'PATCH', `/api/v1/clients/${c.id}`, s.key, { commercial_name: 'Solís Vargas' });
    expect(keep.json.addresses).toEqual(res.json.addresses);
    expect(keep.json.name).toBe('Marta Solís Vargas');
  });

  it('runs a new identification through the identification rules, and refuses one another client has', async () => {
    const c = await newClient('1-0777-0888', 'Pedro Arias Mora');
    const other = await newClient('1-0999-0111', 'Ana Rojas Mora');
    const ambiguous = await api(e, 'PATCH', `/api/v1/clients/${c.id}`, s.key, { cedula: '4000042147' });
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.json.errors).toContainEqual(
      expect.objectContaining({ path: '/cedula', code: 'ambiguous_identification' }),
    );
    const nite = await api(e, 'PATCH', `/api/v1/clients/${c.id}`, s.key, {
      cedula: '4000042147',
      identification_type: '04',
    });
    expect(nite.status, nite.text).toBe(200);
    expect(nite.json).toMatchObject({ cedula: '4000042147', identification_type: '04' });
    const fisica = await api(e, 'PATCH', `/api/v1/clients/${c.id}`, s.key, { cedula: '01-0777-0999' });
    expect(fisica.json).toMatchObject({ cedula: '107770999', identification_type: '01' });
    const dup = await api(e, 'PATCH', `/api/v1/clients/${c.id}`, s.key, { cedula: other.cedula });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ code: 'duplicate_client', existing_client_id: other.id });
  });

  it('refuses invalid fields like the create and changes nothing', async () => {
    const c = await newClient('1-0123-0456', 'Luis Campos Soto');
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'Al' }, '/name'],
      [{ email: 'no-es-correo' }, '/email'],
      [
        { addresses: [{ provincia: '1', canton: '99', distrito: '01', otras_senas: 'En algún lugar' }] },
        '/addresses/0',
      ],
      [{ colour: 'red' }, '/colour'],
      [{ identification_type: '02' }, '/cedula'],
    ];
    for (const [body, path] of cases) {
      const res = await api(e, 'PATCH', `/api/v1/clients/${c.id}`, s.key, body);
      expect(res.status, `${JSON.stringify(body)} ${res.text}`).toBe(422);
      const paths = (res.json.errors ?? []).map((x: { path: string }) => x.path);
      expect(
        paths.some((p: string) => p.startsWith(path)),
        `${JSON.stringify(body)} ${res.text}`,
      ).toBe(true);
    }
    const read = await api(e, 'GET', `/api/v1/clients/${c.id}`, s.key);
    expect(read.json).toMatchObject({
      name: 'Luis Campos Soto',
      cedula: '101230456',
      updated_at: c.updated_at,
    });
  });

  it("is 404 for another company's client and 403 without write:clients", async () => {
    const other = await seedIssuer(e.db, e.config, '3101777888');
    const c = await newClient('1-0444-0555', 'Rosa Méndez Pau');
    expect(
      (await api(e, 'PATCH', `/api/v1/clients/${c.id}`, other.key, { name: 'Otra Persona' })).status,
    ).toBe(404);
    expect((await api(e, 'POST', `/api/v1/clients/${c.id}/archive`, other.key)).status).toBe(404);
    const reader = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: false,
      name: 'reader',
      scopes: ['read:clients'],
    });
    expect(
      (await api(e, 'PATCH', `/api/v1/clients/${c.id}`, reader.secret, { name: 'Otra Persona' })).status,
    ).toBe(403);
  });
});

describe('archiving clients', () => {
  it('leaves an archived client out of lists and searches, refuses issuing to it before numbering, and unarchives', async () => {
    const c = await newClient('1-0333-0444', 'Archivo Quesada Ruiz');
    const issued = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: c.id,
      lines: [{ service_id: ref('srv', s.consulting.id), qty: 1 }],
    });
    expect(issued.status).toBe(201);
    const archived = await api(e, 'POST', `/api/v1/clients/${c.id}/archive`, s.key);
    expect(archived.status).toBe(200);
    expect(archived.json.archived).toBe(true);
    expect((await api(e, 'POST', `/api/v1/clients/${c.id}/archive`, s.key)).json.archived).toBe(true);

    const ids = async (q: string) =>
      (await api(e, 'GET', `/api/v1/clients?limit=100${q}`, s.key)).json.data.map(
        (x: { id: string }) => x.id,
      );
    expect(await ids('')).not.toContain(c.id);
    expect(await ids('&name=quesada')).toEqual([]);
    expect(await ids('&cedula=103330444')).toEqual([]);
    expect(await ids('&include_archived=true')).toContain(c.id);
    expect(await ids('&name=quesada&include_archived=true')).toEqual([c.id]);
    expect((await api(e, 'GET', `/api/v1/clients/${c.id}`, s.key)).json.archived).toBe(true);

    const before = await numbering();
    const body = { client_id: c.id, lines: [{ service_id: ref('srv', s.consulting.id), qty: 1 }] };
    for (const path of ['/api/v1/invoices', '/api/v1/invoices/preview']) {
      const refused = await api(e, 'POST', path, s.key, body);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.json.errors).toContainEqual(
        expect.objectContaining({ path: '/client_id', code: 'client_archived' }),
      );
    }
    const draft = await api(e, 'POST', '/api/v1/invoices', s.key, { ...body, send: false });
    expect(draft.status).toBe(422);
    expect(await numbering()).toEqual(before);
    // The invoice issued before still names its client.
    const old = await api(e, 'GET', `/api/v1/invoices/${issued.json.id}`, s.key);
    expect(old.json).toMatchObject({ client_id: c.id, total: issued.json.total });

    const back = await api(e, 'POST', `/api/v1/clients/${c.id}/unarchive`, s.key);
    expect(back.json.archived).toBe(false);
    expect(await ids('')).toContain(c.id);
    expect((await api(e, 'POST', '/api/v1/invoices', s.key, body)).status).toBe(201);
  });
});

describe('PATCH /api/v1/services/{id} and archiving services', () => {
  it('changes what new documents take, keeps issued lines, and validates like the create', async () => {
    const created = await api(e, 'POST', '/api/v1/services', s.key, {
      cabys: '8314100000200',
      description: 'Soporte técnico mensual',
      unit: 'Sp',
      iva_rate_code: '08',
      price: '20000',
      commercial_code: 'SOP-1',
    });
    expect(created.status, created.text).toBe(201);
    const srv = created.json.id as string;
    const line = { client_id: ref('cli', s.client.id), lines: [{ service_id: srv, qty: 1 }] };
    const first = await api(e, 'POST', '/api/v1/invoices', s.key, line);
    expect(first.json.lines[0]).toMatchObject({
      unit_price: '20000.00000',
      description: 'Soporte técnico mensual',
    });

    const patched = await api(e, 'PATCH', `/api/v1/services/${srv}`, s.key, {
      price: '25000.50',
      description: 'Soporte técnico mensual ampliado',
      iva_rate_code: '04',
      commercial_code: null,
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({
      price: '25000.50',
      description: 'Soporte técnico mensual ampliado',
      iva_rate_code: '04',
      commercial_code: null,
      cabys: '8314100000200',
      unit: 'Sp',
      archived: false,
    });
    const second = await api(e, 'POST', '/api/v1/invoices', s.key, line);
    expect(second.json.lines[0]).toMatchObject({ unit_price: '25000.50000' });
    expect(second.json.lines[0].taxes[0]).toMatchObject({ iva_rate_code: '04' });
    const again = await api(e, 'GET', `/api/v1/invoices/${first.json.id}`, s.key);
    expect(again.json.lines).toEqual(first.json.lines);

    for (const [body, path] of [
      [{ cabys: '1234567890123' }, '/cabys'],
      [{ description: '  a ' }, '/description'],
      [{ price: '-1' }, '/price'],
      [{ taxes: [{ code: '01', rate: '13' }] }, '/taxes/0/code'],
    ] as const) {
      const res = await api(e, 'PATCH', `/api/v1/services/${srv}`, s.key, body);
      expect(res.status, `${JSON.stringify(body)} ${res.text}`).toBe(422);
      expect(
        (res.json.errors ?? []).some((x: { path: string }) => x.path.startsWith(path)),
        `${JSON.stringify(body)} ${res.text}`,
      ).toBe(true);
    }
    expect((await api(e, 'GET', `/api/v1/services/${srv}`, s.key)).json).toEqual(patched.json);
  });

  it('leaves an archived service out of the list and refuses it on new documents, before numbering', async () => {
    const created = await api(e, 'POST', '/api/v1/services', s.key, {
      cabys: '8314100000200',
      description: 'Servicio retirado',
      unit: 'Sp',
      iva_rate_code: '08',
      price: '100',
    });
    const srv = created.json.id as string;
    const archived = await api(e, 'POST', `/api/v1/services/${srv}/archive`, s.key);
    expect(archived.json.archived).toBe(true);
    const ids = async (q: string) =>
      (await api(e, 'GET', `/api/v1/services?limit=100${q}`, s.key)).json.data.map(
        (x: { id: string }) => x.id,
      );
    expect(await ids('')).not.toContain(srv);
    expect(await ids('&include_archived=true')).toContain(srv);

    const before = await numbering();
    const body = {
      client_id: ref('cli', s.client.id),
      lines: [
        { service_id: ref('srv', s.consulting.id), qty: 1 },
        { service_id: srv, qty: 1 },
      ],
    };
    const refused = await api(e, 'POST', '/api/v1/invoices', s.key, body);
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([
      expect.objectContaining({ path: '/lines/1/service_id', code: 'service_archived' }),
    ]);
    expect(await numbering()).toEqual(before);

    expect((await api(e, 'POST', `/api/v1/services/${srv}/unarchive`, s.key)).json.archived).toBe(false);
    expect((await api(e, 'POST', '/api/v1/invoices', s.key, body)).status).toBe(201);
  });
});
