// Facturas electrónicas de compra (08) and recibos electrónicos de pago (10) end to end: the HTTP
// API → the invoice flow (sign, submit, accounting, status) against the Hacienda simulator; each
// document's XML valid against its own XSD (xmllint) and its signature verified by xmlsec1; the
// purchase booked as expense and IVA credit against payables, the receipt booking nothing beyond
// its payment; every refused request changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { validateXml } from './helpers/xsd.ts';
import { verifyWithXmlsec } from './helpers/xmlsec.ts';
import {
  api,
  seedIssuer,
  startE2E,
  type E2E,
  waitForDocumentStatus,
  storedSignedXml,
} from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';
import { parseXml } from '../simulator/checks/xml-reader.ts';
import { purchaseRule, receiptRule } from '../simulator/checks/rules-purchase-receipt.ts';
import type { RuleContext } from '../simulator/checks/rule-context.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const srv = (id: number) => `srv_${String(id).padStart(12, '0')}`;
const cli = (id: number) => `cli_${String(id).padStart(12, '0')}`;
const num = (id: string) => Number(id.slice(4));

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e.close();
});

const waitForStatus = (id: string, statuses: string[], timeoutMs = 30_000) =>
  waitForDocumentStatus(e, s.key, id, statuses, timeoutMs);

const signedXml = (id: string) => storedSignedXml(e.db, id);

async function entries(invoiceId: number) {
  return e
    .db('journal_entries as e')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .join('accounts as a', 'a.id', 'l.account_id')
    .where('e.invoice_id', invoiceId)
    .select('e.kind', 'e.payment_id', 'e.description', 'a.role', 'l.debit', 'l.credit');
}

const balanced = (lines: { debit: string; credit: string }[]) =>
  lines.reduce((d, l) => d.plus(l.debit).minus(l.credit), new Decimal(0)).isZero();

async function written() {
  const [inv, series, events, payments, journal] = await Promise.all([
    e.db('invoices').count('* as n').first(),
    e.db('numbering_series').sum('last_number as n').first(),
    e.db('events').count('* as n').first(),
    e.db('payments').count('* as n').first(),
    e.db('journal_entries').count('* as n').first(),
  ]);
  return [inv, series, events, payments, journal].map((r) => Number(r!.n));
}

/** The simulator's own rules of a type, on a document (as Hacienda's check would see it). */
function ruleRows(rule: typeof purchaseRule, tipo: string, xml: string) {
  const ctx: RuleContext = {
    root: parseXml(xml),
    tipo,
    fechaEmision: null,
    now: Date.now(),
    cabys: null,
    maxDocumentAgeMs: Infinity,
    maxClockSkewMs: 0,
  };
  return rule(ctx).map((r) => r.code);
}

const foreignSupplier = {
  name: 'Cloud Tools LLC',
  identification: 'US4455667788',
  identification_type: '05',
  foreign_address: '500 Market St, San Francisco, CA, USA',
  email: 'billing@cloudtools.example',
};

