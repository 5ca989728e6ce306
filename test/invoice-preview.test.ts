// POST /api/v1/invoices/preview: the create's validation and totals, nothing recorded. Each body is
// previewed, then created: the figures must be the same, a refusal the same problem, and the
// previews must leave invoices, numbering, events, outbox and idempotency records as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../db/queries/api-keys.ts';
import { createService } from '../db/queries/services.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
const ref = (p: string, id: number) => `${p}_${pad(id)}`;
let cli: string;
let srv: { consulting: string; laptop: string; exempt: string; reduced: string; beer: string };

beforeAll(async () => {
  e = await startE2E({ workers: false });
  s = await seedIssuer(e.db, e.config);
  const tenant = { companyId: s.company.id, livemode: false };
  const reduced = await createService(e.db, tenant, {
    cabys: '8314100000200',
    description: 'Servicio con tarifa reducida',
    unit: 'Sp',
    taxCode: '01',
    ivaRateCode: '04',
    price: '1234.56',
  });
  const beer = await createService(e.db, tenant, {
    cabys: '2431000000000',
    description: 'Cerveza 350 ml',
    unit: 'Unid',
    taxCode: '01',
    ivaRateCode: '08',
    price: '900',
  });
  cli = ref('cli', s.client.id);
  srv = {
    consulting: ref('srv', s.consulting.id),
    laptop: ref('srv', s.laptop.id),
    exempt: ref('srv', s.exempt.id),
    reduced: ref('srv', reduced.id),
    beer: ref('srv', beer.id),
  };
});
afterAll(async () => {
  await e.close();
});

async function written() {
  const n = async (t: string) => Number((await e.db(t).count('* as n'))[0]!.n);
  const series = await e.db('numbering_series').sum('last_number as s').first();
  return {
    invoices: await n('invoices'),
    series: Number(series?.s ?? 0),
    seriesRows: await n('numbering_series'),
    events: await n('events'),
    outbox: await n('outbox'),
    idempotency: await n('idempotency_keys'),
  };
}

const FIGURES = [
  'document_type',
  'client_id',
  'currency',
  'exchange_rate',
  'exchange_rate_source',
  'condition',
  'credit_days',
  'payment_methods',
  'payments',
  'other_charges',
  'lines',
  'tax_breakdown',
  'subtotal',
  'total_discount',
  'total_tax',
  'total',
  'totals',
] as const;
const figuresOf = (o: Record<string, unknown>) => Object.fromEntries(FIGURES.map((k) => [k, o[k]]));

const exoneration = (rate: string) => ({
  doc_type: '08',
  number: 'ZF-2026-0042',
  institution: '04',
  issued_at: '2026-01-15',
  rate,
});

function variedBodies(): [string, Record<string, unknown>][] {
  return [
    ['one line at 13 %', { client_id: cli, lines: [{ service_id: srv.consulting, qty: 3 }] }],
    [
      'several rates: 13 %, 4 %, exempt',
      {
        client_id: cli,
        lines: [
          { service_id: srv.laptop, qty: 2, unit_price: '449999.99' },
          { service_id: srv.reduced, qty: '1.5' },
          { service_id: srv.exempt, qty: 1 },
        ],
      },
    ],
    [
      'discounts and exonerations',
      {
        client_id: cli,
        lines: [
          {
            service_id: srv.laptop,
            qty: 1,
            discounts: [
              { percent: '10', code: '04', nature: 'Descuento por volumen' },
              { amount: '5000', code: '99', code_other: 'Cliente de la casa' },
            ],
            exoneration: exoneration('13'),
          },
          { service_id: srv.consulting, qty: 3, discount: { amount: '10' }, exoneration: exoneration('4') },
        ],
      },
    ],
    [
      'other taxes beside the IVA, an other charge, two payments',
      {
        client_id: cli,
        lines: [
          {
            service_id: srv.beer,
            qty: 24,
            taxes: [
              { code: '02', rate: '10' },
              { code: '04', unit_quantity: '350', alcohol_percent: '4.5', tax_per_unit: '4.15' },
            ],
          },
          {
            service_id: srv.consulting,
            qty: 10,
            unit_price: '7300',
            taxes: [{ code: '99', code_other: 'Impuesto municipal de patente', amount: '150' }],
          },
        ],
        other_charges: [{ code: '06' }],
        payments: [{ method: 'tarjeta', amount: '1000' }, { method: 'efectivo' }],
      },
    ],
    [
      'dollars at a given rate, credit sale, a tiquete',
      {
        document_type: '04',
        client_id: cli,
        currency: 'USD',
        exchange_rate: '512.35',
        condition: 'credito',
        credit_days: 30,
        lines: [{ service_id: srv.laptop, qty: 1, unit_price: '899.99' }],
      },
    ],
    [
      'a draft (send: false)',
      { client_id: cli, send: false, lines: [{ service_id: srv.reduced, qty: 7, unit_price: '0.33333' }] },
    ],
  ];
}

