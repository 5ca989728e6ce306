// "Never send what Hacienda would refuse", as a property: requests generated across every field
// the API accepts for clients, services and invoices (hostile characters — U+2028, U+2029, U+0085,
// control characters, lone surrogates —, long strings, extreme numbers, unknown locations, codes
// that need their texts) are sent through the single create and the batch API. Every request is
// either refused at once with 422 naming a field, or accepted — and every accepted invoice ends
// `aceptada` by the simulator (which checks the XSD, the signature and Hacienda's business rules),
// never in a permanent build or sign failure. FC_SEED=<n> replays a run.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { hostileText } from './helpers/hostile.ts';
import { cabysArb } from './helpers/invoice-arbitraries.ts';
import { waitFor } from './helpers/wait.ts';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);
const RUNS = 90;
/** Items of the generated batch: enough that a few valid ones come up whatever the seed. */
const BATCH_ITEMS = 60;

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const ref = (kind: 'cli' | 'srv', id: number) => `${kind}_${String(id).padStart(12, '0')}`;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
}, 60_000);
afterAll(async () => {
  await e?.close();
});

const TRICKS = [
  '\u2028',
  '\u2029',
  '\u0085',
  '\t',
  '\r\n',
  '\r',
  '<&>"\'',
  '𝕏👨‍👩‍👧',
  'e\u0301',
  '\u202E',
  '\u00A0',
  '',
];

/** Text within [min, max] characters (once trimmed) that carries characters XML 1.0 treats specially. */
const niceText = (min: number, max: number) =>
  fc
    .tuple(
      fc.constantFrom('Servicio ', 'Ana ', 'Línea ', ''),
      fc.constantFrom(...TRICKS),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom(...TRICKS),
    )
    .map((p) => {
      let s = Array.from(p.join('')).slice(0, max).join('');
      while (Array.from(s.trim()).length < min) s = `x${s}`.slice(0, max);
      return s;
    });

/** Text that is mostly right (with hostile but legal characters), sometimes wrong or out of bounds. */
const textOf = (min: number, max: number) =>
  fc.oneof(
    { weight: 8, arbitrary: niceText(min, max) },
    { weight: 1, arbitrary: hostileText(0, max + 20) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '  ab  ',
        'x'.repeat(max + 1),
        'ñ'.repeat(max),
        `a\u0001b${'c'.repeat(min)}`,
      ),
    },
  );
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });
/** Present one time in five: fields whose every variant adds ways to be refused. */
const rare = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: a });

const addressArb = fc.record(
  {
    provincia: fc.constantFrom('1', '2', '6', '7', '8', '0'),
    canton: fc.constantFrom('01', '02', '13', '16', '20', '99', '00'),
    distrito: fc.constantFrom('01', '03', '08', '11', '15', '00'),
    barrio: opt(textOf(5, 50)),
    otras_senas: textOf(5, 250),
  },
  { requiredKeys: ['provincia', 'canton', 'distrito', 'otras_senas'] },
);

const clientArb = fc
  .record(
    {
      cedula: fc.oneof(
        fc.integer({ min: 100_000_000, max: 999_999_999 }).map(String),
        fc.integer({ min: 1_000_000_000, max: 1_999_999_999 }).map((n) => `3${String(n).slice(1)}`),
        fc.constantFrom('0123', 'ABC-123', '1-0234-0567'),
      ),
      name: textOf(3, 100),
      commercial_name: opt(textOf(3, 80)),
      email: opt(fc.constantFrom('a@b.co', "o'brien+x@example.com", `${'x'.repeat(160)}@e.com`)),
      phone: opt(fc.stringMatching(/^\d{6,22}$/)),
      phone_country_code: opt(fc.stringMatching(/^\d{1,4}$/)),
      activity_code: opt(fc.stringMatching(/^\d{5,7}$/)),
      addresses: opt(fc.array(addressArb, { maxLength: 2 })),
    },
    { requiredKeys: ['cedula', 'name'] },
    // Ten digits may be a jurídica or a NITE: the generated ones are jurídicas and say so.
  )
  .map((c) => (/^3\d{9}$/.test(c.cedula) ? { ...c, identification_type: '02' } : c));