describe('factura electrónica de compra (08)', () => {
  it('refuses invalid purchases with problem+json and writes nothing', async () => {
    const before = await written();
    const base = { document_type: '08', lines: [{ service_id: srv(s.laptop.id), qty: 1 }] };
    const cases: [Record<string, unknown>, string, string][] = [
      [base, 'validation_failed', '/supplier'],
      [{ ...base, supplier: { ...foreignSupplier, name: 'Ab' } }, 'validation_failed', '/supplier/name'],
      [
        { ...base, supplier: { ...foreignSupplier, identification_type: '01' } },
        'validation_failed',
        '/supplier/identification',
      ],
      [
        {
          ...base,
          supplier: { ...foreignSupplier, identification: '3101123456', identification_type: '02' },
        },
        'validation_failed',
        '/supplier/identification',
      ],
      [
        {
          ...base,
          supplier: { name: 'Juan Campos Mora', identification: '109870654', identification_type: '01' },
        },
        'validation_failed',
        '/supplier/location',
      ],
      [
        { ...base, supplier: foreignSupplier, client_id: cli(s.client.id) },
        'validation_failed',
        '/client_id',
      ],
      [{ ...base, supplier: foreignSupplier, paid_at_issue: true }, 'validation_failed', '/paid_at_issue'],
      [
        { ...base, supplier: foreignSupplier, lines: [{ service_id: srv(999999), qty: 1 }] },
        'validation_failed',
        '/lines/0/service_id',
      ],
      [{ ...base, document_type: '07' }, 'validation_failed', '/document_type'],
    ];
    for (const [body, code, path] of cases) {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.json.code).toBe(code);
      expect(res.json.errors.map((x: { path: string }) => x.path)).toContain(path);
    }
    // Ten digits may be a jurídica or a NITE: the supplier's type is asked for, never guessed.
    const ambiguous = await api(e, 'POST', '/api/v1/invoices', s.key, {
      ...base,
      supplier: {
        name: 'Distribuidora Campos Limitada',
        identification: '3-102-456789',
        location: { provincia: '1', canton: '01', distrito: '01', otras_senas: 'Frente al parque central' },
      },
    });
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.json.errors).toContainEqual(
      expect.objectContaining({ path: '/supplier/identification', code: 'ambiguous_identification' }),
    );
    expect(await written()).toEqual(before);
  });

  it('issues a purchase from a foreign supplier to aceptada, signed by the company, booked against payables', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '08',
      supplier: foreignSupplier,
      condition: 'credito_30',
      lines: [{ service_id: srv(s.laptop.id), qty: 1, unit_price: '100000.00' }],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.document_type).toBe('08');
    expect(res.json.client_id).toBeNull();
    expect(res.json.supplier.identification_type).toBe('05');
    expect(res.json.consecutivo.slice(8, 10)).toBe('08');
    // The clave carries the company's identification: the buyer issues it.
    expect(res.json.clave.slice(9, 21)).toBe('003101123456');
    expect(res.json.total).toBe('113000.00');

    const accepted = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(accepted.status, JSON.stringify(accepted.rejection_reason)).toBe('aceptada');

    const xml = await signedXml(res.json.id);
    expect(xml).toContain('<FacturaElectronicaCompra ');
    expect(xml).toMatch(/<Emisor>\s*<Nombre>Cloud Tools LLC<\/Nombre>\s*<Identificacion>\s*<Tipo>05<\/Tipo>/);
    expect(xml).toContain('<OtrasSenasExtranjero>500 Market St');
    expect(xml).toMatch(/<Receptor>\s*<Nombre>Servicios Ejemplo Sociedad Anonima<\/Nombre>/);
    expect(xml).toContain('<CodigoActividadReceptor>620100</CodigoActividadReceptor>');
    expect(xml).toMatch(/<InformacionReferencia>\s*<TipoDocIR>16<\/TipoDocIR>[\s\S]*<Codigo>11<\/Codigo>/);
    const schema = await validateXml('FacturaElectronicaCompra', xml);
    expect(schema.errors).toEqual([]);
    expect(schema.valid).toBe(true);
    const sig = await verifyWithXmlsec(xml);
    expect(sig.valid, sig.output).toBe(true);
    // The simulator's FEC rules pass it, and refuse a non-domiciled reference without Codigo 11.
    expect(ruleRows(purchaseRule, '08', xml)).toEqual([]);
    // A rule of ours (-1: Hacienda's code for it is not known).
    expect(ruleRows(purchaseRule, '08', xml.replace('<Codigo>11</Codigo>', '<Codigo>04</Codigo>'))).toEqual([
      -1,
    ]);

    // /xml and /response serve the document and Hacienda's answer.
    const x = await api(e, 'GET', `/api/v1/invoices/${res.json.id}/xml`, s.key);
    expect(x.status).toBe(200);
    expect(x.text).toContain('FacturaElectronicaCompra');
    const r = await api(e, 'GET', `/api/v1/invoices/${res.json.id}/response`, s.key);
    expect(r.status).toBe(200);
    expect(r.text).toContain('MensajeHacienda');
    const pdf = await fetch(`${e.apiUrl}/api/v1/invoices/${res.json.id}/pdf`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    // Expense and IVA credit against accounts payable; no client owes anything.
    const lines = await entries(num(res.json.id));
    expect(balanced(lines)).toBe(true);
    const by = Object.fromEntries(lines.map((l) => [l.role, l]));
    expect(new Decimal(by.purchases.debit).toFixed(2)).toBe('100000.00');
    expect(new Decimal(by.iva_credit.debit).toFixed(2)).toBe('13000.00');
    expect(new Decimal(by.payables.credit).toFixed(2)).toBe('113000.00');
    expect(lines.map((l) => l.role)).not.toContain('receivables');
    expect(new Set(lines.map((l) => l.description))).toEqual(
      new Set([`Factura electrónica de compra ${res.json.consecutivo}`]),
    );

    // Events of the purchase reached the event log (webhooks deliver from there).
    const types = await e
      .db('events')
      .where('data', '@>', JSON.stringify({ id: res.json.id }))
      .pluck('type');
    expect(types).toEqual(expect.arrayContaining(['invoice.created', 'invoice.accepted']));

    // A purchase is not paid through the payments API.
    const pay = await api(e, 'POST', `/api/v1/invoices/${res.json.id}/payments`, s.key, {
      amount: '1000.00',
      method: 'transferencia',
    });
    expect(pay.status).toBe(422);
    expect(pay.json.code).toBe('invoice_not_payable');

    // The list filter finds it by type.
    const list = await api(e, 'GET', '/api/v1/invoices?document_type=08', s.key);
    expect(list.json.data.map((d: { id: string }) => d.id)).toContain(res.json.id);
  });
});

