// The official CABYS catalogue: the domain lookup and search, the API's /api/v1/cabys routes, and
// intake: a code that is not in the catalogue is refused (422 unknown_cabys, the field named)
// before a consecutivo is taken, for services and for every kind of document with lines.
import type { Job } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processBatch, type BatchJobData } from '../jobs/batches/process.ts';
import { catalogueTsv, normaliseTax, parseDelimited } from '../scripts/cabys-import.ts';
import { parseCabysTsv } from '../domain/cabys.ts';
import type { JobContext } from '../jobs/context.ts';
import { cabysCatalogue, lookupCabys, searchCabys } from '../domain/cabys.ts';
import { createService } from '../db/queries/services.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
let cli: string;
let good: string;
/** A service stored before its code was checked: its CABYS is in no catalogue. */
let stale: string;

beforeAll(async () => {
  e = await startE2E({ workers: false });
  s = await seedIssuer(e.db, e.config);
  cli = `cli_${pad(s.client.id)}`;
  good = `srv_${pad(s.consulting.id)}`;
  const row = await createService(
    e.db,
    { companyId: s.company.id, livemode: false },
    {
      cabys: '0000000000000',
      description: 'Servicio con código inexistente',
      unit: 'Sp',
      taxCode: '01',
      ivaRateCode: '08',
      price: '1000.00',
      commercialCode: null,
    },
  );
  stale = `srv_${pad(row.id)}`;
});
afterAll(async () => {
  await e.close();
});

describe('the catalogue (domain/cabys.ts)', () => {
  it('holds the official codes with their tax rate and categories', () => {
    expect(cabysCatalogue().items.size).toBeGreaterThan(20_000);
    expect(lookupCabys('2391102010200')).toMatchObject({
      description: 'Café tostado, sin descafeinar, molido',
      taxRate: 1,
      tax: '1%',
    });
    expect(lookupCabys('9231000000200')).toMatchObject({ taxRate: 0, tax: 'Exento' });
    const it = lookupCabys('8314100000200')!;
    expect(it.categories.map((c) => c.code)).toEqual([
      '8',
      '83',
      '831',
      '8314',
      '83141',
      '8314100',
      '831410000',
      '83141000002',
    ]);
    expect(it.categories[0]!.description).toBe(
      'Servicios prestados a las empresas y servicios de producción',
    );
    for (const code of ['0000000000000', '9999999999999', '831410000020', 'abc'])
      expect(lookupCabys(code)).toBeNull();
  });

  it('searches by words, accents and case ignored, best matches first', () => {
    const a = searchCabys('ENSENANZA primaria', 50);
    const b = searchCabys('enseñanza Primaria', 50);
    expect(a.total).toBeGreaterThan(0);
    expect(a).toEqual(b);
    for (const r of a.results)
      expect(r.description.toLowerCase()).toMatch(/enseñanza.*primaria|primaria.*enseñanza/);
    // A word matches the start of a word: "tost" finds "tostado".
    expect(searchCabys('cafe tost', 5).results.map((r) => r.code)).toContain('2391102010200');
    // Whole-word matches rank first; then the shorter description.
    const leche = searchCabys('leche', 3).results;
    expect(leche[0]!.description.length).toBeLessThanOrEqual(leche[1]!.description.length);
    expect(searchCabys('8314100', 100).results.every((r) => r.code.startsWith('8314100'))).toBe(true);
    expect(searchCabys('zzzzqqq', 5)).toEqual({ total: 0, results: [] });
    expect(searchCabys('servicios', 7).results).toHaveLength(7);
  });
});

describe('npm run cabys:import (the official spreadsheet saved as CSV)', () => {
  it('keeps every code, its tax as the sheet says and every level name', () => {
    const levels = (d: string[]) => d.flatMap((c, i) => [c, `Nivel ${i + 1}`]);
    const head = [
      ...Array.from({ length: 8 }, (_, i) => [
        `Categoría ${i + 1}`,
        `Descripción (categoría ${i + 1})`,
      ]).flat(),
      'Categoría 9',
      'Descripción (categoría 9)',
      'Impuesto',
      'Nota explicativa 1. Incluye',
    ];
    const csv = [
      'Catálogo de bienes y servicios;;',
      head.join(';'),
      [
        ...levels(['0', '01', '011', '0111', '01111', '111100', '11110000', '1111000001']),
        '111100000100',
        '"Trigo duro, para siembra (semillas)"',
        '1%',
        '',
      ].join(';'),
      [
        ...levels(['9', '92', '923', '9231', '92310', '9231000', '923100000', '92310000002']),
        '9231000000200',
        'Otros servicios de enseñanza primaria',
        'Exento',
        '""',
      ].join(';'),
    ].join('\r\n');
    const rows = parseDelimited(csv);
    expect(rows[2]![17]).toBe('Trigo duro, para siembra (semillas)');
    const { text, items } = catalogueTsv(rows, 'test.csv');
    expect(items).toBe(2);
    const cat = parseCabysTsv(text);
    // A spreadsheet export drops leading zeros: they are put back.
    expect(cat.items.get('0111100000100')).toEqual({
      description: 'Trigo duro, para siembra (semillas)',
      tax: '1',
    });
    expect(cat.items.get('9231000000200')?.tax).toBe('exento');
    expect(cat.categories.get('0111100')).toBe('Nivel 6');
    expect(cat.categories.get('92310000002')).toBe('Nivel 8');
    expect(['13%', '4 %', 'Exento', 'na', '0.13'].map(normaliseTax)).toEqual([
      '13',
      '4',
      'exento',
      'na',
      '13',
    ]);
    expect(() => catalogueTsv([['a', 'b']], 'x.csv')).toThrow(/Categoría 1/);
  });
});

