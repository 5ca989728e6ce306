// Notes on a tiquete sold to no one (settled at issue): the debit note's amount is collected at
// once (its payments at issue, by the methods it names or the tiquete's), the credit note's refund
// goes out of cash; receivables net zero and no client's balance moves. A note on a tiquete with a
// receptor still moves receivables and the client's balance. Each to `aceptada` on the simulator,
// its XML valid against its XSD and signed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { api, seedIssuer, startE2E, type E2E, waitForDocumentStatus } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';
import { acceptedDocument, type AcceptedDocument } from './helpers/accepted-document.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
const srv = (id: number) => `srv_${pad(id)}`;
const num = (id: string) => Number(id.slice(4));

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e.close();
});

const clientBalances = async () =>
  (await e.db('clients').orderBy('id').select('id', 'balance')).map((c: any) => `${c.id}:${c.balance}`);

/** Receivables debited less credited, and cash likewise, over every entry of the document. */
const net = (doc: AcceptedDocument, role: string) =>
  new Decimal(doc.booked(role, 'debit')).minus(doc.booked(role, 'credit')).toFixed(2);

async function acceptedTiquete(extra: Record<string, unknown> = {}) {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    document_type: '04',
    payment_method: 'tarjeta',
    lines: [
      { service_id: srv(s.laptop.id), qty: 2 },
      { service_id: srv(s.exempt.id), qty: 1 },
    ],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return acceptedDocument(e, s.key, res.json.id, 'TiqueteElectronico', null);
}

const medios = (doc: AcceptedDocument) =>
  [...doc.xml.matchAll(/<MedioPago>([\s\S]*?)<\/MedioPago>/g)].map((m) => ({
    type: /<TipoMedioPago>(\d+)</.exec(m[1]!)?.[1],
    total: /<TotalMedioPago>([\d.]+)</.exec(m[1]!)?.[1] ?? null,
  }));

