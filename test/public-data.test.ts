// Hacienda's public data end to end against the simulator: the taxpayer register and the dollar
// rate through the API, their caches (a second question does not reach the simulator, counted by
// its stats), clear failures when the service is down, slow or does not know the number, and
// their uses: clients created with lookup, a company's activity, dollar invoices without a rate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCrDate } from '../domain/cr-time.ts';
import { simulatedUsdRate } from '../simulator/public-data.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
const stats = () => e.sim.simulator.counters();
const knobs = (k: Parameters<E2E['sim']['simulator']['configure']>[0]) => e.sim.simulator.configure(k);

beforeAll(async () => {
  e = await startE2E({ workers: false, env: { HACIENDA_PUBLIC_TIMEOUT_MS: '300' } });
  s = await seedIssuer(e.db, e.config);
}, 60_000);
afterAll(async () => {
  await e?.close();
});

const usdInvoice = (extra: Record<string, unknown> = {}) => ({
  client_id: `cli_${pad(s.client.id)}`,
  currency: 'USD',
  lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1, unit_price: '100.00' }],
  ...extra,
});

describe('GET /api/v1/taxpayers/{cedula}', () => {
  it("answers the register's taxpayer, then from the cache without asking Hacienda again", async () => {
    const before = stats().taxpayerLookups;
    const res = await api(e, 'GET', '/api/v1/taxpayers/3-101-123456', s.key);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'taxpayer',
      cedula: '3101123456',
      name: 'SERVICIOS EJEMPLO SOCIEDAD ANONIMA',
      identification_type: '02',
      regime: { code: 1, description: 'Régimen General' },
      situation: { moroso: false, omiso: false, estado: 'Inscrito' },
    });
    expect(res.json.activities).toContainEqual({
      code: '620100',
      description: 'ACTIVIDADES DE PROGRAMACION INFORMATICA',
      status: 'A',
      type: 'P',
    });
    expect(stats().taxpayerLookups).toBe(before + 1);
    const again = await api(e, 'GET', '/api/v1/taxpayers/3101123456', s.key);
    expect(again.json).toEqual(res.json);
    expect(stats().taxpayerLookups).toBe(before + 1);
  });

  it('a física asked with its leading zero is the same taxpayer; moroso and omiso read as booleans', async () => {
    const res = await api(e, 'GET', '/api/v1/taxpayers/0109870654', s.key);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      cedula: '109870654',
      identification_type: '01',
      situation: { moroso: true },
    });
    const notInscribed = await api(e, 'GET', '/api/v1/taxpayers/401230456', s.key);
    expect(notInscribed.json.situation).toMatchObject({ omiso: true, estado: 'No inscrito' });
    expect(notInscribed.json.situation.message).toMatch(/no se encuentra inscrito/);
  });

  it('an unknown number is 404 taxpayer_not_found, also cached', async () => {
    const before = stats().taxpayerLookups;
    const res = await api(e, 'GET', '/api/v1/taxpayers/199999999', s.key);
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('taxpayer_not_found');
    await api(e, 'GET', '/api/v1/taxpayers/199999999', s.key);
    expect(stats().taxpayerLookups).toBe(before + 1);
  });

  it('a number of the wrong length is 422 naming the field', async () => {
    const res = await api(e, 'GET', '/api/v1/taxpayers/12345', s.key);
    expect(res.status).toBe(422);
    expect(res.json.errors[0]).toMatchObject({ path: '/cedula', code: 'invalid_format' });
  });

  it('Hacienda down, or too slow, is 503 hacienda_unavailable with Retry-After', async () => {
    knobs({ publicDataDown: true });
    try {
      const down = await api(e, 'GET', '/api/v1/taxpayers/102340567', s.key);
      expect(down.status).toBe(503);
      expect(down.json).toMatchObject({ code: 'hacienda_unavailable', reason: 'server_error' });
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      knobs({ publicDataDown: false });
    }
    knobs({ publicDataLatencyMs: 1_000 });
    try {
      const slow = await api(e, 'GET', '/api/v1/taxpayers/102340567', s.key);
      expect(slow.status).toBe(503);
      expect(slow.json).toMatchObject({ code: 'hacienda_unavailable', reason: 'timeout' });
    } finally {
      knobs({ publicDataLatencyMs: 0 });
    }
    // Nothing of the failures was cached: once Hacienda answers, so does the route.
    const ok = await api(e, 'GET', '/api/v1/taxpayers/102340567', s.key);
    expect(ok.json).toMatchObject({ name: 'JUANA PEREZ MORA', identification_type: '01' });
  }, 20_000);

  it('the 404 knob makes every number unknown', async () => {
    knobs({ taxpayersNotFound: true });
    try {
      const res = await api(e, 'GET', '/api/v1/taxpayers/155812345678', s.key);
      expect(res.status).toBe(404);
    } finally {
      knobs({ taxpayersNotFound: false });
    }
  });
});