const serviceArb = fc.record(
  {
    // Mostly codes of the official catalogue; sometimes 13 digits in no catalogue (unknown_cabys).
    cabys: fc.oneof(
      { weight: 4, arbitrary: cabysArb },
      { weight: 1, arbitrary: fc.stringMatching(/^\d{13}$/) },
      { weight: 1, arbitrary: fc.constantFrom('123', '12345678901234', '0000000000000') },
    ),
    description: textOf(3, 200),
    unit: fc.constantFrom('Sp', 'Unid', 'Kg', 'h', 'Al'),
    iva_rate_code: fc.constantFrom('01', '02', '04', '08', '10', '11'),
    price: fc.oneof(
      fc.constantFrom('0', '1.5', '33.33333', '9999999999999.99999', '1e5', '-1'),
      fc.integer({ min: 0, max: 10_000_000 }).map(String),
    ),
    commercial_code: opt(textOf(1, 20)),
  },
  { requiredKeys: ['cabys', 'description', 'unit', 'iva_rate_code', 'price'] },
);

const qtyArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom('2.5', '0.001', '1000')),
  },
  fc.constantFrom<unknown>(
    1e20,
    1e21,
    0.1 + 0.2,
    -1,
    0,
    '0.001',
    '1.2345',
    '1234567890123.999',
    '2.5',
    'dos',
  ),
);

const randomDiscountArb = fc.record(
  {
    amount: opt(fc.constantFrom('1', '0.5', '1000000', 'abc')),
    percent: opt(fc.constantFrom('10', '100', '150', '0.00001')),
    code: opt(fc.constantFrom('07', '99', '04', '01', '12')),
    code_other: opt(textOf(5, 100)),
    nature: opt(textOf(3, 80)),
  },
  { requiredKeys: [] },
);

const discountArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Record<string, unknown>>({ percent: '10' }, { amount: '1' }) },
  { weight: 2, arbitrary: textOf(5, 100).map((t) => ({ code: '99', code_other: t, percent: '5' })) },
  { weight: 1, arbitrary: randomDiscountArb },
);

/** An exoneration that is mostly right, sometimes out of bounds or with unknown codes. */
const exonerationArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      doc_type: fc.constantFrom('01', '03', '08'),
      number: fc.constantFrom('AL-00012345-24', 'DGT-2026-999'),
      institution: fc.constantFrom('01', '02'),
      issued_at: fc.constantFrom('2026-01-15', '2026-03-01T10:00:00-06:00'),
      rate: fc.constantFrom('13', '4', '1', '0.5', 13),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        doc_type: opt(fc.constantFrom('99', '55', '04')),
        doc_type_other: opt(textOf(5, 100)),
        number: opt(textOf(3, 40)),
        article: opt(fc.constantFrom('12', '1234567', 'x')),
        institution: opt(fc.constantFrom('99', '13', '01')),
        institution_other: opt(textOf(5, 160)),
        issued_at: opt(fc.constantFrom('ayer', '2026-02-30', '2026-01-15')),
        rate: opt(fc.constantFrom<unknown>('20', '0', '13.001', '13', -1)),
      },
      { requiredKeys: [] },
    ),
  },
);

/** Other charges and several payments, coherent or not. */
const chargesAndPaymentsArb = fc.oneof(
  fc.constantFrom<Record<string, unknown>>(
    { other_charges: [{ code: '06' }] },
    {
      other_charges: [
        { code: '02', percent: '2' },
        { code: '07', amount: '150.5' },
      ],
    },
    {
      other_charges: [
        {
          code: '04',
          amount: '100',
          third_party: { id_type: '02', id_number: '3101654321', name: 'Parqueo Central SA' },
        },
      ],
    },
    { other_charges: [{ code: '04', amount: '100' }] },
    { other_charges: [{ code: '99', amount: '5' }] },
    { otherCharges: [{ code: '06', percent: '10' }] },
    { payments: [{ method: 'tarjeta', amount: '1' }, { method: 'efectivo' }] },
    { payments: [{ method: 'efectivo' }, { method: 'tarjeta' }] },
    { payments: [{ method: 'tarjeta', amount: '1' }] },
    { payments: [{ method: 'sinpe_movil' }], other_charges: [{ code: '06' }] },
    { payments: [{ method: 'efectivo' }], payment_method: 'tarjeta' },
  ),
  textOf(3, 100).map((t) => ({
    payments: [
      { method: 'cheque', amount: '0.5' },
      { method: 'otros', other: t },
    ],
  })),
  textOf(1, 160).map((t) => ({ other_charges: [{ code: '01', detail: t, amount: '10' }] })),
);