describe('notes on a tiquete without a receptor (settled at issue)', () => {
  it('a debit note is collected at issue: its payments, cash debited, receivables net zero', async () => {
    const tiquete = await acceptedTiquete();
    const before = await clientBalances();
    const res = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/debit_notes`, s.key, {
      reason: 'Cargo adicional por entrega',
      lines: [{ line: 2, amount: '5000' }],
      payments: [{ method: 'efectivo', amount: '2000' }, { method: 'sinpe_movil' }],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({ document_type: '02', client_id: null, total: '5000.00' });
    const note = await acceptedDocument(e, s.key, res.json.id, 'NotaDebitoElectronica', null);
    expect(note.xml).not.toContain('<Receptor>');
    expect(medios(note)).toEqual([
      { type: '01', total: '2000.00000' },
      { type: '06', total: '3000.00000' },
    ]);
    expect(net(note, 'receivables')).toBe('0.00');
    expect(net(note, 'cash')).toBe('5000.00');
    expect(note.inv).toMatchObject({ payment_status: 'paid', balance_due: '0.00' });
    const payments = await e
      .db('payments')
      .where({ invoiceId: num(res.json.id) })
      .orderBy('id');
    expect(
      payments.map((p: any) => [p.method, new Decimal(p.amount).toFixed(2), p.clientId, p.atIssue]),
    ).toEqual([
      ['efectivo', '2000.00', null, true],
      ['sinpe_movil', '3000.00', null, true],
    ]);
    expect(await clientBalances()).toEqual(before);
    // The tiquete itself is untouched: paid, nothing due.
    const t = (await api(e, 'GET', `/api/v1/invoices/${tiquete.inv.id}`, s.key)).json;
    expect(t).toMatchObject({ payment_status: 'paid', balance_due: '0.00', credited_total: '0.00' });
  });

  it("a debit note without payment fields takes the tiquete's method", async () => {
    const tiquete = await acceptedTiquete({ payment_method: 'transferencia' });
    const res = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/debit_notes`, s.key, {
      reason: 'Diferencia de precio',
      lines: [{ line: 1, amount: '10000' }],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.total).toBe('11300.00');
    const note = await acceptedDocument(e, s.key, res.json.id, 'NotaDebitoElectronica', null);
    expect(medios(note).map((m) => m.type)).toEqual(['04']);
    expect(net(note, 'receivables')).toBe('0.00');
    expect(net(note, 'cash')).toBe('11300.00');
    expect(note.inv.payment_status).toBe('paid');
  });

  it('a credit note refunds out of cash: receivables net zero, the tiquete coherent', async () => {
    const tiquete = await acceptedTiquete();
    const before = await clientBalances();
    const partial = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/credit_notes`, s.key, {
      reason: 'Devolución de una unidad',
      code: '06',
      lines: [{ line: 1, qty: 1 }],
    });
    expect(partial.status, JSON.stringify(partial.json)).toBe(201);
    expect(partial.json.total).toBe('508500.00');
    const note = await acceptedDocument(e, s.key, partial.json.id, 'NotaCreditoElectronica', null);
    expect(net(note, 'receivables')).toBe('0.00');
    expect(net(note, 'cash')).toBe('-508500.00');
    expect(note.inv).toMatchObject({ balance_due: '0.00' });
    let t = (await api(e, 'GET', `/api/v1/invoices/${tiquete.inv.id}`, s.key)).json;
    expect(t).toMatchObject({
      payment_status: 'paid',
      balance_due: '0.00',
      credited_total: '508500.00',
      annulled: false,
    });
    // The rest of it annuls the tiquete; the refund of it is cash again.
    const rest = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/credit_notes`, s.key, {
      reason: 'Devolución del resto',
      code: '06',
      lines: [{ line: 1, qty: 1 }, { line: 2 }],
    });
    expect(rest.status, JSON.stringify(rest.json)).toBe(201);
    const second = await acceptedDocument(e, s.key, rest.json.id, 'NotaCreditoElectronica', null);
    expect(net(second, 'receivables')).toBe('0.00');
    expect(net(second, 'cash')).toBe('-518500.00');
    t = (await api(e, 'GET', `/api/v1/invoices/${tiquete.inv.id}`, s.key)).json;
    expect(t).toMatchObject({ balance_due: '0.00', credited_total: '1027000.00', annulled: true });
    // The same events as any note: created, and the tiquete annulled once.
    const events = await e.db('events').whereIn('type', ['credit_note.created', 'invoice.annulled']);
    expect(events.filter((x: any) => [partial.json.id, rest.json.id].includes(x.data.id))).toHaveLength(2);
    expect(events.filter((x: any) => x.data.id === tiquete.inv.id).map((x: any) => x.type)).toEqual([
      'invoice.annulled',
    ]);
    expect(await clientBalances()).toEqual(before);
  });
});

