// The invoice API without workers: recording, numbering under concurrency, idempotency,
// request shapes, validation (nothing written), drafts, reads, isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../db/queries/api-keys.ts';
import { createCompany } from '../db/queries/companies.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
let cli: string;
let srv: string;
let srvLaptop: string;

beforeAll(async () => {
  e = await startE2E({ workers: false });
  s = await seedIssuer(e.db, e.config);
  cli = `cli_${pad(s.client.id)}`;
  srv = `srv_${pad(s.consulting.id)}`;
  srvLaptop = `srv_${pad(s.laptop.id)}`;
});
afterAll(async () => {
  await e.close();
});

const body = (extra: Record<string, unknown> = {}) => ({
  client_id: cli,
  lines: [{ service_id: srv, qty: 1, unit_price: '1000.00' }],
  ...extra,
});

async function counts() {
  const n = async (t: string) => Number((await e.db(t).count('* as n'))[0]!.n);
  const series = await e.db('numbering_series').sum('last_number as s').first();
  return {
    invoices: await n('invoices'),
    events: await n('events'),
    outbox: await n('outbox'),
    idem: await n('idempotency_keys'),
    series: Number(series?.s ?? 0),
  };
}

describe('numbering', () => {
  it('200 concurrent creates on one series get consecutivos 1..200 with no gap and no repeat', async () => {
    const company = await createCompany(e.db, {
      name: 'Serie',
      plan: 'business',
      legalName: 'Empresa Serie S.A.',
      idType: '02',
      idNumber: '3101999001',
      activityCode: '620100',
      provincia: '1',
      canton: '01',
      distrito: '01',
      otrasSenas: 'Calle 1 avenida 2',
      emails: ['a@b.example'],
    });
    const seeded = await seedIssuer(e.db, e.config, '3101999002');
    void company;
    const c = `cli_${pad(seeded.client.id)}`;
    const sv = `srv_${pad(seeded.consulting.id)}`;
    const results = await Promise.all(
      Array.from({ length: 200 }, () =>
        api(e, 'POST', '/api/v1/invoices', seeded.key, { client_id: c, lines: [{ service_id: sv, qty: 1 }] }),
      ),
    );
    expect(results.map((r) => r.status).every((st) => st === 201)).toBe(true);
    const numbers = results.map((r) => Number(r.json.consecutivo.slice(10))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(new Set(results.map((r) => r.json.clave)).size).toBe(200);
    for (const r of results) expect(r.json.clave.slice(21, 41)).toBe(r.json.consecutivo);
  });
});

describe('group commit', () => {
  it('a burst mixing issues, drafts, replays and invalid requests numbers the issued ones without gaps, in a few statements per group', async () => {
    const seeded = await seedIssuer(e.db, e.config, '3101999104');
    const c = `cli_${pad(seeded.client.id)}`;
    const sv = `srv_${pad(seeded.consulting.id)}`;
    const ok = (extra: Record<string, unknown> = {}) => ({
      client_id: c,
      lines: [{ service_id: sv, qty: 1 }],
      ...extra,
    });
    // Earlier requests, replayed in the burst.
    const earlier = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api(e, 'POST', '/api/v1/invoices', seeded.key, ok(), { 'idempotency-key': `earlier-${i}` }),
      ),
    );
    expect(earlier.map((r) => r.status)).toEqual(Array(10).fill(201));
    const statements: string[] = [];
    // The readiness probe's `select 1` and the usage counters' flush (every USAGE_FLUSH_MS) run on
    // their own clocks beside the burst: not the burst's.
    const background = (sql: string) => sql === 'select 1' || /^insert into usage_minutes/.test(sql.trim());
    const count = (q: { sql: string }) => !background(q.sql) && statements.push(q.sql);
    e.db.on('query', count);
    let results: Awaited<ReturnType<typeof api>>[];
    try {
      results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const kind = i % 6;
          if (kind === 1) return api(e, 'POST', '/api/v1/invoices', seeded.key, ok({ send: false }));
          if (kind === 2)
            return api(e, 'POST', '/api/v1/invoices', seeded.key, ok(), {
              'idempotency-key': `earlier-${(i - 2) / 6}`,
            });
          if (kind === 3)
            return api(e, 'POST', '/api/v1/invoices', seeded.key, {
              client_id: c,
              lines: [{ service_id: 'srv_999999999', qty: 1 }],
            });
          return api(e, 'POST', '/api/v1/invoices', seeded.key, ok(), {
            'idempotency-key': `burst-${i + 1}`,
          });
        }),
      );
    } finally {
      e.db.off('query', count);
    }
    const byKind = (k: number) => results.filter((_, i) => i % 6 === k);
    for (const r of byKind(1)) expect([r.status, r.json.status]).toEqual([201, 'borrador']);
    byKind(2).forEach((r, n) => {
      expect(r.status).toBe(201);
      expect(r.headers.get('idempotent-replayed')).toBe('true');
      expect(r.json.id).toBe(earlier[n]!.json.id);
    });
    for (const r of byKind(3)) {
      expect(r.status).toBe(422);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.json.errors[0]).toMatchObject({ path: '/lines/0/service_id', code: 'unknown_service' });
    }
    const issued = [...byKind(0), ...byKind(4), ...byKind(5)];
    for (const r of issued) expect([r.status, r.json.status]).toEqual([201, 'pendiente']);
    // The earlier invoices took numbers 1..10; the 30 issued in the burst take 11..40, whatever
    // was refused beside them.
    const numbers = issued.map((r) => Number(r.json.consecutivo.slice(10))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => i + 11));
    const series = await e.db('numbering_series').where({ companyId: seeded.company.id, livemode: false });
    expect(series.map((x) => Number(x.lastNumber))).toEqual([40]);
    // Every created invoice has its event, its outbox rows and (when keyed) its idempotency record.
    const ids = [...issued, ...byKind(1)].map((r) => Number(String(r.json.id).slice(4)));
    const events = await e.db('events').where({ companyId: seeded.company.id, type: 'invoice.created' });
    expect(events.length).toBe(ids.length + 10);
    // A group's flows are one outbox row naming its invoices: each issued invoice is named once.
    const flows = await e.db.raw(
      `select i::bigint as id from outbox o, jsonb_array_elements_text(o.payload->'invoiceIds') i
        where o.kind = 'invoice.flow' and i::bigint = any(?::bigint[])`,
      [ids],
    );
    expect((flows.rows as { id: string }[]).map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(
      issued.map((r) => Number(String(r.json.id).slice(4))).sort((a, b) => a - b),
    );
    const keys = await e.db('idempotency_keys').where({ companyId: seeded.company.id });
    expect(keys.length).toBe(issued.length + 10);
    // No statement per request: the replays read their invoice as it is now; everything else
    // is at most five statements per group (BEGIN, the reads and locks, the numbered insert, the
    // events, outbox and idempotency records, COMMIT), however many requests a group holds.
    // The audit log's events of the burst share inserts (api/audit.ts gathers them for 100 ms).
    const replayReads = statements.filter((q) => /^select \* from "invoices"/.test(q)).length;
    const auditInserts = statements.filter((q) => /^insert into "audit_events"/.test(q)).length;
    const groups = statements.filter((q) => /^commit/i.test(q)).length;
    expect(replayReads).toBe(10);
    expect(groups).toBeLessThan(50);
    expect(auditInserts).toBeLessThanOrEqual(groups);
    expect(statements.length - replayReads - auditInserts).toBeLessThanOrEqual(5 * groups);
  });

  it('a burst over four series (facturas and tiquetes on two terminals) shares transactions and numbers each series without gaps', async () => {
    const seeded = await seedIssuer(e.db, e.config, '3101999105');
    const c = `cli_${pad(seeded.client.id)}`;
    const sv = `srv_${pad(seeded.consulting.id)}`;
    const kinds = [
      { document_type: '01', client_id: c, terminal: '00001' },
      { document_type: '04', terminal: '00001' },
      { document_type: '01', client_id: c, terminal: '00002' },
      { document_type: '04', terminal: '00002' },
    ];
    const results = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        api(
          e,
          'POST',
          '/api/v1/invoices',
          seeded.key,
          { ...kinds[i % 4], lines: [{ service_id: sv, qty: 1 }] },
          { 'idempotency-key': `series-${i}` },
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(80).fill(201));
    // Each series numbers its 20 invoices 1..20, and the consecutivo says which series it is.
    kinds.forEach((k, n) => {
      const mine = results.filter((_, i) => i % 4 === n);
      for (const r of mine) {
        expect(r.json.document_type).toBe(k.document_type);
        expect(r.json.consecutivo.slice(0, 10)).toBe(`001${k.terminal}${k.document_type}`);
        expect(r.json.clave.slice(21, 41)).toBe(r.json.consecutivo);
      }
      const numbers = mine.map((r) => Number(r.json.consecutivo.slice(10))).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });
    const series = await e
      .db('numbering_series')
      .where({ companyId: seeded.company.id, livemode: false })
      .orderBy(['docType', 'terminal']);
    expect(series.map((x) => [x.docType, x.terminal, Number(x.lastNumber)])).toEqual([
      ['01', '00001', 20],
      ['01', '00002', 20],
      ['04', '00001', 20],
      ['04', '00002', 20],
    ]);
    // Rows written by one transaction share its xmin: some transaction recorded several series,
    // and the 80 requests took far fewer transactions.
    const tx = await e.db.raw(
      `select xmin::text as x, count(distinct doc_type || terminal)::int as series
         from invoices where company_id = ? group by 1`,
      [seeded.company.id],
    );
    const perTx = (tx.rows as { x: string; series: number }[]).map((r) => r.series);
    expect(Math.max(...perTx)).toBeGreaterThan(1);
    expect(perTx.length).toBeLessThan(40);
  });
});

