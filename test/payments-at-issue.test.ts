// Cash sales (condition contado) are paid at issue: from the first answer the invoice owes nothing
// (balance 0, `paid`), and when its issue entry is booked one payment by its payment method is
// recorded (cash against receivables), booked once, with payment.created and invoice.paid; a
// repeated booking pays nothing twice; a rejection leaves it `unpaid` and reverses the payment
// with the issue entry. `paid_at_issue: false` (either shape) and
// credit sales stay unpaid for the payments API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { bookInvoices } from '../operations/invoice-booking.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import { parseId } from '../domain/ids.ts';
import { planAtIssuePayments } from '../domain/payments.ts';
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

const clientRef = () => `cli_${String(s.client.id).padStart(12, '0')}`;
const serviceRef = () => `srv_${String(s.laptop.id).padStart(12, '0')}`;

async function issue(extra: Record<string, unknown> = {}) {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: clientRef(),
    lines: [{ service_id: serviceRef(), qty: 1 }],
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function reach(id: string, statuses: string[]) {
  let last: any;
  await waitFor(
    async () => {
      last = (await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json;
      return statuses.includes(last.status) && last.status !== 'pendiente' && (await booked(id));
    },
    20_000,
    100,
    `invoice ${id} to reach ${statuses.join('/')}`,
  );
  return last;
}

/** Booked (or, refused at reception, never to be): the accounting step is behind it. */
async function booked(id: string) {
  const row = await e
    .db('invoices')
    .where({ id: parseId('invoice', id)! })
    .first('accounted_at', 'status');
  return row.accountedAt !== null || row.status === 'rechazada';
}

async function entries(id: string) {
  return e
    .db('journal_entries as j')
    .join('journal_lines as l', 'l.entry_id', 'j.id')
    .join('accounts as a', 'a.id', 'l.account_id')
    .where('j.invoice_id', parseId('invoice', id)!)
    .orderBy('j.id')
    .select('j.kind', 'a.role', 'l.debit', 'l.credit');
}

const net = (rows: { role: string; debit: string; credit: string }[], role: string) =>
  rows
    .filter((r) => r.role === role)
    .reduce((acc, r) => acc.plus(r.debit).minus(r.credit), new Decimal(0))
    .toFixed(2);

const eventsFor = async (type: string, invoiceId: string) =>
  (await e.db('events').where({ type }).select('data')).filter(
    (r: { data: Record<string, unknown> }) => (r.data.invoice_id ?? r.data.id) === invoiceId,
  );

const clientBalance = async () =>
  String((await e.db('clients').where({ id: s.client.id }).first('balance')).balance);

describe('a cash sale (contado)', () => {
  let inv: any;

  beforeAll(async () => {
    const created = await issue({ payment_method: 'sinpe_movil' });
    expect(created).toMatchObject({
      condition: 'contado',
      paid_at_issue: true,
      payment_status: 'paid',
      balance_due: '0.00',
    });
    inv = await reach(created.id, ['aceptada']);
  });

  it('is paid when it is booked: balance 0, one payment by its method, booked once', async () => {
    expect(inv).toMatchObject({ payment_status: 'paid', balance_due: '0.00', paid_at_issue: true });
    const payments = (await api(e, 'GET', `/api/v1/invoices/${inv.id}/payments`, s.key)).json.data;
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      amount: inv.total,
      method: 'sinpe_movil',
      method_code: '06',
      at_issue: true,
      invoice_balance_due: '0.00',
      invoice_payment_status: 'paid',
      paid_at: inv.issue_date,
    });
    const rows = await entries(inv.id);
    expect([...new Set(rows.map((r) => r.kind))]).toEqual(['invoice', 'payment']);
    expect(rows.filter((r) => r.kind === 'payment')).toHaveLength(2);
    expect(net(rows, 'receivables')).toBe('0.00');
    expect(net(rows, 'cash')).toBe(new Decimal(inv.total).toFixed(2));
    expect(await eventsFor('payment.created', inv.id)).toHaveLength(1);
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(1);
  });

  it('takes no second payment through the API (422 invoice_already_paid)', async () => {
    const res = await api(e, 'POST', `/api/v1/invoices/${inv.id}/payments`, s.key, {
      amount: inv.total,
      method: 'efectivo',
    });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('invoice_already_paid');
  });

  it('books nothing twice when the accounting step runs again (after a crash)', async () => {
    const id = parseId('invoice', inv.id)!;
    const before = await clientBalance();
    await e.db.transaction(async (trx) => {
      const rows = (await trx('invoices').where({ id }).forUpdate().select('*')) as InvoiceRow[];
      await trx('invoices').where({ id }).update({ accountedAt: null });
      await bookInvoices(trx, rows);
    });
    expect(await e.db('payments').where({ invoiceId: id })).toHaveLength(1);
    expect(await e.db('journal_entries').where({ invoiceId: id })).toHaveLength(2);
    expect(await clientBalance()).toBe(before);
  });
});