/** Taxes beside the IVA: mostly well formed, sometimes missing a field or of a code not allowed. */
const otherTaxArb = fc.oneof(
  fc.constantFrom<Record<string, unknown>>(
    { code: '02', rate: '10' },
    { code: '12', rate: '5.5' },
    { code: '03', unit_quantity: '1', tax_per_unit: '280.25' },
    { code: '04', unit_quantity: '350', alcohol_percent: '4.5', tax_per_unit: '4.15' },
    { code: '05', unitQuantity: '600', consumptionVolume: '250', taxPerUnit: '20.17' },
    { code: '06', unit_quantity: '20', tax_per_unit: '1.33' },
    { code: '99', code_other: 'Impuesto municipal', amount: '150' },
    { code: '03', tax_per_unit: '1' },
    { code: '01', rate: '13' },
    { code: '02', rate: '10.123' },
    { code: '99', amount: '1' },
  ),
  textOf(5, 100).map((t) => ({ code: '99', code_other: t, rate: '1' })),
);

/** Terms that go together, or any mix of them (then often refused). */
const termsArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant({}) },
  fc.constantFrom<Record<string, unknown>>(
    { condition: 'credito_30' },
    { condition: 'servicios_estado_credito', credit_days: 60 },
    { payment_method: 'sinpe_movil' },
    { currency: 'USD', exchange_rate: '512.35' },
    { currency: 'CRC', exchange_rate: 1 },
    { branch: '002', terminal: '00002' },
  ),
  textOf(5, 100).map((t) => ({ condition: 'otros', condition_other: t })),
  textOf(3, 100).map((t) => ({ payment_method: 'otros', payment_method_other: t })),
  { weight: 3, arbitrary: chargesAndPaymentsArb },
  { weight: 2, arbitrary: fc.constant(null) },
);

/** An invoice body whose client and services are chosen among those available when it is sent. */
const invoiceArb = fc.record(
  {
    client: fc.nat(),
    lines: fc.array(
      fc.record(
        {
          service: fc.nat(),
          qty: qtyArb,
          unit_price: opt(fc.constantFrom<unknown>('0', '12.5', '9999999999999.99999', '1.123456', 5, 1e15)),
          description: opt(textOf(3, 200)),
          discount: opt(discountArb),
          discounts: rare(fc.array(discountArb, { minLength: 1, maxLength: 6 })),
          exoneration: rare(exonerationArb),
          taxes: rare(fc.array(otherTaxArb, { minLength: 1, maxLength: 3 })),
        },
        { requiredKeys: ['service', 'qty'] },
      ),
      { minLength: 1, maxLength: 2 },
    ),
    terms: termsArb,
    condition: opt(
      fc.constantFrom(
        'contado',
        'credito_30',
        'credito',
        'otros',
        'servicios_estado_credito',
        '99',
        'fiado',
        'credito_0',
        '10',
      ),
    ),
    condition_other: opt(textOf(5, 100)),
    credit_days: opt(fc.integer({ min: 0, max: 100_001 })),
    currency: opt(fc.constantFrom('CRC', 'USD', 'EUR', 'XXQ')),
    exchange_rate: opt(fc.constantFrom<unknown>('1', '512.35', '0', 1e20, '600.123456')),
    payment_method: opt(fc.constantFrom('efectivo', 'tarjeta', 'sinpe_movil', 'otros', 'trueque')),
    payment_method_other: opt(textOf(3, 100)),
    branch: opt(fc.constantFrom('001', '002', '01')),
    terminal: opt(fc.constantFrom('00001', '00002', '1')),
  },
  { requiredKeys: ['client', 'lines', 'terms'] },
);

type InvoiceCase = typeof invoiceArb extends fc.Arbitrary<infer T> ? T : never;

function bodyOf(c: InvoiceCase, clients: string[], services: string[]): Record<string, unknown> {
  // `terms` null: the randomly drawn terms; otherwise a coherent set of them.
  const { client, lines, terms, ...random } = c;
  return JSON.parse(
    JSON.stringify({
      client_id: clients[client % clients.length],
      lines: lines.map(({ service, ...l }) => ({ service_id: services[service % services.length], ...l })),
      ...(terms === null ? random : terms),
    }),
  );
}

/** A refusal is a 422 problem naming at least one field. */
function expectRefusal(res: { status: number; json: any; text: string }, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(422);
  expect(res.json.errors?.length, `${what}: ${res.text}`).toBeGreaterThan(0);
  for (const x of res.json.errors) expect(typeof x.path).toBe('string');
}

const created: { id: string; body: unknown }[] = [];