describe('preview', () => {
  it('answers exactly the figures the create then records, for varied bodies', async () => {
    for (const [name, body] of variedBodies()) {
      const before = await written();
      const preview = await api(e, 'POST', '/api/v1/invoices/preview', s.key, body);
      expect(preview.status, `${name}: ${preview.text}`).toBe(200);
      expect(preview.json.object).toBe('invoice_preview');
      expect(preview.json.warnings).toEqual([]);
      expect(await written(), name).toEqual(before);
      const created = await api(e, 'POST', '/api/v1/invoices', s.key, body);
      expect(created.status, `${name}: ${created.text}`).toBe(201);
      expect(figuresOf(preview.json), name).toEqual(figuresOf(created.json));
      expect(preview.json.lines.length, name).toBeGreaterThan(0);
    }
  });

  it('previews a factura electrónica de compra (08) like its create', async () => {
    const body = {
      document_type: '08',
      supplier: {
        name: 'Cloud Tools LLC',
        identification: 'US4455667788',
        identification_type: '05',
        foreign_address: '500 Market St, San Francisco, CA, USA',
        email: 'billing@cloudtools.example',
      },
      lines: [{ service_id: srv.laptop, qty: 2, unit_price: '1000' }],
    };
    const before = await written();
    const preview = await api(e, 'POST', '/api/v1/invoices/preview', s.key, body);
    expect(preview.status, preview.text).toBe(200);
    expect(await written()).toEqual(before);
    const created = await api(e, 'POST', '/api/v1/invoices', s.key, body);
    expect(created.status, created.text).toBe(201);
    expect(figuresOf(preview.json)).toEqual(figuresOf(created.json));
  });

  it('refuses a body with the same problem as the create, and writes nothing', async () => {
    const refused: Record<string, unknown>[] = [
      { client_id: 'cli_999999999999', lines: [{ service_id: srv.consulting, qty: 1 }] },
      { client_id: cli, lines: [{ service_id: 'srv_999999999999', qty: 1 }] },
      { client_id: cli, lines: [{ service_id: srv.consulting, qty: 0 }] },
      { client_id: cli, exchange_rate: '2', lines: [{ service_id: srv.consulting, qty: 1 }] },
      { client_id: cli, lines: [{ service_id: srv.consulting, qty: 1, exoneration: exoneration('14') }] },
      { client_id: cli, lines: [{ service_id: srv.consulting, qty: 1, discount: { amount: '5000' } }] },
      { client_id: cli, lines: [] },
      { client_id: cli, lines: [{ service_id: srv.consulting, qty: 1, colour: 'red' }] },
    ];
    const before = await written();
    for (const body of refused) {
      const preview = await api(e, 'POST', '/api/v1/invoices/preview', s.key, body);
      const created = await api(e, 'POST', '/api/v1/invoices', s.key, body);
      const what = `${JSON.stringify(body)} → ${preview.text}`;
      expect(preview.status, what).toBe(422);
      expect(preview.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(preview.status, created.text).toBe(created.status);
      expect(preview.json.code, what).toBe(created.json.code);
      const fields = (r: typeof preview) =>
        (r.json.errors ?? []).map((x: { path: string; code: string }) => `${x.path} ${x.code}`);
      expect(fields(preview).length, what).toBeGreaterThan(0);
      expect(fields(preview), what).toEqual(fields(created));
    }
    expect(await written()).toEqual(before);
  });

  it('keeps no Idempotency-Key record and spends no consecutivo under a burst of previews', async () => {
    const before = await written();
    const body = { client_id: cli, lines: [{ service_id: srv.consulting, qty: 1 }] };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(e, 'POST', '/api/v1/invoices/preview', s.key, body, { 'idempotency-key': `preview-${i}` }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(await written()).toEqual(before);
    const created = await api(e, 'POST', '/api/v1/invoices', s.key, body);
    expect(created.status).toBe(201);
    const series = await e.db('numbering_series').where({ companyId: s.company.id, docType: '01' }).first();
    expect(Number(created.json.consecutivo.slice(10))).toBe(Number(series.lastNumber));
  });

  it('warns, but still previews, when the company cannot issue yet; a draft gets no warning', async () => {
    const other = await seedIssuer(e.db, e.config, '3101555777');
    await e.db('company_credentials').where({ companyId: other.company.id }).delete();
    const body = {
      client_id: ref('cli', other.client.id),
      lines: [{ service_id: ref('srv', other.consulting.id), qty: 1 }],
    };
    const preview = await api(e, 'POST', '/api/v1/invoices/preview', other.key, body);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.warnings).toEqual([
      expect.objectContaining({
        code: 'company_incomplete',
        message: expect.objectContaining({ es: expect.stringContaining('certificate') }),
      }),
    ]);
    const created = await api(e, 'POST', '/api/v1/invoices', other.key, body);
    expect(created.status).toBe(409);
    const draft = await api(e, 'POST', '/api/v1/invoices/preview', other.key, { ...body, send: false });
    expect(draft.json.warnings).toEqual([]);
  });

  it('needs write:invoices or write:drafts', async () => {
    const { secret } = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: false,
      name: 'reader',
      scopes: ['read:invoices'],
    });
    const body = { client_id: cli, lines: [{ service_id: srv.consulting, qty: 1 }] };
    const res = await api(e, 'POST', '/api/v1/invoices/preview', secret, body);
    expect(res.status).toBe(403);
    const drafts = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: false,
      name: 'drafts',
      scopes: ['write:drafts'],
    });
    expect((await api(e, 'POST', '/api/v1/invoices/preview', drafts.secret, body)).status).toBe(200);
  });
});