describe('a purchase with other charges (08, OtrosCargos)', () => {
  it('keeps its charges: shown by the API, written as OtrosCargos, in TotalComprobante and in the expense', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '08',
      supplier: foreignSupplier,
      condition: 'credito_30',
      lines: [{ service_id: srv(s.laptop.id), qty: 1, unit_price: '1000.00' }],
      other_charges: [{ code: '99', code_other: 'Cargo por envío', amount: '250' }],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    // 1000 + 130 IVA + 250 of other charges.
    expect(res.json.total).toBe('1380.00');
    expect(res.json.other_charges).toEqual([
      expect.objectContaining({ code: '99', code_other: 'Cargo por envío', amount: '250.00000' }),
    ]);
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status, JSON.stringify(done.rejection_reason)).toBe('aceptada');
    const xml = await signedXml(res.json.id);
    expect(xml).toMatch(
      /<OtrosCargos>\s*<TipoDocumentoOC>99<\/TipoDocumentoOC>\s*<TipoDocumentoOTROS>Cargo por envío<\/TipoDocumentoOTROS>[\s\S]*?<MontoCargo>250\.00000<\/MontoCargo>\s*<\/OtrosCargos>/,
    );
    expect(xml).toContain('<TotalOtrosCargos>250.00000</TotalOtrosCargos>');
    expect(xml).toContain('<TotalComprobante>1380.00000</TotalComprobante>');
    expect((await validateXml('FacturaElectronicaCompra', xml)).errors).toEqual([]);
    expect(ruleRows(purchaseRule, '08', xml)).toEqual([]);
    // The charge is part of what the company owes and of its expense.
    await waitFor(async () => (await entries(num(res.json.id))).length > 0, 10_000);
    const lines = await entries(num(res.json.id));
    expect(balanced(lines)).toBe(true);
    const by = Object.fromEntries(lines.map((l) => [l.role, l]));
    expect(new Decimal(by.purchases.debit).toFixed(2)).toBe('1250.00');
    expect(new Decimal(by.iva_credit.debit).toFixed(2)).toBe('130.00');
    expect(new Decimal(by.payables.credit).toFixed(2)).toBe('1380.00');
  });
});

describe('a purchase paid in cash (08, contado)', () => {
  it('credits cash and banks, not accounts payable (a credit purchase credits payables, above)', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '08',
      supplier: foreignSupplier,
      condition: 'contado',
      payment_method: 'transferencia',
      lines: [{ service_id: srv(s.laptop.id), qty: 2, unit_price: '25000.00' }],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.condition).toBe('contado');
    const accepted = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(accepted.status, JSON.stringify(accepted.rejection_reason)).toBe('aceptada');
    expect(await signedXml(res.json.id)).toContain('<CondicionVenta>01</CondicionVenta>');
    await waitFor(async () => (await entries(num(res.json.id))).length > 0, 10_000);
    const lines = await entries(num(res.json.id));
    expect(balanced(lines)).toBe(true);
    const by = Object.fromEntries(lines.map((l) => [l.role, l]));
    expect(new Decimal(by.purchases.debit).toFixed(2)).toBe('50000.00');
    expect(new Decimal(by.iva_credit.debit).toFixed(2)).toBe('6500.00');
    expect(new Decimal(by.cash.credit).toFixed(2)).toBe('56500.00');
    expect(lines.map((l) => l.role)).not.toContain('payables');
    expect(lines.map((l) => l.role)).not.toContain('receivables');
  });
});

