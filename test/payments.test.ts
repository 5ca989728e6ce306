// Payments end to end: an issued invoice paid in two parts (partial, then paid), the events it
// emits, and the books: the journal (cash against receivables, in colones), the invoice's
// balance_due and the client's balance agree to the centavo — also for an invoice in dollars.
// Refusals (draft, rejected, paid, overpaid), validation, Idempotency-Key, concurrency, scopes
// and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { createApiKey } from '../db/queries/api-keys.ts';
import { formatId } from '../domain/ids.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e.close();
});

async function newClient(cedula: string): Promise<any> {
  const res = await api(e, 'POST', '/api/v1/clients', s.key, { cedula, name: `Cliente ${cedula}` });
  expect(res.status).toBe(201);
  return res.json;
}

/**
 * An invoice of 3 × 33.33333 + 13% IVA: TotalComprobante 112.99999, total "113.00". On credit:
 * a cash sale is paid at issue (test/payments-at-issue.test.ts), these are paid through the API.
 */
async function issue(
  clientId: string,
  extra: Record<string, unknown> = {},
  until = ['aceptada'],
): Promise<any> {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: clientId,
    condition: 'credito_30',
    lines: [{ service_id: formatId('service', s.consulting.id), qty: 3 }],
    ...extra,
  });
  expect(res.status).toBe(201);
  if (until.length === 0) return res.json;
  let last: any;
  await waitFor(
    async () => {
      last = (await api(e, 'GET', `/api/v1/invoices/${res.json.id}`, s.key)).json;
      return until.includes(last.status) && (last.status === 'borrador' || last.hacienda.status !== null);
    },
    20_000,
    100,
    `invoice ${res.json.id} to reach ${until.join('/')}`,
  );
  return last;
}

const pay = (invoiceId: string, body: unknown, headers: Record<string, string> = {}, key = s.key) =>
  api(e, 'POST', `/api/v1/invoices/${invoiceId}/payments`, key, body, headers);

const num = (id: string) => Number(id.slice(4));

async function journalOf(invoiceId: string) {
  return e
    .db('journal_entries as j')
    .join('journal_lines as l', 'l.entry_id', 'j.id')
    .join('accounts as a', 'a.id', 'l.account_id')
    .where('j.invoice_id', num(invoiceId))
    .select('j.kind', 'j.payment_id', 'a.role', 'l.debit', 'l.credit');
}

const sum = (rows: any[], role: string, side: 'debit' | 'credit') =>
  rows.filter((r) => r.role === role).reduce((a, r) => a.plus(r[side]), new Decimal(0));

const eventsOf = async (type: string, match: (d: any) => boolean) =>
  (await e.db('events').where({ type, companyId: s.company.id }).orderBy('id')).filter((ev) =>
    match(ev.data),
  );