describe('a cash sale before it is booked', () => {
  it('says paid with nothing due from the 201 on, takes no payment, and is booked balanced later', async () => {
    await e.stopWorkers();
    let created: any;
    try {
      created = await issue({ payment_method: 'efectivo' });
      expect(created).toMatchObject({
        status: 'pendiente',
        paid_at_issue: true,
        payment_status: 'paid',
        balance_due: '0.00',
      });
      const read = (await api(e, 'GET', `/api/v1/invoices/${created.id}`, s.key)).json;
      expect(read).toMatchObject({ payment_status: 'paid', balance_due: '0.00' });
      const [event] = await eventsFor('invoice.created', created.id);
      expect(event!.data).toMatchObject({ payment_status: 'paid', balance_due: '0.00' });
      const pay = await api(e, 'POST', `/api/v1/invoices/${created.id}/payments`, s.key, {
        amount: created.total,
        method: 'efectivo',
      });
      expect(pay.status).toBe(422);
      expect(pay.json.code).toBe('invoice_already_paid');
      expect(await e.db('payments').where({ invoiceId: parseId('invoice', created.id)! })).toHaveLength(0);
    } finally {
      await e.startWorkers();
    }
    const done = await reach(created.id, ['aceptada']);
    expect(done).toMatchObject({ payment_status: 'paid', balance_due: '0.00' });
    const payments = (await api(e, 'GET', `/api/v1/invoices/${done.id}/payments`, s.key)).json.data;
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ amount: done.total, method: 'efectivo', at_issue: true });
    const rows = await entries(done.id);
    const d = rows.reduce((a, r) => a.plus(r.debit), new Decimal(0));
    const c = rows.reduce((a, r) => a.plus(r.credit), new Decimal(0));
    expect(d.eq(c)).toBe(true);
    expect(net(rows, 'receivables')).toBe('0.00');
    expect(net(rows, 'cash')).toBe(new Decimal(done.total).toFixed(2));
  });

  it('a draft paid at issue is unpaid until it is issued, then paid', async () => {
    const draft = await issue({ payment_method: 'efectivo', send: false });
    expect(draft).toMatchObject({ status: 'borrador', payment_status: 'unpaid', balance_due: draft.total });
    const sent = await api(e, 'POST', `/api/v1/invoices/${draft.id}/send`, s.key);
    expect(sent.status, sent.text).toBeLessThan(300);
    expect(sent.json).toMatchObject({ payment_status: 'paid', balance_due: '0.00' });
  });
});

describe('a chunk booked for one client', () => {
  /** Books the invoices in one transaction, as the accounting step does. */
  async function bookChunk(ids: string[]): Promise<void> {
    await e.db.transaction(async (trx) => {
      const rows = (await trx('invoices')
        .whereIn(
          'id',
          ids.map((id) => parseId('invoice', id)!),
        )
        .orderBy('id')
        .forUpdate()
        .select('*')) as InvoiceRow[];
      expect(await bookInvoices(trx, rows)).toBe(ids.length);
    });
  }
  /** The client's row version: a new one for every update. */
  const clientVersion = async () =>
    (await e.db.raw('select xmin::text as v from clients where id = ?', [s.client.id])).rows[0].v;

  it("moves the client's balance by what the chunk adds up to; cash sales alone leave its row alone", async () => {
    await e.stopWorkers();
    const ids: string[] = [];
    try {
      const before = new Decimal(await clientBalance());
      const cash = await issue({ payment_method: 'efectivo' });
      const credit = await issue({ condition: 'credito_30' });
      ids.push(cash.id, credit.id);
      const v0 = await clientVersion();
      await bookChunk([cash.id, credit.id]);
      expect(await clientVersion()).not.toBe(v0);
      expect(new Decimal(await clientBalance()).eq(before.plus(credit.total))).toBe(true);

      const cashA = await issue({ payment_method: 'efectivo' });
      const cashB = await issue({ payment_method: 'sinpe_movil' });
      ids.push(cashA.id, cashB.id);
      const v1 = await clientVersion();
      await bookChunk([cashA.id, cashB.id]);
      expect(await clientVersion()).toBe(v1);
      expect(new Decimal(await clientBalance()).eq(before.plus(credit.total))).toBe(true);
      for (const id of [cash.id, cashA.id, cashB.id]) {
        const rows = await entries(id);
        expect(net(rows, 'receivables')).toBe('0.00');
        expect(await e.db('payments').where({ invoiceId: parseId('invoice', id)! })).toHaveLength(1);
      }
      expect(net(await entries(credit.id), 'receivables')).toBe(new Decimal(credit.total).toFixed(2));
    } finally {
      await e.startWorkers();
    }
    // The flow finds them booked and books nothing again.
    const after = await clientBalance();
    for (const id of ids) await reach(id, ['aceptada']);
    expect(await clientBalance()).toBe(after);
  });
});

