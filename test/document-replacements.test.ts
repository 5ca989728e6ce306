// Replacing a rejected tiquete (04) and a rejected export (09) through the API, the workers and the
// Hacienda simulator: the replacement has the type of what it replaces (otherwise 422 on
// `replaces`, nothing written), references it with Codigo 16 under TipoDocIR 10 (tiquete) or 12
// (export), and reaches aceptada; the rejected document's issue entry is reversed under its name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXml } from './helpers/xsd.ts';
import { api, seedIssuer, startE2E, type E2E, waitForDocumentStatus } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const srv = (id: number) => `srv_${String(id).padStart(12, '0')}`;
const num = (id: string) => Number(id.slice(4));
let foreign: string;
let goods: string;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  const c = await api(e, 'POST', '/api/v1/clients', s.key, {
    cedula: 'US987654321',
    identification_type: '05',
    name: 'Global Imports LLC',
    email: 'ap@global-imports.example',
    foreign_address: '1200 Harbor Blvd, Miami, FL 33132, United States',
  });
  expect(c.status).toBe(201);
  foreign = c.json.id;
  const g = await api(e, 'POST', '/api/v1/services', s.key, {
    cabys: '0111100000100',
    description: 'Café en grano verde',
    unit: 'Kg',
    tax_code: '01',
    iva_rate_code: '02',
    price: '4.25',
  });
  expect(g.status).toBe(201);
  goods = g.json.id;
});
afterAll(async () => {
  await e.close();
});

const waitForStatus = (id: string, statuses: string[], timeoutMs = 20_000) =>
  waitForDocumentStatus(e, s.key, id, statuses, timeoutMs);

async function signedXml(id: string): Promise<string> {
  const res = await api(e, 'GET', `/api/v1/invoices/${id}/xml`, s.key);
  expect(res.status).toBe(200);
  return res.text;
}

async function written() {
  const [inv, series, events] = await Promise.all([
    e.db('invoices').count('* as n').first(),
    e.db('numbering_series').sum('last_number as n').first(),
    e.db('events').count('* as n').first(),
  ]);
  return [Number(inv!.n), Number(series!.n), Number(events!.n)];
}

const tiquete = () => ({
  document_type: '04',
  payment_method: 'efectivo',
  lines: [{ service_id: srv(s.laptop.id), qty: 1 }],
});
const exportacion = () => ({
  document_type: '09',
  client_id: foreign,
  currency: 'USD',
  exchange_rate: '505.20',
  condition: 'credito_30',
  lines: [{ service_id: goods, qty: 100, unit_price: '4.25', tariff_code: '090111000000' }],
});

describe('replacing a rejected tiquete or export', () => {
  let te: any;
  let fee: any;

  beforeAll(async () => {
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    try {
      const [a, b] = await Promise.all([
        api(e, 'POST', '/api/v1/invoices', s.key, tiquete()),
        api(e, 'POST', '/api/v1/invoices', s.key, exportacion()),
      ]);
      expect([a.status, b.status]).toEqual([201, 201]);
      te = await waitForStatus(a.json.id, ['rechazada']);
      fee = await waitForStatus(b.json.id, ['rechazada']);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
  });

  it('a replacement of another document type is refused on `replaces`, and nothing is written', async () => {
    const before = await written();
    const cases: [string, Record<string, unknown>][] = [
      [te.id, { ...exportacion(), replaces: te.id }],
      [te.id, { ...tiquete(), document_type: '01', client_id: foreign, replaces: te.id }],
      [fee.id, { ...tiquete(), replaces: fee.id }],
      [fee.id, { client_id: foreign, lines: [{ service_id: goods, qty: 100 }], replaces: fee.id }],
    ];
    for (const [id, body] of cases) {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, body);
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.code).toBe('validation_failed');
      expect(res.json.errors).toEqual([
        { path: '/replaces', code: 'document_type_mismatch', message: expect.stringContaining(id) },
      ]);
    }
    expect(await written()).toEqual(before);
    for (const id of [te.id, fee.id])
      expect((await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json.replaced_by).toBeNull();
  });

  it('a rejected tiquete is replaced by a tiquete: TipoDocIR 10, Codigo 16, accepted', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, { ...tiquete(), replaces: te.id });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({
      document_type: '04',
      replaces: te.id,
      reference: { document_id: te.id, document_type: '10', code: '16', clave: te.clave },
    });
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status, JSON.stringify(done.rejection_reason ?? done.processing_error)).toBe('aceptada');
    const xml = await signedXml(res.json.id);
    expect(xml).toMatch(
      new RegExp(
        `<InformacionReferencia>\\s*<TipoDocIR>10</TipoDocIR>\\s*<Numero>${te.clave}</Numero>\\s*` +
          `<FechaEmisionIR>[^<]+</FechaEmisionIR>\\s*<Codigo>16</Codigo>`,
      ),
    );
    expect(await validateXml('TiqueteElectronico', xml)).toEqual({ valid: true, errors: [] });
    expect((await api(e, 'GET', `/api/v1/invoices/${te.id}`, s.key)).json.replaced_by).toBe(res.json.id);

    // The rejected tiquete's issue entry was reversed under the tiquete's name.
    let reversal: any;
    await waitFor(
      async () => {
        reversal = await e
          .db('journal_entries')
          .where({ invoiceId: num(te.id), kind: 'invoice_reversal' })
          .first();
        return reversal !== undefined;
      },
      10_000,
      100,
      'the rejected tiquete reversed',
    );
    expect(reversal.description).toBe(`Reverso por rechazo Tiquete electrónico ${te.consecutivo}`);
  });

  it('a rejected export is replaced by an export: TipoDocIR 12, Codigo 16, accepted', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, { ...exportacion(), replaces: fee.id });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({
      document_type: '09',
      replaces: fee.id,
      reference: { document_id: fee.id, document_type: '12', code: '16', clave: fee.clave },
    });
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status, JSON.stringify(done.rejection_reason ?? done.processing_error)).toBe('aceptada');
    const xml = await signedXml(res.json.id);
    expect(xml).toMatch(
      new RegExp(
        `<InformacionReferencia>\\s*<TipoDocIR>12</TipoDocIR>\\s*<Numero>${fee.clave}</Numero>\\s*` +
          `<FechaEmisionIR>[^<]+</FechaEmisionIR>\\s*<Codigo>16</Codigo>`,
      ),
    );
    expect(await validateXml('FacturaElectronicaExportacion', xml)).toEqual({ valid: true, errors: [] });
    expect((await api(e, 'GET', `/api/v1/invoices/${fee.id}`, s.key)).json.replaced_by).toBe(res.json.id);
    const again = await api(e, 'POST', '/api/v1/invoices', s.key, { ...exportacion(), replaces: fee.id });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('invoice_not_replaceable');
  });
});