describe('POST /api/v1/clients with lookup', () => {
  it('takes the type and the name from Hacienda: a 10-digit NITE is not read as a jurídica', async () => {
    const res = await api(e, 'POST', '/api/v1/clients', s.key, { cedula: '4000123456', lookup: true });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      cedula: '4000123456',
      identification_type: '04',
      name: 'ANDREA SOLIS CHAVES',
    });
  });

  it('a given name wins; a type that contradicts Hacienda is 422', async () => {
    const named = await api(e, 'POST', '/api/v1/clients', s.key, {
      cedula: '3101654321',
      lookup: true,
      name: 'Parqueo Central',
    });
    expect(named.status).toBe(201);
    expect(named.json).toMatchObject({ name: 'Parqueo Central', identification_type: '02' });
    const wrong = await api(e, 'POST', '/api/v1/clients', s.key, {
      cedula: '3101765432',
      lookup: true,
      identification_type: '04',
    });
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors[0]).toMatchObject({
      path: '/identification_type',
      code: 'identification_type_mismatch',
    });
  });

  it('a number Hacienda does not know is 422 naming /cedula; Hacienda down is 503; nothing is created', async () => {
    const unknown = await api(e, 'POST', '/api/v1/clients', s.key, { cedula: '188888888', lookup: true });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors[0]).toMatchObject({ path: '/cedula', code: 'taxpayer_not_found' });
    knobs({ publicDataDown: true });
    try {
      const down = await api(e, 'POST', '/api/v1/clients', s.key, { cedula: '2100042005', lookup: true });
      expect(down.status).toBe(503);
      expect(down.json.code).toBe('hacienda_unavailable');
    } finally {
      knobs({ publicDataDown: false });
    }
    const count = await e.db('clients').whereIn('idNumber', ['188888888', '2100042005']).count({ n: '*' });
    expect(Number(count[0]!.n)).toBe(0);
  });
});

describe('PATCH /api/v1/company (activity code)', () => {
  it('accepts a registered activity and refuses another, listing the registered ones', async () => {
    const ok = await api(e, 'PATCH', '/api/v1/company', s.key, { activity_code: '523101' });
    expect(ok.status).toBe(200);
    expect(ok.json.emisor.activity_code).toBe('523101');
    const bad = await api(e, 'PATCH', '/api/v1/company', s.key, { activity_code: '999999' });
    expect(bad.status).toBe(422);
    expect(bad.json.code).toBe('activity_not_registered');
    expect(bad.json.errors[0]).toMatchObject({ path: '/activity_code', code: 'activity_not_registered' });
    expect(bad.json.registered_activities.map((a: { code: string }) => a.code)).toEqual(['620100', '523101']);
    expect(bad.json.detail).toMatch(/999999.*620100/);
  });

  it('with Hacienda down and the register not cached the change is refused with 503, not accepted', async () => {
    await e.db('taxpayerLookups').delete();
    knobs({ publicDataDown: true });
    try {
      const res = await api(e, 'PATCH', '/api/v1/company', s.key, { activity_code: '620100' });
      expect(res.status).toBe(503);
      expect(res.json.code).toBe('hacienda_unavailable');
    } finally {
      knobs({ publicDataDown: false });
    }
    const company = await e.db('companies').where({ id: s.company.id }).first('activityCode');
    expect(company.activityCode).toBe('523101');
  });
});