describe('invoices that stay unpaid', () => {
  it('a cash sale with paid_at_issue: false (shape A) or paidAtIssue: false (shape B)', async () => {
    const a = await issue({ paid_at_issue: false });
    const b = await api(e, 'POST', '/api/v1/invoices', s.key, {
      clientId: s.client.uuid,
      paidAtIssue: false,
      lines: [{ serviceId: s.laptop.uuid, qty: 1 }],
    });
    expect(b.status, b.text).toBe(201);
    for (const created of [a, b.json]) {
      expect(created.paid_at_issue).toBe(false);
      const done = await reach(created.id, ['aceptada']);
      expect(done).toMatchObject({ payment_status: 'unpaid', balance_due: done.total });
      expect(await e.db('payments').where({ invoiceId: parseId('invoice', created.id)! })).toHaveLength(0);
    }
  });

  it('a credit sale; paid_at_issue: true is refused there (422, nothing recorded)', async () => {
    const credit = await issue({ condition: 'credito_30' });
    expect(credit.paid_at_issue).toBe(false);
    const done = await reach(credit.id, ['aceptada']);
    expect(done).toMatchObject({ payment_status: 'unpaid', balance_due: done.total });
    const count = await e.db('invoices').count<{ count: string }[]>('* as count');
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: clientRef(),
      condition: 'credito_30',
      paid_at_issue: true,
      lines: [{ service_id: serviceRef(), qty: 1 }],
    });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([
      expect.objectContaining({ path: '/paid_at_issue', code: 'not_applicable' }),
    ]);
    expect(await e.db('invoices').count<{ count: string }[]>('* as count')).toEqual(count);
  });
});