describe('notes on a tiquete without a receptor: refusals and rejection', () => {
  it('refuses payment fields that do not fit, with problem+json, and writes nothing', async () => {
    const tiquete = await acceptedTiquete();
    const written = async () =>
      Promise.all([
        e.db('invoices').count('* as n').first(),
        e.db('payments').count('* as n').first(),
        e.db('events').count('* as n').first(),
      ]).then((r) => r.map((x: any) => Number(x.n)));
    const before = await written();
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['credit_notes', { payment_method: 'efectivo' }, '/payment_method', 'unknown_field'],
      ['debit_notes', { payment_method: 'bitcoin' }, '/payment_method', 'invalid_value'],
      ['debit_notes', { payment_method: 'otros' }, '/payment_method_other', 'required'],
      [
        'debit_notes',
        { payment_method: 'efectivo', payments: [{ method: 'efectivo' }] },
        '/payments',
        'conflicting_fields',
      ],
      // The amounts add up to the note's total (5000.00).
      ['debit_notes', { payments: [{ method: 'efectivo', amount: '6000' }] }, '/payments', ''],
    ];
    for (const [path, extra, field, code] of cases) {
      const res = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/${path}`, s.key, {
        reason: 'Cargo adicional',
        lines: [{ line: 2, amount: '5000' }],
        ...extra,
      });
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.errors, JSON.stringify(res.json)).toContainEqual(
        expect.objectContaining(
          code ? { path: field, code } : { path: expect.stringMatching(/^\/payments/) },
        ),
      );
    }
    expect(await written()).toEqual(before);
  });

  it('a rejected debit note gives its payment back, a rejected credit note its refund', async () => {
    const tiquete = await acceptedTiquete();
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    const ids: string[] = [];
    try {
      for (const path of ['debit_notes', 'credit_notes']) {
        const res = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/${path}`, s.key, {
          reason: 'Corrección',
          lines: [{ line: 2, amount: '5000' }],
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        ids.push(res.json.id);
      }
      for (const id of ids) await waitForDocumentStatus(e, s.key, id, ['rechazada'], 30_000);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
    for (const id of ids) {
      let lines: any[] = [];
      await waitFor(async () => {
        lines = await e
          .db('journal_entries as j')
          .join('journal_lines as l', 'l.entry_id', 'j.id')
          .join('accounts as a', 'a.id', 'l.account_id')
          .where('j.invoice_id', num(id))
          .select('j.kind', 'a.role', 'l.debit', 'l.credit');
        return lines.some((l) => l.kind === 'invoice_reversal');
      }, 20_000);
      const sum = (role: string) =>
        lines
          .filter((l) => l.role === role)
          .reduce((a, l) => a.plus(l.debit).minus(l.credit), new Decimal(0))
          .toFixed(2);
      expect([sum('receivables'), sum('cash')], id).toEqual(['0.00', '0.00']);
    }
    const t = (await api(e, 'GET', `/api/v1/invoices/${tiquete.inv.id}`, s.key)).json;
    expect(t).toMatchObject({ payment_status: 'paid', balance_due: '0.00', credited_total: '0.00' });
  });
});

describe('notes on a tiquete with a receptor', () => {
  it('a debit note still moves receivables and the client balance, and takes no payment fields', async () => {
    const tiquete = await acceptedTiquete({ client_id: `cli_${pad(s.client.id)}` });
    const client = () => e.db('clients').where({ id: s.client.id }).first('balance');
    const refused = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/debit_notes`, s.key, {
      reason: 'Cargo adicional',
      lines: [{ line: 2, amount: '5000' }],
      payment_method: 'efectivo',
    });
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toContainEqual(
      expect.objectContaining({ path: '/payment_method', code: 'not_applicable' }),
    );
    const before = new Decimal((await client()).balance);
    const res = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/debit_notes`, s.key, {
      reason: 'Cargo adicional',
      lines: [{ line: 2, amount: '5000' }],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const note = await acceptedDocument(e, s.key, res.json.id, 'NotaDebitoElectronica', null);
    expect(net(note, 'receivables')).toBe('5000.00');
    expect(net(note, 'cash')).toBe('0.00');
    expect(note.inv).toMatchObject({ payment_status: 'unpaid', balance_due: '5000.00' });
    expect(new Decimal((await client()).balance).minus(before).toFixed(2)).toBe('5000.00');

    const credit = await api(e, 'POST', `/api/v1/invoices/${tiquete.inv.id}/credit_notes`, s.key, {
      reason: 'Devolución',
      code: '06',
      lines: [{ line: 2 }],
    });
    expect(credit.status, JSON.stringify(credit.json)).toBe(201);
    const cn = await acceptedDocument(e, s.key, credit.json.id, 'NotaCreditoElectronica', null);
    expect(net(cn, 'receivables')).toBe('-10000.00');
    expect(net(cn, 'cash')).toBe('0.00');
    expect(new Decimal((await client()).balance).minus(before).toFixed(2)).toBe('-5000.00');
  });
});