async function expectAllAccepted(items: { id: string; body: unknown }[]) {
  const pending = new Map(items.map((i) => [i.id, i]));
  const bad: string[] = [];
  await waitFor(
    async () => {
      for (const [id, item] of pending) {
        const inv = (await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json;
        if (inv.status === 'aceptada') pending.delete(id);
        else if (inv.status === 'rechazada' || inv.processing_error?.permanent) {
          bad.push(
            `${id} ${inv.status} ${JSON.stringify(inv.processing_error ?? inv.rejection_reason?.summary)} for ${JSON.stringify(item.body)}`,
          );
          pending.delete(id);
        }
      }
      return pending.size === 0;
    },
    90_000,
    500,
    'every accepted invoice to reach aceptada',
  );
  expect(bad, `seed ${SEED}`).toEqual([]);
}

describe(`generated requests (seed ${SEED})`, () => {
  it('single creates: 201 or 422 with a field; every 201 ends aceptada', async () => {
    const clients = [ref('cli', s.client.id)];
    const services = [ref('srv', s.consulting.id), ref('srv', s.laptop.id), ref('srv', s.exempt.id)];
    await fc.assert(
      fc.asyncProperty(clientArb, serviceArb, invoiceArb, async (client, service, invoice) => {
        const c = await api(e, 'POST', '/api/v1/clients', s.key, client);
        if (c.status === 201) clients.push(c.json.id);
        else if (c.status !== 409) expectRefusal(c, `client ${JSON.stringify(client)}`);
        const v = await api(e, 'POST', '/api/v1/services', s.key, service);
        if (v.status === 201) services.push(v.json.id);
        else expectRefusal(v, `service ${JSON.stringify(service)}`);
        const body = bodyOf(invoice, clients, services);
        const before = await e.db('numbering_series').sum('last_number as n').first();
        const r = await api(e, 'POST', '/api/v1/invoices', s.key, body);
        if (r.status === 201) created.push({ id: r.json.id, body });
        else {
          expectRefusal(r, `invoice ${JSON.stringify(body)}`);
          const after = await e.db('numbering_series').sum('last_number as n').first();
          expect(after?.n, 'no number spent on a refusal').toBe(before?.n);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.info(`seed ${SEED}: ${created.length} of ${RUNS} invoices accepted, the rest refused`);
    expect(created.length, 'some requests were accepted').toBeGreaterThan(2);
    await expectAllAccepted(created);
  }, 180_000);

  it('batch items: created or failed with 422 and a field; every created one ends aceptada', async () => {
    const clients = [ref('cli', s.client.id)];
    const services = [ref('srv', s.consulting.id), ref('srv', s.laptop.id), ref('srv', s.exempt.id)];
    const cases = fc.sample(invoiceArb, { numRuns: BATCH_ITEMS, seed: SEED + 1 });
    let bodies = cases.map((c, i) => ({
      ...bodyOf(c, clients, services),
      idempotency_key: `prop-${SEED}-${i}`,
    }));
    // Characters no JSON text field may hold refuse the whole batch body (422 naming the item's
    // field); those items are dropped and the rest sent again.
    let b = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: bodies });
    while (b.status === 422) {
      expectRefusal(b, 'batch');
      const drop = new Set<number>(
        b.json.errors.map((x: { path: string }) => Number(/^\/invoices\/(\d+)/.exec(x.path)?.[1] ?? -1)),
      );
      expect(drop.has(-1), b.text).toBe(false);
      bodies = bodies.filter((_b, i) => !drop.has(i));
      b = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: bodies });
    }
    expect(b.status, b.text).toBe(202);
    let batch: any;
    await waitFor(
      async () => {
        batch = (await api(e, 'GET', `/api/v1/batches/${b.json.id}`, s.key)).json;
        return batch.status === 'completed';
      },
      60_000,
      200,
      'the batch to complete',
    );
    const accepted: { id: string; body: unknown }[] = [];
    for (const item of batch.items) {
      if (item.status === 'created') accepted.push({ id: item.invoice.id, body: bodies[item.index] });
      else {
        expect(item.status, JSON.stringify(item)).toBe('failed');
        expect(item.error.status, JSON.stringify(item)).toBe(422);
        expect(item.error.errors.length, JSON.stringify(item)).toBeGreaterThan(0);
      }
    }
    console.info(`seed ${SEED}: batch of ${bodies.length}, ${accepted.length} items created`);
    expect(accepted.length, 'some items were created').toBeGreaterThan(2);
    await expectAllAccepted(accepted);
  }, 180_000);
});