describe('an invoice paid in two parts', () => {
  it('moves partial → paid; payment.created twice, invoice.paid once; journal and balances agree', async () => {
    const client = await newClient('1-0500-0500');
    const inv = await issue(client.id);
    expect(inv).toMatchObject({ total: '113.00', balance_due: '113.00', payment_status: 'unpaid' });
    await waitFor(async () => (await journalOf(inv.id)).some((r) => r.kind === 'invoice'), 10_000);
    expect((await api(e, 'GET', `/api/v1/clients/${client.id}`, s.key)).json.balance).toBe('113.00');

    const first = await pay(inv.id, { amount: '50.00', method: 'transferencia', reference: 'TRF-1' });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({
      object: 'payment',
      invoice_id: inv.id,
      client_id: client.id,
      amount: '50.00',
      currency: 'CRC',
      method: 'transferencia',
      method_code: '04',
      reference: 'TRF-1',
      amount_crc: '50.00',
      invoice_balance_due: '63.00',
      invoice_payment_status: 'partial',
      livemode: false,
    });
    expect(first.json.id).toMatch(/^pay_\d{12}$/);
    let now = (await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key)).json;
    expect(now).toMatchObject({ payment_status: 'partial', balance_due: '63.00' });
    expect((await api(e, 'GET', `/api/v1/clients/${client.id}`, s.key)).json.balance).toBe('63.00');

    // The balance is 62.99999: 63.00 settles it, sub-centavo remainder included.
    const over = await pay(inv.id, { amount: '63.01', method: 'efectivo' });
    expect(over.status).toBe(422);
    expect(over.json).toMatchObject({ code: 'payment_exceeds_balance', balance_due: '63.00' });
    expect(over.json.errors[0].path).toBe('/amount');

    const second = await pay(inv.id, {
      amount: '63.00',
      method: 'efectivo',
      paid_at: '2026-11-01T15:30:00Z',
    });
    expect(second.status).toBe(201);
    expect(second.json).toMatchObject({
      invoice_balance_due: '0.00',
      invoice_payment_status: 'paid',
      amount_crc: '63.00',
      paid_at: '2026-11-01T15:30:00.000Z',
    });
    now = (await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key)).json;
    expect(now).toMatchObject({ payment_status: 'paid', balance_due: '0.00' });
    expect(
      (
        await e
          .db('invoices')
          .where({ id: num(inv.id) })
          .first()
      ).balanceDue,
    ).toBe('0.00000');

    // Events.
    const created = await eventsOf('payment.created', (d) => d.invoice_id === inv.id);
    expect(created.map((x) => x.data.id)).toEqual([first.json.id, second.json.id]);
    const paid = await eventsOf('invoice.paid', (d) => d.invoice_id === inv.id);
    expect(paid).toHaveLength(1);
    expect(paid[0].data).toMatchObject({ invoice_id: inv.id, amount: '113.00', method: 'efectivo' });

    // The journal: issue entry, two payment entries; receivables net to zero; cash = paid.
    const j = await journalOf(inv.id);
    expect(
      j
        .filter((r) => r.kind === 'payment')
        .map((r) => r.role)
        .sort(),
    ).toEqual(['cash', 'cash', 'receivables', 'receivables']);
    expect(
      sum(j, 'receivables', 'debit')
        .minus(sum(j, 'receivables', 'credit'))
        .toFixed(5),
    ).toBe('0.00000');
    expect(sum(j, 'cash', 'debit').toFixed(5)).toBe('113.00000'); // centavos, like the API's total
    const client2 = (await api(e, 'GET', `/api/v1/clients/${client.id}`, s.key)).json;
    expect(client2.balance).toBe('0.00');
    expect(
      (
        await e
          .db('clients')
          .where({ id: num(client.id) })
          .first()
      ).balance,
    ).toBe('0.00000');

    // Listed, oldest first, each with the balance right after it.
    const list = await api(e, 'GET', `/api/v1/invoices/${inv.id}/payments`, s.key);
    expect(list.json.data.map((p: any) => [p.id, p.invoice_balance_due, p.invoice_payment_status])).toEqual([
      [first.json.id, '63.00', 'partial'],
      [second.json.id, '0.00', 'paid'],
    ]);

    const again = await pay(inv.id, { amount: '0.01', method: 'efectivo' });
    expect(again.status).toBe(422);
    expect(again.json.code).toBe('invoice_already_paid');
  });

  it('an invoice in dollars books colones with its rate and leaves receivables at exactly zero', async () => {
    const client = await newClient('1-0600-0600');
    const inv = await issue(client.id, { currency: 'USD', exchange_rate: '512.34567' });
    await waitFor(async () => (await journalOf(inv.id)).some((r) => r.kind === 'invoice'), 10_000);
    const booked = sum(await journalOf(inv.id), 'receivables', 'debit');
    expect(
      (
        await e
          .db('clients')
          .where({ id: num(client.id) })
          .first()
      ).balance,
    ).toBe(booked.toFixed(5));

    const a = await pay(inv.id, { amount: '33.33', method: 'tarjeta' });
    expect(a.json.amount_crc).toBe('17076.48'); // 33.33 × 512.34567 in centavos
    const b = await pay(inv.id, { amount: '79.67', method: 'tarjeta' });
    expect(b.json).toMatchObject({ invoice_payment_status: 'paid', invoice_balance_due: '0.00' });
    const j = await journalOf(inv.id);
    expect(sum(j, 'receivables', 'credit').toFixed(5)).toBe(booked.toFixed(5));
    expect(sum(j, 'cash', 'debit').toFixed(5)).toBe(booked.toFixed(5));
    expect(
      (
        await e
          .db('clients')
          .where({ id: num(client.id) })
          .first()
      ).balance,
    ).toBe('0.00000');
  });
});

