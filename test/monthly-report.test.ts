// The monthly report for the IVA return (D-104): documents issued through the API and accepted by
// the Hacienda simulator (facturas at 13 %, 4 %, 1 %, exempt and exonerated, a dollar invoice,
// a tiquete, a credit and a debit note, one rejected by the simulator), received documents
// answered accepted / partially accepted / rejected (answers accepted by the simulator), another
// company's and another mode's documents. After acceptance the test moves issue dates into March
// 2026 by SQL (the simulator only takes documents issued now), including the Costa Rica month
// boundaries, and moves one document to live mode. The report's figures must equal the sums the
// test makes itself from the invoices' own JSON (lines, taxes, exonerations, exchange rate),
// the CSV and XLSX must carry the same figures, and the ZIP every stored signed XML byte for byte.
import { Decimal } from 'decimal.js';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, seedIssuer, startE2E, waitForDocumentStatus, type E2E } from './helpers/e2e.ts';
import { clientFor, pollUntilTerminal, submission } from './helpers/hacienda-fixtures.ts';
import { SUPPLIER, supplierInvoice } from './helpers/supplier-documents.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let other: Awaited<ReturnType<typeof seedIssuer>>;
const MARCH = new Date('2026-03-15T15:00:00Z');
const docs: Record<string, any> = {};
const received: Record<string, any> = {};

const ref = (prefix: string, id: number) => `${prefix}_${String(id).padStart(12, '0')}`;
const idOf = (publicId: string) => Number(publicId.slice(4));

async function service(rate: string, price: string) {
  const res = await api(e, 'POST', '/api/v1/services', s.key, {
    cabys: '8314100000200',
    description: `Servicio tarifa ${rate}`,
    unit: 'Sp',
    tax_code: '01',
    iva_rate_code: rate,
    price,
  });
  expect(res.status).toBe(201);
  return res.json.id as string;
}

async function issue(path: string, body: unknown, key = s.key, status = 'aceptada') {
  const res = await api(e, 'POST', path, key, body);
  expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
  // Generous: the documents are issued together, so one may wait for all the others.
  return waitForDocumentStatus(e, key, res.json.id, [status], 90_000);
}

async function placeIn(id: string, at: Date) {
  await e
    .db('invoices')
    .where({ id: idOf(id) })
    .update({ issuedAt: at });
}