describe('GET /api/v1/cabys', () => {
  it("searches and reads codes in Hacienda's shape; an unknown code is a 404", async () => {
    const found = await api(e, 'GET', '/api/v1/cabys?q=desarrollo%20aplicaciones&limit=3', s.key);
    expect(found.status).toBe(200);
    expect(found.json.cantidad).toBe(found.json.cabys.length);
    expect(found.json.total).toBeGreaterThanOrEqual(found.json.cantidad);
    expect(found.json.cabys.map((c: any) => c.codigo)).toContain('8314100000200');
    const one = await api(e, 'GET', '/api/v1/cabys/8314100000200', s.key);
    expect(one.json).toMatchObject({
      object: 'cabys',
      codigo: '8314100000200',
      impuesto: 13,
      impuesto_texto: '13%',
    });
    expect(one.json.categorias).toHaveLength(8);
    const missing = await api(e, 'GET', '/api/v1/cabys/0000000000000', s.key);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await api(e, 'GET', '/api/v1/cabys?q=', s.key)).status).toBe(422);
    expect((await api(e, 'GET', '/api/v1/cabys?q=cafe', 'ik_test_notakey')).status).toBe(401);
  });
});

async function written() {
  const n = async (t: string) => Number((await e.db(t).count('* as n'))[0]!.n);
  const series = await e.db('numbering_series').sum('last_number as s').first();
  return { invoices: await n('invoices'), services: await n('services'), series: Number(series?.s ?? 0) };
}

const expectUnknownCabys = (res: Awaited<ReturnType<typeof api>>, path: string) => {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  expect(res.json.errors).toContainEqual(expect.objectContaining({ path, code: 'unknown_cabys' }));
};

describe('intake refuses a code that is not in the catalogue', () => {
  it('a service: 422 at /cabys, nothing stored', async () => {
    const before = await written();
    const res = await api(e, 'POST', '/api/v1/services', s.key, {
      cabys: '0000000000000',
      description: 'Servicio inventado',
      unit: 'Sp',
      iva_rate_code: '08',
      price: '1000.00',
    });
    expectUnknownCabys(res, '/cabys');
    expect(res.json.errors[0].message).toMatch(/no existe en el catálogo.*not in Hacienda's catalogue/);
    expect(await written()).toEqual(before);
  });

  it('invoices, tiquetes and purchases (notes share the same preparation): 422 before a number is taken; the next good one takes the next number', async () => {
    const first = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli,
      lines: [{ service_id: good, qty: 1 }],
    });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    const before = await written();
    const line = (service: string) => ({ service_id: service, qty: 1, unit_price: '1000.00' });
    const bad: [Record<string, unknown>, string][] = [
      [{ client_id: cli, lines: [line(good), line(stale)] }, '/lines/1/service_id'],
      [{ document_type: '04', lines: [line(stale)] }, '/lines/0/service_id'],
      [
        {
          document_type: '08',
          supplier: {
            name: 'Cloud Tools LLC',
            identification: 'US4455667788',
            identification_type: '05',
            foreign_address: '500 Market St, San Francisco, CA, USA',
          },
          lines: [line(stale)],
        },
        '/lines/0/service_id',
      ],
    ];
    for (const [body, path] of bad)
      expectUnknownCabys(await api(e, 'POST', '/api/v1/invoices', s.key, body), path);
    expect(await written()).toEqual(before);

    const next = await api(e, 'POST', '/api/v1/invoices', s.key, { client_id: cli, lines: [line(good)] });
    expect(next.status).toBe(201);
    expect(Number(next.json.consecutivo.slice(10))).toBe(Number(first.json.consecutivo.slice(10)) + 1);
  });

  it('a batch item: refused with unknown_cabys, its neighbours numbered without a gap', async () => {
    const run = Date.now();
    const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
      invoices: [0, 1, 2].map((i) => ({
        idempotency_key: `cabys-${run}-${i}`,
        client_id: cli,
        lines: [{ service_id: i === 1 ? stale : good, qty: 1 }],
      })),
    });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const batchId = Number(res.json.id.slice(4));
    const ctx = { db: e.db, log: pino({ level: 'silent' }), config: e.config } as unknown as JobContext;
    const job = { data: { v: 1, batchId }, updateProgress: async () => {} } as unknown as Job<BatchJobData>;
    await processBatch(job, ctx);
    const b = (await api(e, 'GET', `/api/v1/batches/${res.json.id}`, s.key)).json;
    expect(b.items[1].status).not.toBe('created');
    expect(b.items[1].error.errors[0]).toMatchObject({ path: '/lines/0/service_id', code: 'unknown_cabys' });
    const [a, c] = [b.items[0].invoice.consecutivo, b.items[2].invoice.consecutivo].map((x: string) =>
      Number(x.slice(10)),
    );
    expect(c).toBe(a! + 1);
  });
});