describe('a rejected cash sale', () => {
  it('has its payment at issue reversed with its issue entry: the client owes nothing more, cash is back', async () => {
    const before = await clientBalance();
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    let done: any;
    try {
      const created = await issue();
      done = await reach(created.id, ['rechazada']);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
    const rows = await entries(done.id);
    expect([...new Set(rows.map((r) => r.kind))].sort()).toEqual([
      'invoice',
      'invoice_reversal',
      'payment',
      'payment_reversal',
    ]);
    expect(net(rows, 'receivables')).toBe('0.00');
    expect(net(rows, 'cash')).toBe('0.00');
    expect(await clientBalance()).toBe(before);
    const after = (await api(e, 'GET', `/api/v1/invoices/${done.id}`, s.key)).json;
    expect(after).toMatchObject({ status: 'rechazada', balance_due: '0.00', payment_status: 'unpaid' });
    // The rejection's event says so too.
    const [rejected] = await eventsFor('invoice.rejected', done.id);
    expect(rejected!.data).toMatchObject({ balance_due: '0.00', payment_status: 'unpaid' });
  });
});

describe('a cash sale paid with several methods', () => {
  // The laptop: 450,000 + 13 % = 508,500, paid 300,000 by card, 150,000.50 by SINPE and the rest in cash.
  const split = {
    payments: [
      { method: 'tarjeta', amount: '300000' },
      { method: 'sinpe_movil', amount: '150000.50' },
      { method: 'efectivo' },
    ],
  };
  const amounts = [
    ['tarjeta', '02', '300000.00'],
    ['sinpe_movil', '06', '150000.50'],
    ['efectivo', '01', '58499.50'],
  ];

  it('is settled by one payment per method with its amount, each booked once, paid once', async () => {
    const created = await issue(split);
    const inv = await reach(created.id, ['aceptada']);
    expect(inv).toMatchObject({ payment_status: 'paid', balance_due: '0.00', total: '508500.00' });
    const payments = (await api(e, 'GET', `/api/v1/invoices/${inv.id}/payments`, s.key)).json.data;
    expect(
      payments
        .map((p: any) => [p.method, p.method_code, p.amount, p.at_issue])
        .sort((a: string[], b: string[]) => a[0]!.localeCompare(b[0]!)),
    ).toEqual(amounts.map((a) => [...a, true]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
    const rows = await entries(inv.id);
    const paymentEntries = await e
      .db('journal_entries')
      .where({ invoiceId: parseId('invoice', inv.id)!, kind: 'payment' });
    expect(paymentEntries).toHaveLength(3);
    expect(new Set(paymentEntries.map((p: any) => p.paymentId)).size).toBe(3);
    const cash = rows
      .filter((r) => r.kind === 'payment' && r.role === 'cash')
      .map((r) => new Decimal(r.debit).toFixed(2));
    expect(cash.sort()).toEqual(['150000.50', '300000.00', '58499.50']);
    expect(net(rows, 'receivables')).toBe('0.00');
    expect(net(rows, 'cash')).toBe('508500.00');
    expect(await eventsFor('payment.created', inv.id)).toHaveLength(3);
    expect(await eventsFor('invoice.paid', inv.id)).toHaveLength(1);

    // The accounting step again (after a crash) pays nothing twice.
    const id = parseId('invoice', inv.id)!;
    const before = await clientBalance();
    await e.db.transaction(async (trx) => {
      const again = (await trx('invoices').where({ id }).forUpdate().select('*')) as InvoiceRow[];
      await trx('invoices').where({ id }).update({ accountedAt: null });
      await bookInvoices(trx, again);
    });
    expect(await e.db('payments').where({ invoiceId: id })).toHaveLength(3);
    expect(await clientBalance()).toBe(before);
  });

  it('rejected: every payment at issue is reversed, once, by one entry', async () => {
    const before = await clientBalance();
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    let done: any;
    try {
      const created = await issue(split);
      done = await reach(created.id, ['rechazada']);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
    const id = parseId('invoice', done.id)!;
    expect(await e.db('payments').where({ invoiceId: id, atIssue: true })).toHaveLength(3);
    const reversals = await e.db('journal_entries').where({ invoiceId: id, kind: 'payment_reversal' });
    expect(reversals).toHaveLength(1);
    const rows = await entries(done.id);
    const reversed = rows.filter((r) => r.kind === 'payment_reversal');
    expect(reversed.reduce((a, r) => a.plus(r.debit).minus(r.credit), new Decimal(0)).isZero()).toBe(true);
    expect(net(reversed, 'cash')).toBe('-508500.00');
    expect(net(rows, 'receivables')).toBe('0.00');
    expect(net(rows, 'cash')).toBe('0.00');
    expect(await clientBalance()).toBe(before);
    const after = (await api(e, 'GET', `/api/v1/invoices/${done.id}`, s.key)).json;
    expect(after).toMatchObject({ status: 'rechazada', balance_due: '0.00', payment_status: 'unpaid' });
  });
});

describe('planAtIssuePayments', () => {
  const base = { status: 'enviada', exchangeRate: '1', receivableCrc: '508500.00', paidCrc: '0' };
  const methods = [
    { method: 'tarjeta', total: '300000.00000' },
    { method: 'efectivo', total: '208500.00000' },
  ];

  it('what the API took before the booking comes off the last methods; the last payment settles', () => {
    const plans = planAtIssuePayments({ ...base, balanceDue: '408500.00000', paidCrc: '100000.00' }, methods);
    expect(plans.map((p) => [p.index, p.method, p.amount, p.plan.paymentStatus])).toEqual([
      [0, 'tarjeta', '300000.00', 'partial'],
      [1, 'efectivo', '108500.00', 'paid'],
    ]);
    expect(plans[1]!.plan.amountCrc).toBe('108500.00');
    // Only the card's amount was left: the cash method has nothing to pay.
    expect(
      planAtIssuePayments({ ...base, balanceDue: '250000.00000', paidCrc: '258500.00' }, methods).map((p) => [
        p.method,
        p.amount,
        p.plan.paymentStatus,
      ]),
    ).toEqual([['tarjeta', '250000.00', 'paid']]);
  });

  it('in another currency each method books its amount in colones and the last what is left', () => {
    const usd = planAtIssuePayments(
      { ...base, exchangeRate: '505.13', receivableCrc: '50513.00', balanceDue: '100.00000' },
      [
        { method: 'tarjeta', total: '33.33333' },
        { method: 'efectivo', total: '66.66667' },
      ],
    );
    expect(usd.map((p) => [p.amount, p.plan.amountCrc])).toEqual([
      ['33.33', '16835.98'],
      ['66.67', '33677.02'],
    ]);
  });
});