async function receive(n: number, answer: Record<string, string>) {
  const company = { idType: '02', idNumber: s.company.idNumber, name: s.company.legalName! };
  const f = await supplierInvoice(n, company);
  const { client } = clientFor({
    app: e.sim,
    origin: e.simUrl,
    sandbox: {
      idpUrl: `${e.simUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
      apiUrl: `${e.simUrl}/recepcion-sandbox/v1`,
      clientId: 'api-stag',
    },
  });
  await client.submit(
    submission(f, f.xml, {
      emisor: { tipoIdentificacion: SUPPLIER.idType, numeroIdentificacion: SUPPLIER.idNumber },
      receptor: { tipoIdentificacion: '02', numeroIdentificacion: s.company.idNumber },
    }),
  );
  expect((await pollUntilTerminal(client, f.clave)).state).toBe('aceptado');
  const posted = await api(e, 'POST', '/api/v1/received_documents', s.key, {
    xml_base64: Buffer.from(f.xml).toString('base64'),
  });
  expect(posted.status).toBe(201);
  const res = await api(e, 'POST', `/api/v1/received_documents/${posted.json.id}/answer`, s.key, answer);
  expect(res.status).toBe(202);
  let doc: any;
  await waitFor(
    async () => {
      doc = (await api(e, 'GET', `/api/v1/received_documents/${posted.json.id}`, s.key)).json;
      return doc.answer?.status === 'aceptada';
    },
    30_000,
    100,
    'the answer to be accepted',
  );
  await e
    .db('received_documents')
    .where({ id: idOf(doc.id) })
    .update({ issuedAt: MARCH });
  return { ...doc, xml: f.xml };
}

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  other = await seedIssuer(e.db, e.config, '3101999888');
  const [four, one] = [await service('04', '20000.00'), await service('02', '15000.00')];
  const client = ref('cli', s.client.id);
  const laptop = ref('srv', s.laptop.id);
  const exoneration = { doc_type: '08', number: 'ZF-2026-0042', institution: '04', issued_at: '2026-01-15' };
  // The documents are independent of each other (the notes only of their invoice): issued together.
  const issued = {
    rates: issue('/api/v1/invoices', {
      client_id: client,
      lines: [
        { service_id: laptop, qty: 1 },
        { service_id: four, qty: 2 },
        { service_id: one, qty: 3, discount: { amount: '1500' } },
        { service_id: ref('srv', s.exempt.id), qty: 2 },
      ],
    }),
    exonerated: issue('/api/v1/invoices', {
      client_id: client,
      lines: [
        { service_id: laptop, qty: 1, exoneration: { ...exoneration, rate: '13' } },
        { service_id: ref('srv', s.consulting.id), qty: 300, exoneration: { ...exoneration, rate: '4' } },
      ],
    }),
    usd: issue('/api/v1/invoices', {
      client_id: client,
      currency: 'USD',
      exchange_rate: '512.35',
      lines: [{ service_id: ref('srv', s.consulting.id), qty: 7, unit_price: '120.37' }],
    }),
    tiquete: issue('/api/v1/invoices', {
      document_type: '04',
      payment_method: 'efectivo',
      lines: [{ service_id: laptop, qty: 2 }],
    }),
    lastEvening: issue('/api/v1/invoices', { client_id: client, lines: [{ service_id: four, qty: 1 }] }),
    // Outside the month (CR time), in another mode, of another company.
    februaryNight: issue('/api/v1/invoices', { client_id: client, lines: [{ service_id: laptop, qty: 5 }] }),
    april: issue('/api/v1/invoices', { client_id: client, lines: [{ service_id: laptop, qty: 6 }] }),
    live: issue('/api/v1/invoices', { client_id: client, lines: [{ service_id: laptop, qty: 7 }] }),
    theirs: issue(
      '/api/v1/invoices',
      {
        client_id: ref('cli', other.client.id),
        lines: [{ service_id: ref('srv', other.laptop.id), qty: 8 }],
      },
      other.key,
    ),
  };
  const notes = {
    credit: issued.usd.then((usd) =>
      issue(`/api/v1/invoices/${usd.id}/credit_notes`, { reason: 'Anulación' }),
    ),
    debit: issued.rates.then((rates) =>
      issue(`/api/v1/invoices/${rates.id}/debit_notes`, {
        reason: 'Intereses por mora',
        lines: [{ line: 1, amount: '10' }],
      }),
    ),
  };
  const all = Object.entries({ ...issued, ...notes });
  (await Promise.all(all.map(([, p]) => p))).forEach((doc, i) => (docs[all[i]![0]] = doc));
  // Rejected: alone, while the simulator rejects everything.
  e.sim.simulator.configure({ forcedRejectionRate: 1 });
  docs.rejected = await issue(
    '/api/v1/invoices',
    { client_id: client, lines: [{ service_id: laptop, qty: 9 }] },
    s.key,
    'rechazada',
  );
  e.sim.simulator.configure({ forcedRejectionRate: 0 });

  for (const k of ['rates', 'exonerated', 'usd', 'tiquete', 'credit', 'debit', 'live', 'theirs', 'rejected'])
    await placeIn(docs[k].id, MARCH);
  // 21:00 of 31 March in Costa Rica is already April in UTC; 21:00 of 28 February is March in UTC.
  await placeIn(docs.lastEvening.id, new Date('2026-04-01T03:00:00Z'));
  await placeIn(docs.februaryNight.id, new Date('2026-03-01T03:00:00Z'));
  await placeIn(docs.april.id, new Date('2026-04-01T06:00:00Z'));
  await e
    .db('invoices')
    .where({ id: idOf(docs.live.id) })
    .update({ livemode: true });

  [received.accepted, received.partial, received.rejected] = await Promise.all([
    receive(1, { result: 'accepted' }),
    receive(2, { result: 'partially_accepted', reason: 'Un monitor llegó dañado', iva_credit: '13000' }),
    receive(3, { result: 'rejected', reason: 'Mercadería no solicitada' }),
  ]);
}, 240_000);

afterAll(async () => {
  await e?.close();
});

const MONTH_DOCS = ['rates', 'exonerated', 'usd', 'tiquete', 'credit', 'debit', 'lastEvening'];
const money = (d: Decimal) => d.toFixed(2, Decimal.ROUND_HALF_UP);

/** The D-104 figures computed here, from the invoices' JSON: line subtotals and taxes × rate. */
function expectedD104(): Record<string, string> {
  const sums: Record<string, Decimal> = {};
  const add = (k: string, v: Decimal) => (sums[k] = (sums[k] ?? new Decimal(0)).plus(v));
  const RATE: Record<string, string> = { '08': '13', '04': '4', '02': '1' };
  for (const k of MONTH_DOCS) {
    const inv = docs[k];
    const sign = inv.document_type === '03' ? -1 : 1;
    for (const line of inv.lines) {
      const iva = line.taxes.find((t: any) => ['01', '07', '08'].includes(t.code));
      const fx = new Decimal(inv.exchange_rate).times(sign);
      const category = iva.exoneration
        ? 'exoneradas'
        : iva.iva_rate_code === '10'
          ? 'exentas'
          : RATE[iva.iva_rate_code]!;
      add(`ventas_${category}`, new Decimal(line.subtotal).times(fx));
      if (RATE[iva.iva_rate_code])
        add(
          `iva_${RATE[iva.iva_rate_code]}`,
          new Decimal(iva.amount).minus(iva.exoneration?.amount ?? 0).times(fx),
        );
    }
  }
  const out = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, money(v)]));
  const devengado = ['iva_13', 'iva_4', 'iva_1'].reduce((a, k) => a.plus(out[k] ?? 0), new Decimal(0));
  const credit = new Decimal(received.accepted.total_tax).plus(13000);
  return {
    ...out,
    iva_devengado: money(devengado),
    iva_acreditable: money(credit),
    saldo: money(devengado.minus(money(credit))),
  };
}

const report = (query: string, key = s.key) => api(e, 'GET', `/api/v1/reports/monthly?${query}`, key);

describe('the monthly report', () => {
  it('figures equal the sums of the documents themselves, placed by Costa Rica time', async () => {
    const res = await report('month=2026-03');
    expect(res.status).toBe(200);
    const r = res.json;
    expect(r).toMatchObject({ object: 'monthly_report', livemode: false, currency: 'CRC', month: '2026-03' });
    const lines = Object.fromEntries(r.d104.map((l: any) => [l.key, l.amount]));
    const expected = expectedD104();
    for (const [k, v] of Object.entries(expected)) expect(lines[k], k).toBe(v);
    for (const k of ['ventas_2', 'ventas_0_5', 'ventas_0', 'ventas_no_sujetas', 'iva_2', 'iva_0_5'])
      expect(lines[k], k).toBe('0.00');
    expect(new Decimal(lines.ventas_exoneradas).gt(0)).toBe(true);
    const credited = docs.credit.lines.reduce(
      (a: Decimal, l: any) => a.plus(new Decimal(l.subtotal).times(docs.credit.exchange_rate)),
      new Decimal(0),
    );
    expect(lines.notas_credito_base).toBe(money(credited));
    expect(credited.gt(0)).toBe(true);
    // Documents per type: the month's accepted ones only, totals as stored × their rate.
    const count = (t: string) => r.documents.find((d: any) => d.document_type === t)?.documents;
    expect([count('01'), count('02'), count('03'), count('04')]).toEqual([4, 1, 1, 1]);
    const facturas = MONTH_DOCS.map((k) => docs[k]).filter((d) => d.document_type === '01');
    const sum = facturas.reduce(
      (a, d) => a.plus(new Decimal(d.totals.total_comprobante).times(d.exchange_rate)),
      new Decimal(0),
    );
    expect(r.documents.find((d: any) => d.document_type === '01').total_comprobante).toBe(money(sum));
    expect(r.documents.find((d: any) => d.document_type === '03').effect).toBe('resta');
    // Received: the partial acceptance credits what its answer declared; the rejection nothing.
    const rec = Object.fromEntries(r.received.map((x: any) => [x.answer, x]));
    expect(rec.partially_accepted.iva_credit).toBe('13000.00');
    expect(rec.accepted.iva_credit).toBe(money(new Decimal(received.accepted.total_tax)));
    expect(rec.rejected.iva_credit).toBe('0.00');
    expect(r.totals).toMatchObject({ iva_devengado: expected.iva_devengado, saldo: expected.saldo });
  });

  it('other months, modes and companies do not see these documents', async () => {
    const feb = (await report('month=2026-02')).json;
    expect(feb.documents).toEqual([{ ...feb.documents[0], document_type: '01', documents: 1 }]);
    const apr = (await report('month=2026-04')).json;
    expect(apr.documents.map((d: any) => [d.document_type, d.documents])).toEqual([['01', 1]]);
    const theirs = (await report('month=2026-03', other.key)).json;
    expect(theirs.documents.map((d: any) => [d.document_type, d.documents])).toEqual([['01', 1]]);
    expect(theirs.received).toEqual([]);
    const bad = await report('month=2026-13');
    expect(bad.status).toBe(422);
  });

  it('CSV (es-CR) and XLSX carry the same figures as the JSON', async () => {
    const json = (await report('month=2026-03')).json;
    const csv = await report('month=2026-03&format=csv');
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const raw = Buffer.from(
      await (
        await fetch(`${e.apiUrl}/api/v1/reports/monthly?month=2026-03`, {
          headers: { authorization: `Bearer ${s.key}`, accept: 'text/csv' },
        })
      ).arrayBuffer(),
    );
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    for (const l of json.d104)
      expect(csv.text, l.key).toContain(`${l.key};${l.label_es};${l.amount.replace('.', ',')}`);
    expect(csv.text).toContain('Tipo de documento;Efecto;Documentos;Total gravado');
    const xres = await fetch(`${e.apiUrl}/api/v1/reports/monthly?month=2026-03&format=xlsx`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(xres.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.from(await xres.arrayBuffer()) as any);
    expect(book.worksheets.map((w) => w.name)).toEqual([
      'D-104',
      'Documentos',
      'Ventas por tarifa',
      'Otros impuestos',
      'Documentos recibidos',
    ]);
    const sheet = book.getWorksheet('D-104')!;
    json.d104.forEach((l: any, i: number) => {
      const cell = sheet.getRow(i + 2).getCell(3);
      expect(typeof cell.value, l.key).toBe('number');
      expect((cell.value as number).toFixed(2), l.key).toBe(l.amount);
      expect(cell.numFmt).toContain('₡');
    });
    const docsSheet = book.getWorksheet('Documentos')!;
    json.documents.forEach((d: any, i: number) =>
      expect((docsSheet.getRow(i + 2).getCell(14).value as number).toFixed(2)).toBe(d.total_comprobante),
    );
  });

  it('the archive holds every document’s stored signed XML byte for byte, answers, PDFs and the summary', async () => {
    const res = await fetch(`${e.apiUrl}/api/v1/reports/monthly/archive?month=2026-03`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const expected = ['resumen.csv'];
    for (const k of MONTH_DOCS)
      for (const suffix of ['.xml', '-respuesta.xml', '.pdf'])
        expected.push(`emitidos/${docs[k].clave}${suffix}`);
    for (const k of ['accepted', 'partial', 'rejected'])
      for (const suffix of ['.xml', '-mensaje-receptor.xml', '-respuesta.xml'])
        expected.push(`recibidos/${received[k].clave}${suffix}`);
    const names = Object.keys(zip.files).filter((n) => !zip.files[n]!.dir);
    expect(names.sort()).toEqual(expected.sort());
    for (const k of MONTH_DOCS) {
      const stored = await e
        .db('invoice_documents')
        .where({ invoiceId: idOf(docs[k].id) })
        .first('signedXml');
      const inZip = await zip.file(`emitidos/${docs[k].clave}.xml`)!.async('nodebuffer');
      expect(inZip.equals(stored.signedXml), k).toBe(true);
      const pdf = await zip.file(`emitidos/${docs[k].clave}.pdf`)!.async('nodebuffer');
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    }
    const supplier = await zip.file(`recibidos/${received.accepted.clave}.xml`)!.async('string');
    expect(supplier).toBe(received.accepted.xml);
    const summary = await zip.file('resumen.csv')!.async('string');
    expect(summary.replace(/^\uFEFF/, '')).toBe((await report('month=2026-03&format=csv')).text);
  });
});
