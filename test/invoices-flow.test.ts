// Invoice issuance end to end: API → outbox → BullMQ flow (sign, submit, accounting, status)
// against the Hacienda simulator, with the official XSD and xmlsec1 as independent checkers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { validateXml } from './helpers/xsd.ts';
import { testCaCertificate } from '../hacienda/test-certificates.ts';
import { verifyWithXmlsec } from './helpers/xmlsec.ts';
import { api, flowJobId, seedIssuer, startE2E, type E2E, waitForDocumentStatus } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';
import { callbackQuery } from '../jobs/invoice-flow/callback-token.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e.close();
});

const waitForStatus = (id: string, statuses: string[], timeoutMs = 20_000) =>
  waitForDocumentStatus(e, s.key, id, statuses, timeoutMs);

async function journal(invoiceId: number) {
  return e
    .db('journal_entries as e')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .join('accounts as a', 'a.id', 'l.account_id')
    .where('e.invoice_id', invoiceId)
    .select('e.id', 'e.kind', 'e.description', 'a.role', 'l.debit', 'l.credit');
}

describe('an invoice issued with a sandbox key', () => {
  it('is recorded pendiente with consecutivo and clave, then reaches aceptada; XML, signature and journal check out', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${String(s.client.id).padStart(12, '0')}`,
      condition: 'credito_30',
      lines: [
        { service_id: `srv_${String(s.consulting.id).padStart(12, '0')}`, qty: 3 },
        {
          service_id: `srv_${String(s.laptop.id).padStart(12, '0')}`,
          qty: 1,
          unit_price: '450000.00',
          discount: { percent: '10' },
        },
        { service_id: `srv_${String(s.exempt.id).padStart(12, '0')}`, qty: '2.5' },
      ],
    });
    expect(res.status).toBe(201);
    const inv = res.json;
    expect(inv).toMatchObject({
      status: 'pendiente',
      currency: 'CRC',
      condition: 'credito_30',
      credit_days: 30,
      livemode: false,
    });
    expect(inv.id).toMatch(/^inv_\d{12}$/);
    expect(inv.consecutivo).toBe('00100001010000000001');
    expect(inv.clave).toMatch(/^506\d{6}003101123456001000010100000000011\d{8}$/);
    // 3 × 33.33333 = 99.99999; IVA 13% = 12.99999870 → 13.00000; laptop 450000 − 10% = 405000, IVA 52650;
    // exempt 2.5 × 10000 = 25000 (no IVA). Total = 99.99999 + 13 + 405000 + 52650 + 25000 = 482762.99999 → 482763.00
    expect(inv.total).toBe('482763.00');
    expect(inv.total_tax).toBe('52663.00');
    expect(inv.lines[0]).toMatchObject({ qty: '3.000', amount: '99.99999', taxes: [{ amount: '13.00000' }] });

    const done = await waitForStatus(inv.id, ['aceptada', 'rechazada']);
    expect(done.status).toBe('aceptada');
    expect(done.hacienda.accepted_at).not.toBeNull();

    // The signed XML, byte-exact, validates against the official XSD and verifies with xmlsec1.
    const xml = await fetch(`${e.apiUrl}/api/v1/invoices/${inv.id}/xml`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(xml.headers.get('content-type')).toMatch(/application\/xml/);
    const bytes = Buffer.from(await xml.arrayBuffer());
    const stored = await e
      .db('invoice_documents')
      .where({ invoiceId: Number(inv.id.slice(4)) })
      .first();
    expect(bytes.equals(stored.signedXml)).toBe(true);
    const text = bytes.toString('utf8');
    expect(text).toContain(`<Clave>${inv.clave}</Clave>`);
    expect(text).toContain('<TotalComprobante>482762.99999</TotalComprobante>');
    expect((await validateXml('FacturaElectronica', text)).valid).toBe(true);
    const ca = await testCaCertificate();
    const verified = await verifyWithXmlsec(text, { trustedPem: ca.pem });
    expect(verified.valid, verified.output).toBe(true);

    const response = await api(e, 'GET', `/api/v1/invoices/${inv.id}/response`, s.key);
    expect(response.status).toBe(200);
    expect(response.text).toContain('<Mensaje>1</Mensaje>');

    // One balanced journal entry matching the totals; the client's balance follows.
    const lines = await journal(Number(inv.id.slice(4)));
    expect(new Set(lines.map((l) => l.kind))).toEqual(new Set(['invoice']));
    expect(new Set(lines.map((l) => l.description))).toEqual(
      new Set([`Factura electrónica ${inv.consecutivo}`]),
    );
    const debit = lines.reduce((a, l) => a.plus(l.debit), new Decimal(0));
    const credit = lines.reduce((a, l) => a.plus(l.credit), new Decimal(0));
    expect(debit.toFixed(5)).toBe(credit.toFixed(5));
    // Booked in centavos: the receivable is the API's total, 482763.00.
    expect(debit.toFixed(5)).toBe('482763.00000');
    const byRole = Object.fromEntries(
      lines.map((l) => [l.role, new Decimal(l.debit).plus(l.credit).toFixed(5)]),
    );
    expect(byRole).toEqual({
      receivables: '482763.00000',
      revenue_services: '25100.00000',
      revenue_goods: '405000.00000',
      iva_payable: '52663.00000',
    });
    const client = await e.db('clients').where({ id: s.client.id }).first();
    expect(client.balance).toBe('482763.00000');
    // Events recorded for the whole life.
    const events = await e
      .db('events')
      .where({ companyId: s.company.id })
      .whereRaw(`data->>'id' = ?`, [inv.id])
      .pluck('type');
    expect(events).toEqual(['invoice.created', 'invoice.sent', 'invoice.accepted']);
  });

  it('a forced rejection reaches rechazada with a readable reason and a reversing entry', async () => {
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    try {
      const before = (await e.db('clients').where({ id: s.client.id }).first()).balance;
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
        client_id: `cli_${String(s.client.id).padStart(12, '0')}`,
        lines: [{ service_id: `srv_${String(s.laptop.id).padStart(12, '0')}`, qty: 1 }],
      });
      expect(res.status).toBe(201);
      const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
      expect(done.status).toBe('rechazada');
      expect(done.rejection_reason.message).toMatch(/provincia|ubicación|cantón/i);
      expect(done.rejection_reason.items[0]).toMatchObject({ code: -37 });
      expect(done.rejection_reason.raw).toContain('-37');
      expect(done.balance_due).toBe('0.00');
      const en = await api(e, 'GET', `/api/v1/invoices/${res.json.id}`, s.key, undefined, {
        'accept-language': 'en',
      });
      expect(en.json.rejection_reason.message).toMatch(/province|location|address/i);
      const lines = await journal(Number(res.json.id.slice(4)));
      const kinds = lines.reduce<Record<string, Decimal>>((acc, l) => {
        acc[l.kind] = (acc[l.kind] ?? new Decimal(0)).plus(l.debit).minus(l.credit);
        return acc;
      }, {});
      // A cash sale: its payment at issue is reversed with it.
      expect(Object.keys(kinds).sort()).toEqual([
        'invoice',
        'invoice_reversal',
        'payment',
        'payment_reversal',
      ]);
      const cash = lines
        .filter((l) => l.role === 'cash')
        .reduce((a, l) => a.plus(l.debit).minus(l.credit), new Decimal(0));
      expect(cash.isZero()).toBe(true);
      const receivable = lines
        .filter((l) => l.role === 'receivables')
        .reduce((a, l) => a.plus(l.debit).minus(l.credit), new Decimal(0));
      expect(receivable.isZero()).toBe(true);
      const after = (await e.db('clients').where({ id: s.client.id }).first()).balance;
      expect(after).toBe(before);
      const events = await e
        .db('events')
        .whereRaw(`data->>'id' = ?`, [res.json.id])
        .orderBy('id')
        .pluck('type');
      expect(events).toEqual(['invoice.created', 'invoice.sent', 'invoice.rejected']);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
  });
});

describe('waiting and callbacks', () => {
  const body = () => ({
    client_id: `cli_${String(s.client.id).padStart(12, '0')}`,
    lines: [{ service_id: `srv_${String(s.consulting.id).padStart(12, '0')}`, qty: 1 }],
  });

  it('Prefer: wait=N answers once Hacienda has accepted the invoice', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, body(), { prefer: 'wait=20' });
    expect(res.status).toBe(201);
    expect(res.headers.get('preference-applied')).toBe('wait=20');
    expect(res.json.status).toBe('aceptada');
    expect(res.json.hacienda.submitted_at).not.toBeNull();
    expect(res.json.hacienda.accepted_at).not.toBeNull();
  });

  it('Prefer: wait=N answers once Hacienda has rejected the invoice', async () => {
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    try {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, body(), { prefer: 'wait=20' });
      expect(res.status).toBe(201);
      expect(res.headers.get('preference-applied')).toBe('wait=20');
      expect(res.json.status).toBe('rechazada');
      expect(res.json.hacienda.rejected_at).not.toBeNull();
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
  });

  it('Prefer: wait=N answers after N seconds with the state reached so far', async () => {
    // Hacienda takes 8 s to decide: a wait of 2 s ends with the invoice still on its way.
    e.sim.simulator.configure({ processingDelayMs: 8000 });
    try {
      const started = Date.now();
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, body(), { prefer: 'wait=2' });
      const took = Date.now() - started;
      expect(res.status).toBe(201);
      expect(res.headers.get('preference-applied')).toBe('wait=2');
      expect(['pendiente', 'enviada']).toContain(res.json.status);
      expect(took).toBeGreaterThanOrEqual(1900);
      expect(took).toBeLessThan(8000);
      const done = await waitForStatus(res.json.id, ['aceptada'], 30_000);
      expect(done.status).toBe('aceptada');
    } finally {
      e.sim.simulator.configure({ processingDelayMs: 50 });
    }
  });

  it("Hacienda's callback wakes the status job instead of waiting for the next poll", async () => {
    await e.stopWorkers();
    await e.startWorkers({ statusPoll: { baseMs: 60_000, maxMs: 60_000 } });
    // Hacienda takes 1.5 s: the first poll finds it still processing and the job sleeps 60 s.
    e.sim.simulator.configure({ processingDelayMs: 1500 });
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, body());
    const invoiceId = Number(res.json.id.slice(4));
    await waitFor(
      async () => {
        const jobId = await flowJobId(e.db, invoiceId, 'status');
        return Boolean(jobId && (await (await e.runtime!.queues.status.getJob(jobId))?.isDelayed()));
      },
      10_000,
      20,
      'a sleeping status job',
    );
    const sleptAt = Date.now();
    const done = await waitForStatus(res.json.id, ['aceptada'], 20_000);
    e.sim.simulator.configure({ processingDelayMs: 50 });
    expect(done.status).toBe('aceptada');
    expect(Date.now() - sleptAt).toBeLessThan(10_000);
    const doc = e.sim.simulator.document(res.json.clave);
    expect(doc?.callback).toBe('delivered');
    // The URL names the chunk's status job, under the same HMAC as the clave.
    expect(doc?.callbackUrl).toMatch(/\/hacienda\/callback\?t=redacted&c=redacted&j=redacted$/);
    const jobId = (await flowJobId(e.db, invoiceId, 'status'))!;
    const row = (await e.db('invoices').where({ id: invoiceId }).first('company_id')) as {
      companyId: number;
    };
    const query = `?${callbackQuery(e.config.secretsKey, res.json.clave, { companyId: Number(row.companyId), jobId })}`;
    expect(query).toMatch(/^\?t=[\w-]{32}&c=\d+&j=chunk-[\w-]+-status$/);
    const post = (q: string, clave = res.json.clave) =>
      fetch(`${e.apiUrl}/hacienda/callback${q}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clave, 'ind-estado': 'aceptado' }),
      }).then((r) => r.json());
    expect(await post(query)).toEqual({ received: true });
    // A callback without the right token changes nothing: a wrong token, another job or company
    // named under the clave's token, the URL of one clave used for another.
    expect(await post('?t=nope')).toEqual({ received: false });
    expect(await post(query.replace(/j=[^&]+/, 'j=chunk-other-status'))).toEqual({ received: false });
    expect(await post(query.replace(/c=\d+/, 'c=999999'))).toEqual({ received: false });
    expect(await post(query, '5'.repeat(50))).toEqual({ received: false });
    await e.stopWorkers();
    await e.startWorkers();
  });

  it('50 parallel requests with one Idempotency-Key: one invoice, one consecutivo, one journal entry', async () => {
    const key = `idem-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        api(e, 'POST', '/api/v1/invoices', s.key, body(), { 'idempotency-key': key }),
      ),
    );
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.json.id));
    expect(ids.size).toBe(1);
    const id = [...ids][0]!;
    await waitForStatus(id, ['aceptada']);
    const entries = await e.db('journal_entries').where({ invoiceId: Number(id.slice(4)) });
    // The issue entry and, a cash sale, its payment at issue: each once.
    expect(entries.map((x: { kind: string }) => x.kind).sort()).toEqual(['invoice', 'payment']);
    // The request that created it (the others that got 201 were replays).
    const creator = results.find((r) => r.status === 201 && r.headers.get('idempotent-replayed') !== 'true')!;
    const rows = await e.db('invoices').where({ requestId: creator.headers.get('request-id') });
    expect(rows).toHaveLength(1);
  });
});