describe('idempotency', () => {
  it('50 parallel requests with one Idempotency-Key yield one invoice and one consecutivo', async () => {
    const before = await counts();
    const key = `order-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        api(e, 'POST', '/api/v1/invoices', s.key, body(), { 'idempotency-key': key }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((st) => st === 201 || st === 409)).toBe(true);
    const created = results.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.json.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status === 409))
      expect(r.json.code).toBe('idempotency_key_in_use');
    const after = await counts();
    expect(after.invoices - before.invoices).toBe(1);
    expect(after.series - before.series).toBe(1);
    expect(after.outbox - before.outbox).toBe(2); // invoice.created event + the flow
    const again = await api(e, 'POST', '/api/v1/invoices', s.key, body(), { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(created[0]!.json);
  });

  it('the same body in another key order replays; a different body is 422 idempotency_key_reused', async () => {
    const key = `k-${Date.now()}`;
    const first = await api(e, 'POST', '/api/v1/invoices', s.key, body({ external_id: key }), {
      'idempotency-key': key,
    });
    expect(first.status).toBe(201);
    const reordered = {
      external_id: key,
      lines: [{ unit_price: '1000.00', qty: 1, service_id: srv }],
      client_id: cli,
    };
    const replay = await api(e, 'POST', '/api/v1/invoices', s.key, reordered, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.json.id).toBe(first.json.id);
    const before = await counts();
    const other = await api(e, 'POST', '/api/v1/invoices', s.key, body({ external_id: `${key}-x` }), {
      'idempotency-key': key,
    });
    expect(other.status).toBe(422);
    expect(other.json.code).toBe('idempotency_key_reused');
    expect(await counts()).toEqual(before);
    const tooLong = await api(e, 'POST', '/api/v1/invoices', s.key, body(), {
      'idempotency-key': 'x'.repeat(256),
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.json.errors[0].path).toBe('header:/idempotency-key');
  });

  it('keys are scoped to the company and mode', async () => {
    const key = `shared-${Date.now()}`;
    const a = await api(e, 'POST', '/api/v1/invoices', s.key, body(), { 'idempotency-key': key });
    const other = await seedIssuer(e.db, e.config, '3101999003');
    const b = await api(
      e,
      'POST',
      '/api/v1/invoices',
      other.key,
      {
        client_id: `cli_${pad(other.client.id)}`,
        lines: [{ service_id: `srv_${pad(other.consulting.id)}`, qty: 1, unit_price: '1000.00' }],
      },
      { 'idempotency-key': key },
    );
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.json.id).not.toBe(a.json.id);
  });

  it('external_id is unique per company and mode: 409 naming the invoice', async () => {
    const ext = `ext-${Date.now()}`;
    const a = await api(e, 'POST', '/api/v1/invoices', s.key, body({ external_id: ext }));
    expect(a.status).toBe(201);
    const before = await counts();
    const b = await api(e, 'POST', '/api/v1/invoices', s.key, body({ external_id: ext }));
    expect(b.status).toBe(409);
    expect(b.json).toMatchObject({ code: 'duplicate_external_id', existing_invoice_id: a.json.id });
    expect(await counts()).toEqual(before);
    const listed = await api(e, 'GET', `/api/v1/invoices?external_id=${ext}`, s.key);
    expect(listed.json.data.map((x: { id: string }) => x.id)).toEqual([a.json.id]);
  });
});

describe('request shapes', () => {
  it('shape A and shape B produce identical invoices for the same data', async () => {
    const a = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli,
      currency: 'USD',
      exchange_rate: '512.35',
      condition: 'credito_15',
      payment_method: 'transferencia',
      lines: [
        { service_id: srv, qty: 2.5, unit_price: '120.50' },
        { service_id: srvLaptop, qty: 1, unit_price: '899.99', discount: { amount: '50' } },
      ],
    });
    const b = await api(e, 'POST', '/api/v1/invoices', s.key, {
      clientId: s.client.uuid,
      currency: 'USD',
      exchangeRate: '512.35',
      condition: 'credito_15',
      paymentMethod: 'transferencia',
      lines: [
        { serviceId: s.consulting.uuid, qty: '2.5', price: '120.50' },
        { serviceId: s.laptop.uuid, qty: 1, price: '899.99', discount: { amount: '50' } },
      ],
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    const strip = (x: Record<string, unknown>) => {
      const rest = { ...x };
      for (const k of ['id', 'consecutivo', 'clave', 'issue_date', 'created_at', 'updated_at'])
        delete rest[k];
      return rest;
    };
    expect(strip(b.json)).toEqual(strip(a.json));
    expect(a.json).toMatchObject({
      currency: 'USD',
      exchange_rate: '512.35',
      payment_methods: ['transferencia'],
    });
  });

  const bad: [string, Record<string, unknown>, string, string][] = [
    ['unknown client', { client_id: 'cli_000099999999' }, '/client_id', 'unknown_client'],
    ['malformed client', { client_id: 'client-1' }, '/client_id', 'invalid_format'],
    ['missing client', { client_id: undefined }, '/client_id', 'required'],
    ['empty lines', { lines: [] }, '/lines', 'too_few_items'],
    [
      'unknown service',
      { lines: [{ service_id: 'srv_000099999999', qty: 1 }] },
      '/lines/0/service_id',
      'unknown_service',
    ],
    ['qty zero', { lines: [{ service_id: 'SRV', qty: 0 }] }, '/lines/0/qty', 'out_of_range'],
    ['qty negative', { lines: [{ service_id: 'SRV', qty: -1 }] }, '/lines/0/qty', 'invalid_quantity'],
    ['qty 4 decimals', { lines: [{ service_id: 'SRV', qty: '1.2345' }] }, '/lines/0/qty', 'invalid_quantity'],
    ['qty not a number', { lines: [{ service_id: 'SRV', qty: 'dos' }] }, '/lines/0/qty', 'invalid_quantity'],
    [
      'price negative',
      { lines: [{ service_id: 'SRV', qty: 1, unit_price: '-5.00' }] },
      '/lines/0/unit_price',
      'invalid_price',
    ],
    [
      'price 6 decimals',
      { lines: [{ service_id: 'SRV', qty: 1, unit_price: '1.123456' }] },
      '/lines/0/unit_price',
      'invalid_price',
    ],
    [
      'price text',
      { lines: [{ service_id: 'SRV', qty: 1, unit_price: 'gratis' }] },
      '/lines/0/unit_price',
      'invalid_price',
    ],
    [
      'mixed shapes (client)',
      { clientId: '2f1c3b9e-8d0a-4c6e-9a51-0b8e5f7d2c11' },
      '/clientId',
      'mixed_shapes',
    ],
    [
      'mixed shapes (line)',
      { lines: [{ serviceId: '2f1c3b9e-8d0a-4c6e-9a51-0b8e5f7d2c11', qty: 1 }] },
      '/lines/0/serviceId',
      'mixed_shapes',
    ],
    [
      'mixed shapes (price)',
      { lines: [{ service_id: 'SRV', qty: 1, price: '1.00' }] },
      '/lines/0/price',
      'mixed_shapes',
    ],
    ['EUR without rate', { currency: 'EUR' }, '/exchange_rate', 'required'],
    ['unknown currency', { currency: 'XXQ', exchange_rate: '1' }, '/currency', 'invalid_value'],
    ['unknown condition', { condition: 'fiado' }, '/condition', 'invalid_condition'],
    [
      'discount both',
      { lines: [{ service_id: 'SRV', qty: 1, discount: { amount: '1', percent: '1' } }] },
      '/lines/0/discount',
      'invalid_discount',
    ],
    [
      'discount over price',
      { lines: [{ service_id: 'SRV', qty: 1, unit_price: '10.00', discount: { amount: '11' } }] },
      '/lines/0/discount',
      'discount_exceeds_amount',
    ],
    ['unknown field', { total: '1.00' }, '/total', 'unknown_field'],
    [
      'unknown line field',
      { lines: [{ service_id: 'SRV', qty: 1, tax: '13' }] },
      '/lines/0/tax',
      'unknown_field',
    ],
    ['send not boolean', { send: 'yes' }, '/send', 'invalid_type'],
  ];
  it.each(bad)('422 for %s, naming the field, writing nothing', async (_l, patch, path, code) => {
    const b: Record<string, unknown> = { ...body(), ...patch };
    const json = JSON.parse(JSON.stringify(b).replaceAll('"SRV"', `"${srv}"`));
    const before = await counts();
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, json);
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    const match = res.json.errors.find((x: { path: string }) => x.path === path);
    expect(match, JSON.stringify(res.json.errors)).toBeDefined();
    if (code) expect(match.code).toBe(code);
    expect(await counts()).toEqual(before);
  });
});

describe('drafts', () => {
  it('send: false creates a borrador without a consecutivo; /send issues it with the next number', async () => {
    const first = await api(e, 'POST', '/api/v1/invoices', s.key, body());
    const draft = await api(e, 'POST', '/api/v1/invoices', s.key, body({ send: false }));
    expect(draft.status).toBe(201);
    expect(draft.json).toMatchObject({
      status: 'borrador',
      consecutivo: null,
      clave: null,
      issue_date: null,
    });
    const second = await api(e, 'POST', '/api/v1/invoices', s.key, body());
    const n = (c: string) => Number(c.slice(10));
    expect(n(second.json.consecutivo)).toBe(n(first.json.consecutivo) + 1);
    const sent = await api(e, 'POST', `/api/v1/invoices/${draft.json.id}/send`, s.key);
    expect(sent.status).toBe(200);
    expect(sent.json.status).toBe('pendiente');
    expect(n(sent.json.consecutivo)).toBe(n(second.json.consecutivo) + 1);
    const again = await api(e, 'POST', `/api/v1/invoices/${draft.json.id}/send`, s.key);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('invalid_state');
  });

  it('write:drafts may create drafts only', async () => {
    const { secret } = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: false,
      name: 'drafts',
      scopes: ['write:drafts'],
    });
    const d = await api(e, 'POST', '/api/v1/invoices', secret, body({ send: false }));
    expect(d.status).toBe(201);
    const issue = await api(e, 'POST', '/api/v1/invoices', secret, body());
    expect(issue.status).toBe(403);
    expect(issue.json).toMatchObject({ code: 'insufficient_scope', required_scope: 'write:invoices' });
    const send = await api(e, 'POST', `/api/v1/invoices/${d.json.id}/send`, secret);
    expect(send.status).toBe(403);
    const none = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: false,
      name: 'ro',
      scopes: ['read:invoices'],
    });
    expect((await api(e, 'POST', '/api/v1/invoices', none.secret, body({ send: false }))).status).toBe(403);
  });

  it('a company without a signing certificate cannot issue (409 company_incomplete) but can draft', async () => {
    const c = await createCompany(e.db, {
      name: 'Sin Firma',
      plan: 'business',
      legalName: 'Empresa Sin Firma S.A.',
      idType: '02',
      idNumber: '3101999004',
    });
    const k = await createApiKey(e.db, {
      companyId: c.id,
      livemode: false,
      name: 'x',
      scopes: ['write:invoices', 'write:clients', 'write:services'],
    });
    const client = await api(e, 'POST', '/api/v1/clients', k.secret, {
      cedula: '102340567',
      name: 'Cliente Uno',
    });
    const svc = await api(e, 'POST', '/api/v1/services', k.secret, {
      cabys: '8314100000200',
      description: 'Servicio',
      unit: 'Sp',
      iva_rate_code: '08',
      price: '10',
    });
    const res = await api(e, 'POST', '/api/v1/invoices', k.secret, {
      client_id: client.json.id,
      lines: [{ service_id: svc.json.id, qty: 1 }],
    });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('company_incomplete');
    expect(res.json.missing.join(' ')).toMatch(/activity_code.*signing certificate/);
    const draft = await api(e, 'POST', '/api/v1/invoices', k.secret, {
      client_id: client.json.id,
      send: false,
      lines: [{ service_id: svc.json.id, qty: 1 }],
    });
    expect(draft.status).toBe(201);
  });
});

describe('reading', () => {
  it('GET by id with ETag; If-None-Match answers 304', async () => {
    const inv = (await api(e, 'POST', '/api/v1/invoices', s.key, body())).json;
    const res = await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key);
    expect(res.status).toBe(200);
    const etag = res.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const cached = await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key, undefined, {
      'if-none-match': etag,
    });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    await e
      .db('invoices')
      .where({ id: Number(inv.id.slice(4)) })
      .update({ updatedAt: e.db.raw(`now() + interval '1 second'`) });
    expect(
      (await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key, undefined, { 'if-none-match': etag })).status,
    ).toBe(200);
    const xml = await api(e, 'GET', `/api/v1/invoices/${inv.id}/xml`, s.key);
    expect(xml.status).toBe(409);
  });

  it('lists with filters and cursor pagination', async () => {
    const other = await api(e, 'POST', '/api/v1/clients', s.key, {
      cedula: '109990888',
      name: 'Otro Cliente',
    });
    const mine = [];
    for (let i = 0; i < 5; i++)
      mine.push(
        (await api(e, 'POST', '/api/v1/invoices', s.key, { ...body(), client_id: other.json.id })).json.id,
      );
    const draft = (
      await api(e, 'POST', '/api/v1/invoices', s.key, { ...body(), client_id: other.json.id, send: false })
    ).json.id;
    const byClient = await api(e, 'GET', `/api/v1/invoices?client=${other.json.id}&limit=100`, s.key);
    expect(byClient.json.data.map((x: { id: string }) => x.id)).toEqual([draft, ...mine.reverse()]);
    const byUuid = await api(e, 'GET', `/api/v1/invoices?client=${other.json.uuid}&status=borrador`, s.key);
    expect(byUuid.json.data.map((x: { id: string }) => x.id)).toEqual([draft]);
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = await api(
        e,
        'GET',
        `/api/v1/invoices?client=${other.json.id}&limit=2${after ? `&starting_after=${after}` : ''}`,
        s.key,
      );
      seen.push(...page.json.data.map((x: { id: string }) => x.id));
      if (!page.json.has_more) break;
      after = page.json.data.at(-1).id;
    }
    expect(seen).toEqual([draft, ...mine]);
    // A list reads only the columns of the public object: each item is the invoice exactly as
    // GET /invoices/:id returns it (no field missing or different).
    for (const item of byClient.json.data.slice(0, 2)) {
      const one = await api(e, 'GET', `/api/v1/invoices/${item.id}`, s.key);
      expect(item).toEqual(one.json);
    }
    const future = await api(
      e,
      'GET',
      `/api/v1/invoices?created_gte=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      s.key,
    );
    expect(future.json.data).toEqual([]);
    const bad = await api(e, 'GET', '/api/v1/invoices?status=pagada', s.key);
    expect(bad.status).toBe(422);
  });

  it("another company's invoice and the other mode's are 404; scopes are enforced", async () => {
    const inv = (await api(e, 'POST', '/api/v1/invoices', s.key, body())).json;
    const other = await seedIssuer(e.db, e.config, '3101999005');
    for (const path of [
      `/api/v1/invoices/${inv.id}`,
      `/api/v1/invoices/${inv.id}/xml`,
      `/api/v1/invoices/${inv.id}/response`,
    ]) {
      expect((await api(e, 'GET', path, other.key)).status).toBe(404);
    }
    expect((await api(e, 'POST', `/api/v1/invoices/${inv.id}/send`, other.key)).status).toBe(404);
    const live = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: true,
      name: 'live',
      scopes: ['read:invoices'],
    });
    expect((await api(e, 'GET', `/api/v1/invoices/${inv.id}`, live.secret)).status).toBe(404);
    expect((await api(e, 'GET', '/api/v1/invoices', live.secret)).json.data).toEqual([]);
    const noRead = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: false,
      name: 'w',
      scopes: ['write:invoices'],
    });
    for (const path of [`/api/v1/invoices/${inv.id}`, '/api/v1/invoices', `/api/v1/invoices/${inv.id}/xml`]) {
      const r = await api(e, 'GET', path, noRead.secret);
      expect(r.status).toBe(403);
      expect(r.json.code).toBe('insufficient_scope');
    }
  });
});