describe('exchange rates and dollar invoices', () => {
  const today = () => formatCrDate(new Date());

  it('with Hacienda down and no rate stored: a dollar invoice without a rate is 503 before a number is taken', async () => {
    knobs({ publicDataDown: true });
    try {
      const before = await e.db('invoices').count({ n: '*' });
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, usdInvoice());
      expect(res.status).toBe(503);
      expect(res.json.code).toBe('exchange_rate_unavailable');
      expect(res.json.errors[0]).toMatchObject({ path: '/exchange_rate' });
      expect(res.headers.get('retry-after')).toBeTruthy();
      const after = await e.db('invoices').count({ n: '*' });
      expect(after[0]!.n).toBe(before[0]!.n);
      const rate = await api(e, 'GET', '/api/v1/exchange_rates/USD', s.key);
      expect(rate.status).toBe(503);
      expect(rate.json.code).toBe('hacienda_unavailable');
      // With its own rate, the invoice issues all the same.
      const given = await api(e, 'POST', '/api/v1/invoices', s.key, usdInvoice({ exchange_rate: '505.25' }));
      expect(given.status).toBe(201);
      expect(given.json).toMatchObject({
        exchange_rate: '505.25',
        exchange_rate_source: 'request',
        currency: 'USD',
      });
      expect(given.json.consecutivo).toMatch(/^\d{20}$/);
    } finally {
      knobs({ publicDataDown: false });
    }
  });

  it("today's rate: served, then from the cache; a dollar invoice without a rate takes its sell rate", async () => {
    const expected = simulatedUsdRate(today());
    const before = stats().exchangeRateLookups;
    const res = await api(e, 'GET', '/api/v1/exchange_rates/USD', s.key);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'exchange_rate',
      currency: 'USD',
      date: today(),
      sell: String(expected.venta),
      buy: String(expected.compra),
      source: 'hacienda_bccr',
    });
    const invoice = await api(e, 'POST', '/api/v1/invoices', s.key, usdInvoice());
    expect(invoice.status).toBe(201);
    expect(invoice.json).toMatchObject({
      exchange_rate: String(expected.venta),
      exchange_rate_source: 'hacienda_bccr',
    });
    expect(stats().exchangeRateLookups).toBe(before + 1);
  });

  it("a past day's rate comes from the history, once", async () => {
    const before = stats().exchangeRateLookups;
    const res = await api(e, 'GET', '/api/v1/exchange_rates/USD?date=2025-01-15', s.key);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      date: '2025-01-15',
      sell: String(simulatedUsdRate('2025-01-15').venta),
    });
    await api(e, 'GET', '/api/v1/exchange_rates/USD?date=2025-01-15', s.key);
    expect(stats().exchangeRateLookups).toBe(before + 1);
    const future = await api(e, 'GET', '/api/v1/exchange_rates/USD?date=2999-01-01', s.key);
    expect(future.status).toBe(422);
    expect(future.json.errors[0]).toMatchObject({ path: '/date', code: 'invalid_date' });
  });

  it('a CRC invoice with a rate other than 1 stays a 422; another currency without a rate too', async () => {
    const crc = await api(
      e,
      'POST',
      '/api/v1/invoices',
      s.key,
      usdInvoice({ currency: 'CRC', exchange_rate: '2' }),
    );
    expect(crc.status).toBe(422);
    expect(crc.json.errors[0]).toMatchObject({ path: '/exchange_rate', code: 'invalid_exchange_rate' });
    const eur = await api(e, 'POST', '/api/v1/invoices', s.key, usdInvoice({ currency: 'EUR' }));
    expect(eur.status).toBe(422);
    expect(eur.json.errors[0]).toMatchObject({ path: '/exchange_rate', code: 'required' });
  });
});