describe('a rejected purchase paid in cash', () => {
  it('reverses exactly what it booked: cash back, nothing left in payables', async () => {
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    let done: any;
    try {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
        document_type: '08',
        supplier: foreignSupplier,
        lines: [{ service_id: srv(s.laptop.id), qty: 1, unit_price: '10000.00' }],
      });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      done = await waitForStatus(res.json.id, ['rechazada', 'aceptada']);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
    expect(done.status).toBe('rechazada');
    let lines: Awaited<ReturnType<typeof entries>> = [];
    await waitFor(async () => {
      lines = await entries(num(done.id));
      return lines.some((l) => l.kind === 'invoice_reversal');
    }, 10_000);
    // Booked when Hacienda received it, reversed when it rejected it: it nets to zero.
    const net = (role: string) =>
      lines
        .filter((l) => l.role === role)
        .reduce((d, l) => d.plus(l.debit).minus(l.credit), new Decimal(0))
        .toFixed(2);
    expect(balanced(lines)).toBe(true);
    for (const role of ['cash', 'payables', 'purchases', 'iva_credit']) expect(net(role)).toBe('0.00');
    const issued = lines.filter((l) => l.kind === 'invoice');
    expect(new Decimal(issued.find((l) => l.role === 'cash')!.credit).toFixed(2)).toBe('11300.00');
    expect(issued.map((l) => l.role)).not.toContain('payables');
  });
});

describe('factura electrónica de compra (08) in a batch', () => {
  it('a batch carries purchases beside invoices, each in its own series, and reports a bad supplier', async () => {
    const run = Date.now();
    const purchase = (extra: Record<string, unknown>) => ({
      document_type: '08',
      supplier: {
        name: 'Finca La Esperanza',
        identification: '109870654',
        identification_type: '01',
        location: { provincia: '2', canton: '01', distrito: '01', otras_senas: 'Del templo 300 m sur' },
      },
      lines: [{ service_id: srv(s.exempt.id), qty: 2, unit_price: '2500.00' }],
      ...extra,
    });
    const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
      invoices: [
        purchase({ idempotency_key: `p-${run}-1` }),
        {
          client_id: cli(s.client.id),
          idempotency_key: `f-${run}`,
          lines: [{ service_id: srv(s.exempt.id), qty: 1 }],
        },
        purchase({ idempotency_key: `p-${run}-2`, supplier: { name: 'Sin identificación' } }),
      ],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    let b: any;
    await waitFor(async () => {
      b = (await api(e, 'GET', `/api/v1/batches/${res.json.id}`, s.key)).json;
      return b.status === 'completed';
    }, 30_000);
    expect(b.counts).toMatchObject({ created: 2, failed: 1 });
    expect(b.items[2].error.errors.map((x: { path: string }) => x.path)).toContain(
      '/supplier/identification',
    );
    const fec = await waitForStatus(b.items[0].invoice.id, ['aceptada', 'rechazada']);
    expect(fec.status, JSON.stringify(fec.rejection_reason)).toBe('aceptada');
    expect(fec.document_type).toBe('08');
    expect(fec.consecutivo.slice(8, 10)).toBe('08');
    expect(fec.supplier.name).toBe('Finca La Esperanza');
    expect(b.items[1].invoice.consecutivo.slice(8, 10)).toBe('01');
    const xml = await signedXml(fec.id);
    expect(xml).toMatch(/<Emisor>[\s\S]*<Ubicacion>\s*<Provincia>2<\/Provincia>/);
    expect(xml).toMatch(/<TipoDocIR>99<\/TipoDocIR>\s*<TipoDocRefOTRO>/);
    expect((await validateXml('FacturaElectronicaCompra', xml)).valid).toBe(true);
  });
});