describe('refusals and rules', () => {
  let open: any;
  beforeAll(async () => {
    open = await issue(formatId('client', s.client.id), {}, ['enviada', 'aceptada']);
  });

  it('a draft and a rejected invoice cannot be paid (422 invoice_not_payable); pendiente can', async () => {
    const draft = await issue(formatId('client', s.client.id), { send: false }, []);
    const d = await pay(draft.id, { amount: '1.00', method: 'efectivo' });
    expect(d.status).toBe(422);
    expect(d.json).toMatchObject({ code: 'invoice_not_payable' });
    expect(d.json.detail).toMatch(/borrador/);

    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    let rejected: any;
    try {
      rejected = await issue(formatId('client', s.client.id), {}, ['rechazada']);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
    const r = await pay(rejected.id, { amount: '1.00', method: 'efectivo' });
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('invoice_not_payable');
    expect(await e.db('payments').whereIn('invoice_id', [num(draft.id), num(rejected.id)])).toEqual([]);

    // Issued but not yet answered by Hacienda: payable (the sale happened; see README).
    await e.stopWorkers();
    try {
      const pending = await issue(formatId('client', s.client.id), {}, []);
      expect(pending.status).toBe('pendiente');
      const p = await pay(pending.id, { amount: '10.00', method: 'efectivo' });
      expect(p.status).toBe(201);
      expect(p.json.invoice_payment_status).toBe('partial');
    } finally {
      await e.startWorkers();
    }
  });

  it('validation errors are problem+json with paths', async () => {
    const cases: [unknown, string, string][] = [
      [{ method: 'efectivo' }, '/amount', 'required'],
      [{ amount: '0.00', method: 'efectivo' }, '/amount', 'out_of_range'],
      [{ amount: '10', method: 'efectivo' }, '/amount', 'invalid_format'],
      [{ amount: '10.001', method: 'efectivo' }, '/amount', 'invalid_format'],
      [{ amount: '-1.00', method: 'efectivo' }, '/amount', 'invalid_format'],
      [{ amount: 10, method: 'efectivo' }, '/amount', 'invalid_type'],
      [{ amount: '1.00', method: 'bitcoin' }, '/method', 'invalid_value'],
      [{ amount: '1.00', method: 'efectivo', paid_at: 'yesterday' }, '/paid_at', 'invalid_format'],
      [
        { amount: '1.00', method: 'efectivo', paid_at: new Date(Date.now() + 3_600_000).toISOString() },
        '/paid_at',
        'out_of_range',
      ],
      [{ amount: '1.00', method: 'efectivo', reference: 'x'.repeat(101) }, '/reference', 'too_long'],
      [{ amount: '1.00', method: 'efectivo', currency: 'USD' }, '/currency', 'unknown_field'],
    ];
    for (const [body, path, code] of cases) {
      const res = await pay(open.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.json.code).toBe('validation_failed');
      expect(res.json.errors, JSON.stringify(body)).toContainEqual(expect.objectContaining({ path, code }));
    }
    expect(await e.db('payments').where({ invoiceId: num(open.id) })).toEqual([]);
  });

  it('Idempotency-Key: a repeat replays, a different body is refused, one payment is made', async () => {
    const h = { 'idempotency-key': `pay-${Date.now()}` };
    const a = await pay(open.id, { amount: '5.00', method: 'cheque' }, h);
    expect(a.status).toBe(201);
    const b = await pay(open.id, { method: 'cheque', amount: '5.00' }, h);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.json).toEqual(a.json);
    const c = await pay(open.id, { amount: '6.00', method: 'cheque' }, h);
    expect(c.status).toBe(422);
    expect(c.json.code).toBe('idempotency_key_reused');
    expect(await e.db('payments').where({ invoiceId: num(open.id) })).toHaveLength(1);
    expect(await eventsOf('payment.created', (d) => d.invoice_id === open.id)).toHaveLength(1);
  });

  it('concurrent payments of the whole balance: one wins, the others are refused', async () => {
    const inv = await issue(formatId('client', s.client.id), {}, ['enviada', 'aceptada']);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => pay(inv.id, { amount: '113.00', method: 'sinpe_movil' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422]);
    expect(results.filter((r) => r.status === 422).every((r) => r.json.code === 'invoice_already_paid')).toBe(
      true,
    );
    expect(await eventsOf('invoice.paid', (d) => d.invoice_id === inv.id)).toHaveLength(1);
  });

  it('needs write:payments to pay and read:invoices to list; other tenants get 404', async () => {
    const { secret: readOnly } = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: false,
      name: 'ro',
      scopes: ['read:invoices'],
    });
    const denied = await pay(open.id, { amount: '1.00', method: 'efectivo' }, {}, readOnly);
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ code: 'insufficient_scope', required_scope: 'write:payments' });
    expect((await api(e, 'GET', `/api/v1/invoices/${open.id}/payments`, readOnly)).status).toBe(200);

    const other = await seedIssuer(e.db, e.config, '3101654321');
    const foreign = await pay(open.id, { amount: '1.00', method: 'efectivo' }, {}, other.key);
    expect(foreign.status).toBe(404);
    expect(foreign.json.code).toBe('resource_not_found');
    expect((await api(e, 'GET', `/api/v1/invoices/${open.id}/payments`, other.key)).status).toBe(404);
    expect((await pay('inv_999999999999', { amount: '1.00', method: 'efectivo' })).status).toBe(404);
  });
});