describe('recibo electrónico de pago (10)', () => {
  async function acceptedCreditSale(condition: string) {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli(s.client.id),
      condition,
      lines: [{ service_id: srv(s.laptop.id), qty: 1, unit_price: '100000.00' }],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return waitForStatus(res.json.id, ['aceptada']);
  }

  it('refuses a receipt for a cash sale or an invoice not yet accepted, recording nothing', async () => {
    const cash = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli(s.client.id),
      paid_at_issue: false,
      lines: [{ service_id: srv(s.exempt.id), qty: 1 }],
    });
    await waitForStatus(cash.json.id, ['aceptada']);
    const before = await written();
    const res = await api(e, 'POST', `/api/v1/invoices/${cash.json.id}/payments`, s.key, {
      amount: '5000.00',
      method: 'efectivo',
      issue_receipt: true,
    });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('receipt_not_applicable');
    expect(res.json.errors[0].path).toBe('/issue_receipt');

    const draft = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli(s.client.id),
      condition: 'credito_30',
      lines: [{ service_id: srv(s.exempt.id), qty: 1 }],
      send: false,
    });
    const mid = await written();
    const res2 = await api(e, 'POST', `/api/v1/invoices/${draft.json.id}/payments`, s.key, {
      amount: '5000.00',
      method: 'efectivo',
      issue_receipt: true,
    });
    expect([409, 422]).toContain(res2.status);
    expect(await written()).toEqual(mid);
    expect(mid[3]).toBe(before[3]);
  });

  it('a payment of a credit sale issues a receipt that reaches aceptada and books nothing twice', async () => {
    const sale = await acceptedCreditSale('credito_iva_90');
    const res = await api(e, 'POST', `/api/v1/invoices/${sale.id}/payments`, s.key, {
      amount: '56500.00',
      method: 'transferencia',
      issue_receipt: true,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.receipt.id).toMatch(/^inv_\d{12}$/);
    expect(res.json.receipt.clave).toMatch(/^506\d{47}$/);
    expect(res.json.invoice_balance_due).toBe('56500.00');

    const receipt = await waitForStatus(res.json.receipt.id, ['aceptada', 'rechazada']);
    expect(receipt.status, JSON.stringify(receipt.rejection_reason)).toBe('aceptada');
    expect(receipt.document_type).toBe('10');
    expect(receipt.consecutivo.slice(8, 10)).toBe('10');
    expect(receipt.clave).toBe(res.json.receipt.clave);
    expect(receipt.total).toBe('56500.00');
    expect(receipt.reference.clave).toBe(sale.clave);
    expect(receipt.reference.code).toBe('17');

    const xml = await signedXml(receipt.id);
    expect(xml).toContain('<ReciboElectronicoPago ');
    expect(xml).not.toContain('CodigoActividad');
    expect(xml).toContain('<CondicionVenta>11</CondicionVenta>');
    expect(xml).toContain(`<Numero>${sale.clave}</Numero>`);
    expect(xml).toContain('<TotalComprobante>56500.00000</TotalComprobante>');
    const schema = await validateXml('ReciboElectronicoPago', xml);
    expect(schema.errors).toEqual([]);
    const sig = await verifyWithXmlsec(xml);
    expect(sig.valid, sig.output).toBe(true);
    // The simulator's REP rules pass it, and refuse figures that do not add up.
    expect(ruleRows(receiptRule, '10', xml)).toEqual([]);
    expect(
      ruleRows(
        receiptRule,
        '10',
        xml.replace(
          '<TotalComprobante>56500.00000</TotalComprobante>',
          '<TotalComprobante>56400.00000</TotalComprobante>',
        ),
      ),
    ).toEqual([-55]);
    const pdf = await fetch(`${e.apiUrl}/api/v1/invoices/${receipt.id}/pdf`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(pdf.status).toBe(200);

    // The receipt has no journal entry; the payment's one entry is cash against receivables.
    expect(await entries(num(receipt.id))).toEqual([]);
    const saleLines = await entries(num(sale.id));
    const payment = saleLines.filter((l) => l.kind === 'payment');
    expect(payment.map((l) => l.role).sort()).toEqual(['cash', 'receivables']);
    expect(balanced(payment)).toBe(true);
    expect(saleLines.filter((l) => l.kind === 'invoice' && l.role.startsWith('revenue'))).toHaveLength(1);

    // The payment list shows the receipt; a second request under the same key replays it.
    const list = await api(e, 'GET', `/api/v1/invoices/${sale.id}/payments`, s.key);
    expect(list.json.data[0].receipt).toEqual(res.json.receipt);
  });

  it("a receipt of an exonerated sale carries the payment's share of the IVA less the exoneration", async () => {
    // Laptop 100,000 at 13 % with 8 points exonerated (IVA 13,000, exonerated 8,000, net 5,000) and
    // consulting 100,000 at 13 %: total 218,000. Half of it is paid.
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli(s.client.id),
      condition: 'credito_30',
      lines: [
        {
          service_id: srv(s.laptop.id),
          qty: 1,
          unit_price: '100000.00',
          exoneration: {
            doc_type: '03',
            number: 'AL-00012345-24',
            institution: '01',
            issued_at: '2026-01-15',
            rate: '8',
          },
        },
        { service_id: srv(s.consulting.id), qty: 1, unit_price: '100000.00' },
      ],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.total).toBe('218000.00');
    const sale = await waitForStatus(res.json.id, ['aceptada']);
    const pay = await api(e, 'POST', `/api/v1/invoices/${sale.id}/payments`, s.key, {
      amount: '109000.00',
      method: 'transferencia',
      issue_receipt: true,
    });
    expect(pay.status, JSON.stringify(pay.json)).toBe(201);
    const receipt = await waitForStatus(pay.json.receipt.id, ['aceptada', 'rechazada']);
    expect(receipt.status, JSON.stringify(receipt.rejection_reason)).toBe('aceptada');
    expect(receipt.total).toBe('109000.00');

    const xml = await signedXml(receipt.id);
    const lines = [...xml.matchAll(/<LineaDetalle>([\s\S]*?)<\/LineaDetalle>/g)].map((m) => m[1]!);
    const figures = lines.map((l) =>
      ['SubTotal', 'Monto', 'ImpuestoNeto', 'MontoTotalLinea'].map(
        (f) => new RegExp(`<${f}>([^<]+)</${f}>`).exec(l)![1],
      ),
    );
    // The exonerated sale's half: IVA 6,500 at the rate, 2,500 net of the exoneration; the other's
    // half at the full 13 %.
    expect(figures).toEqual([
      ['50000.00000', '6500.00000', '2500.00000', '52500.00000'],
      ['50000.00000', '6500.00000', '6500.00000', '56500.00000'],
    ]);
    expect(xml).not.toContain('<Exoneracion>');
    expect(xml).toContain('<TotalImpuesto>9000.00000</TotalImpuesto>');
    expect(xml).toContain('<TotalComprobante>109000.00000</TotalComprobante>');
    const schema = await validateXml('ReciboElectronicoPago', xml);
    expect(schema.errors).toEqual([]);
    expect(ruleRows(receiptRule, '10', xml)).toEqual([]);
    // The simulator refuses a net tax above the tax.
    expect(
      ruleRows(
        receiptRule,
        '10',
        xml.replace('<ImpuestoNeto>2500.00000</ImpuestoNeto>', '<ImpuestoNeto>7500.00000</ImpuestoNeto>'),
      ),
    ).toContain(-290);
  });

  it('a sale to the State on credit is settled with CondicionVenta 09', async () => {
    const sale = await acceptedCreditSale('servicios_estado_credito');
    const res = await api(e, 'POST', `/api/v1/invoices/${sale.id}/payments`, s.key, {
      amount: '113000.00',
      method: 'transferencia',
      issue_receipt: true,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.invoice_payment_status).toBe('paid');
    const receipt = await waitForStatus(res.json.receipt.id, ['aceptada', 'rechazada']);
    expect(receipt.status, JSON.stringify(receipt.rejection_reason)).toBe('aceptada');
    expect(await signedXml(receipt.id)).toContain('<CondicionVenta>09</CondicionVenta>');
  });
});
