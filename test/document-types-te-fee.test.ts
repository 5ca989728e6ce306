// The tiquete electrónico (04) and the factura electrónica de exportación (09) end to end: API →
// sign, submit, accounting, status against the Hacienda simulator; each signed XML checked with
// xmllint against its own XSD and with xmlsec1; the entries balanced; its own consecutivo series;
// events, reads, lists, /xml, /response, /pdf and batch rows; refusals that change nothing; and
// the simulator's own rules for an export that breaks them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { validateXml } from './helpers/xsd.ts';
import { verifyWithXmlsec } from './helpers/xmlsec.ts';
import { api, seedIssuer, startE2E, type E2E, waitForDocumentStatus } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';
import { exportRule } from '../simulator/checks/rules-exports.ts';
import { parseXml } from '../simulator/checks/xml-reader.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
const srv = (id: number) => `srv_${pad(id)}`;
const num = (id: string) => Number(id.slice(4));
let foreign: string;
let goods: string;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  const c = await api(e, 'POST', '/api/v1/clients', s.key, {
    cedula: 'US987654321',
    identification_type: '05',
    name: 'Global Imports LLC',
    email: 'ap@global-imports.example',
    foreign_address: '1200 Harbor Blvd, Miami, FL 33132, United States',
  });
  expect(c.status).toBe(201);
  expect(c.json.foreign_address).toBe('1200 Harbor Blvd, Miami, FL 33132, United States');
  foreign = c.json.id;
  const g = await api(e, 'POST', '/api/v1/services', s.key, {
    cabys: '0111100000100',
    description: 'Café en grano verde',
    unit: 'Kg',
    tax_code: '01',
    iva_rate_code: '02',
    price: '4.25',
  });
  expect(g.status).toBe(201);
  goods = g.json.id;
});
afterAll(async () => {
  await e.close();
});

const waitForStatus = (id: string, statuses: string[], timeoutMs = 20_000) =>
  waitForDocumentStatus(e, s.key, id, statuses, timeoutMs);

async function signedXml(id: string): Promise<string> {
  const res = await api(e, 'GET', `/api/v1/invoices/${id}/xml`, s.key);
  expect(res.status).toBe(200);
  return res.text;
}

/** Journal lines of the document, and whether every entry balances. */
async function balanced(id: string) {
  const lines = await e
    .db('journal_entries as e')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .join('accounts as a', 'a.id', 'l.account_id')
    .where('e.invoice_id', num(id))
    .select('e.id', 'e.kind', 'e.description', 'a.role', 'l.debit', 'l.credit');
  const byEntry = new Map<number, Decimal>();
  for (const l of lines)
    byEntry.set(l.id, (byEntry.get(l.id) ?? new Decimal(0)).plus(l.debit).minus(l.credit));
  return { lines, balanced: [...byEntry.values()].every((d) => d.isZero()), entries: byEntry.size };
}

async function written() {
  const [inv, series, events, clients] = await Promise.all([
    e.db('invoices').count('* as n').first(),
    e.db('numbering_series').sum('last_number as n').first(),
    e.db('events').count('* as n').first(),
    e.db('clients').count('* as n').first(),
  ]);
  return [Number(inv!.n), Number(series!.n), Number(events!.n), Number(clients!.n)];
}

describe('tiquete electrónico (04)', () => {
  it('without a receptor: issued, accepted, valid against its XSD, signed, booked and paid at issue', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '04',
      payment_method: 'tarjeta',
      lines: [{ service_id: srv(s.laptop.id), qty: 1 }],
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ document_type: '04', client_id: null, total: '508500.00' });
    // Its own series: tipo 04 in positions 9-10 of the consecutivo, number 1 of that series.
    expect(res.json.consecutivo).toMatch(/^\d{8}04\d{10}$/);
    expect(res.json.consecutivo.slice(10)).toBe('0000000001');
    expect(res.json.clave.slice(29, 31)).toBe('04');
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status).toBe('aceptada');

    const xml = await signedXml(res.json.id);
    expect(xml).toContain(
      '<TiqueteElectronico xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/tiqueteElectronico"',
    );
    expect(xml).not.toContain('<Receptor>');
    expect(await validateXml('TiqueteElectronico', xml)).toEqual({ valid: true, errors: [] });
    expect((await verifyWithXmlsec(xml)).valid).toBe(true);
    const answer = await api(e, 'GET', `/api/v1/invoices/${res.json.id}/response`, s.key);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(res.json.clave);

    await waitFor(async () => (await balanced(res.json.id)).entries >= 2, 10_000);
    const book = await balanced(res.json.id);
    expect(book.balanced).toBe(true);
    expect(book.lines.map((l: any) => l.kind).sort()).toEqual(expect.arrayContaining(['invoice', 'payment']));
    const issued = book.lines.filter((l: any) => l.kind === 'invoice').map((l: any) => l.description);
    expect(new Set(issued)).toEqual(new Set([`Tiquete electrónico ${res.json.consecutivo}`]));
    const paid = await waitForStatus(res.json.id, ['aceptada']);
    expect(paid.payment_status).toBe('paid');
    const payment = await e
      .db('payments')
      .where({ invoiceId: num(res.json.id) })
      .first();
    expect(payment.clientId).toBeNull();

    const pdf = await api(e, 'GET', `/api/v1/invoices/${res.json.id}/pdf`, s.key);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toContain('application/pdf');
    const events = await e.db('events').where({ type: 'invoice.accepted' });
    const ev = events.find((x: any) => x.data.id === res.json.id);
    expect(ev?.data).toMatchObject({ document_type: '04', client_id: null });
    const list = await api(e, 'GET', '/api/v1/invoices?document_type=04', s.key);
    expect(list.json.data.map((x: any) => x.id)).toContain(res.json.id);
    expect(list.json.data.every((x: any) => x.document_type === '04')).toBe(true);
  });

  it('with a client: its receptor is written, without CodigoActividadReceptor', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '04',
      client_id: `cli_${pad(s.client.id)}`,
      lines: [{ service_id: srv(s.exempt.id), qty: 2 }],
    });
    expect(res.status).toBe(201);
    expect(res.json.consecutivo.slice(8, 10)).toBe('04');
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status).toBe('aceptada');
    const xml = await signedXml(res.json.id);
    expect(xml).toMatch(/<Receptor>\s*<Nombre>Juana Pérez Mora<\/Nombre>/);
    expect(xml).not.toContain('CodigoActividadReceptor');
    expect(await validateXml('TiqueteElectronico', xml)).toEqual({ valid: true, errors: [] });
    expect((await balanced(res.json.id)).balanced).toBe(true);
  });

  it('refuses what a tiquete cannot be, with problem+json, and writes nothing', async () => {
    const before = await written();
    const cases: [Record<string, unknown>, string, string][] = [
      // No receptor and on credit: nobody would owe it.
      [{ document_type: '04', condition: 'credito_30' }, '/client_id', 'client_required'],
      [{ document_type: '04', paid_at_issue: false }, '/client_id', 'client_required'],
      // 12 (mercancía no nacionalizada) is an FE condition the TE schema excludes.
      [
        { document_type: '04', client_id: `cli_${pad(s.client.id)}`, condition: '12' },
        '/condition',
        'invalid_condition',
      ],
      [{ document_type: '07' }, '/document_type', 'invalid_value'],
      [
        {
          document_type: '04',
          lines: [{ service_id: srv(s.laptop.id), qty: 1, tariff_code: '847130000000' }],
        },
        '/lines/0/tariff_code',
        'not_applicable',
      ],
      // A factura still needs its receptor.
      [{}, '/client_id', 'required'],
    ];
    for (const [extra, path, code] of cases) {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
        lines: [{ service_id: srv(s.laptop.id), qty: 1 }],
        ...extra,
      });
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.errors, JSON.stringify(res.json)).toContainEqual(
        expect.objectContaining({ path, code }),
      );
    }
    expect(await written()).toEqual(before);
  });
});

describe('factura electrónica de exportación (09)', () => {
  it('to a foreign receptor: issued at 0%, accepted, valid against the FEE XSD, signed and booked', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '09',
      client_id: foreign,
      currency: 'USD',
      exchange_rate: '505.20',
      condition: 'credito_30',
      lines: [
        { service_id: goods, qty: 1000, unit_price: '4.25', tariff_code: '090111000000' },
        { service_id: srv(s.consulting.id), qty: 10, unit_price: '80' },
      ],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    // Exports carry IVA at 0% (rate code 01) whatever the catalogue's rate: no tax on the total.
    expect(res.json).toMatchObject({ document_type: '09', client_id: foreign, total: '5050.00' });
    expect(res.json.consecutivo.slice(8, 10)).toBe('09');
    expect(res.json.consecutivo.slice(10)).toBe('0000000001');
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status, JSON.stringify(done.rejection_reason ?? done.processing_error)).toBe('aceptada');

    const xml = await signedXml(res.json.id);
    expect(xml).toContain(
      '<FacturaElectronicaExportacion xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronicaExportacion"',
    );
    expect(xml).toContain(
      '<OtrasSenasExtranjero>1200 Harbor Blvd, Miami, FL 33132, United States</OtrasSenasExtranjero>',
    );
    expect(xml).toMatch(
      /<Receptor>\s*<Nombre>Global Imports LLC<\/Nombre>\s*<Identificacion>\s*<Tipo>05<\/Tipo>\s*<Numero>US987654321<\/Numero>/,
    );
    expect(xml).toContain('<PartidaArancelaria>090111000000</PartidaArancelaria>');
    expect(xml.match(/<Receptor>[\s\S]*?<\/Receptor>/)![0]).not.toContain('Ubicacion');
    expect(xml).not.toContain('BaseImponible');
    expect(xml).toContain('<CodigoTarifaIVA>01</CodigoTarifaIVA>');
    expect(xml).not.toContain('<CodigoTarifaIVA>02</CodigoTarifaIVA>');
    expect(await validateXml('FacturaElectronicaExportacion', xml)).toEqual({ valid: true, errors: [] });
    // The same document is not a FacturaElectronica.
    expect((await validateXml('FacturaElectronica', xml)).valid).toBe(false);
    expect((await verifyWithXmlsec(xml)).valid).toBe(true);
    expect((await api(e, 'GET', `/api/v1/invoices/${res.json.id}/response`, s.key)).status).toBe(200);

    await waitFor(async () => (await balanced(res.json.id)).entries >= 1, 10_000);
    const book = await balanced(res.json.id);
    expect(book.balanced).toBe(true);
    // Receivable against revenue only: no IVA on an export. 5050 USD × 505.20 = 2,551,260.00 CRC.
    const receivable = book.lines.find((l: any) => l.role === 'receivables');
    expect(new Decimal(receivable.debit).toFixed(2)).toBe('2551260.00');
    expect(receivable.description).toBe(`Factura electrónica de exportación ${res.json.consecutivo}`);
    const client = await e
      .db('clients')
      .where({ id: num(foreign) })
      .first();
    expect(new Decimal(client.balance).toFixed(2)).toBe('2551260.00');
  });

  it('a factura to a foreign client writes its foreign address beside the Costa Rican schema', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: foreign,
      lines: [{ service_id: srv(s.exempt.id), qty: 1 }],
    });
    expect(res.status).toBe(201);
    await waitForStatus(res.json.id, ['aceptada']);
    const xml = await signedXml(res.json.id);
    expect(xml).toContain('<OtrasSenasExtranjero>1200 Harbor Blvd');
    expect(await validateXml('FacturaElectronica', xml)).toEqual({ valid: true, errors: [] });
  });

  it('refuses an export without a foreign receptor or with another tax, and writes nothing', async () => {
    const local = `cli_${pad(s.client.id)}`;
    const before = await written();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ document_type: '09' }, '/client_id', 'required'],
      [{ document_type: '09', client_id: local }, '/client_id', 'foreign_receptor_required'],
      [{ document_type: '09', client_id: local }, '/client_id', 'foreign_address_required'],
      [{ document_type: '09', client_id: foreign, condition: '12' }, '/condition', 'invalid_condition'],
      [
        {
          document_type: '09',
          client_id: foreign,
          lines: [{ service_id: goods, qty: 1, tariff_code: '0901' }],
        },
        '/lines/0/tariff_code',
        'invalid_format',
      ],
    ];
    for (const [extra, path, code] of cases) {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
        lines: [{ service_id: goods, qty: 1 }],
        ...extra,
      });
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.errors, JSON.stringify(res.json)).toContainEqual(
        expect.objectContaining({ path, code }),
      );
    }
    const badClient = await api(e, 'POST', '/api/v1/clients', s.key, {
      cedula: 'DE12345',
      identification_type: '05',
      name: 'Kurz GmbH',
      foreign_address: 'abc',
    });
    expect(badClient.status).toBe(422);
    expect(badClient.json.errors).toContainEqual(expect.objectContaining({ path: '/foreign_address' }));
    expect(await written()).toEqual(before);
  });

  it('the simulator rejects an export that breaks its rules', () => {
    const fee = (receptor: string, line: string) =>
      parseXml(
        `<FacturaElectronicaExportacion xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronicaExportacion">${receptor}<DetalleServicio><LineaDetalle><NumeroLinea>1</NumeroLinea>${line}</LineaDetalle></DetalleServicio></FacturaElectronicaExportacion>`,
      );
    const ok =
      '<Impuesto><Codigo>01</Codigo><CodigoTarifaIVA>01</CodigoTarifaIVA><Tarifa>0.00</Tarifa><Monto>0.00000</Monto></Impuesto>';
    const foreignReceptor =
      '<Receptor><Nombre>Global Imports LLC</Nombre><Identificacion><Tipo>05</Tipo><Numero>US1</Numero></Identificacion><OtrasSenasExtranjero>Miami, FL, USA</OtrasSenasExtranjero></Receptor>';
    const ctx = (root: ReturnType<typeof parseXml>) => ({
      root,
      tipo: '09',
      fechaEmision: null,
      now: Date.now(),
      cabys: null,
      maxDocumentAgeMs: 0,
      maxClockSkewMs: 0,
    });
    expect(exportRule(ctx(fee(foreignReceptor, ok)))).toEqual([]);
    const codes = (root: ReturnType<typeof parseXml>) => exportRule(ctx(root)).map((r) => r.code);
    // The export rules are ours: -1 (Hacienda's -55 is TotalComprobante).
    expect(codes(fee('', ok))).toEqual([-1]);
    expect(
      codes(
        fee(
          '<Receptor><Nombre>Juana</Nombre><Identificacion><Tipo>01</Tipo><Numero>102340567</Numero></Identificacion></Receptor>',
          ok,
        ),
      ),
    ).toEqual([-1, -1]);
    const taxed = ok.replace('<CodigoTarifaIVA>01', '<CodigoTarifaIVA>08').replace('0.00000', '13.00000');
    expect(codes(fee(foreignReceptor, taxed))).toEqual([-1]);
    expect(codes(fee(foreignReceptor, `<PartidaArancelaria>0901AB000000</PartidaArancelaria>${ok}`))).toEqual(
      [-1],
    );
    // A tiquete or a factura is not held to an export's rules.
    expect(exportRule({ ...ctx(fee('', taxed)), tipo: '04' })).toEqual([]);
  });
});

describe('batch rows', () => {
  it('issues tiquetes and exportaciones in a batch, each on its own series', async () => {
    const run = Date.now();
    const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
      invoices: [
        {
          idempotency_key: `te-${run}`,
          document_type: '04',
          lines: [{ service_id: srv(s.exempt.id), qty: 1 }],
        },
        {
          idempotency_key: `fee-${run}`,
          document_type: '09',
          client_id: foreign,
          lines: [{ service_id: goods, qty: 10 }],
        },
        { idempotency_key: `bad-${run}`, document_type: '09', lines: [{ service_id: goods, qty: 1 }] },
      ],
    });
    expect(res.status).toBe(202);
    let b: any;
    await waitFor(async () => {
      b = (await api(e, 'GET', `/api/v1/batches/${res.json.id}`, s.key)).json;
      return b.status === 'completed';
    }, 20_000);
    expect(b.counts).toMatchObject({ created: 2, failed: 1 });
    expect(b.items[2].error.errors[0]).toMatchObject({ path: '/client_id', code: 'required' });
    const ids = [b.items[0].invoice.id, b.items[1].invoice.id];
    const docs = await Promise.all(ids.map((id: string) => waitForStatus(id, ['aceptada', 'rechazada'])));
    expect(docs.map((d) => [d.document_type, d.status])).toEqual([
      ['04', 'aceptada'],
      ['09', 'aceptada'],
    ]);
    expect(docs.map((d) => d.consecutivo.slice(8, 10))).toEqual(['04', '09']);
  });
});

describe('notes referencing a tiquete (04) or an export (09)', () => {
  it('a credit note annuls a tiquete sold to no one: TipoDocIR 04, no receptor, accepted and reversed', async () => {
    const te = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '04',
      payment_method: 'efectivo',
      lines: [{ service_id: srv(s.laptop.id), qty: 1 }],
    });
    expect(te.status).toBe(201);
    expect((await waitForStatus(te.json.id, ['aceptada', 'rechazada'])).status).toBe('aceptada');

    const note = await api(e, 'POST', `/api/v1/invoices/${te.json.id}/credit_notes`, s.key, {
      reason: 'Devolución del tiquete',
    });
    expect(note.status, JSON.stringify(note.json)).toBe(201);
    expect(note.json).toMatchObject({ document_type: '03', client_id: null, total: te.json.total });
    expect(note.json.reference).toMatchObject({ document_type: '04', clave: te.json.clave, code: '01' });
    const done = await waitForStatus(note.json.id, ['aceptada', 'rechazada']);
    expect(done.status, JSON.stringify(done.rejection_reason ?? done.processing_error)).toBe('aceptada');

    const xml = await signedXml(note.json.id);
    expect(xml).toMatch(
      new RegExp(`<InformacionReferencia>\\s*<TipoDocIR>04</TipoDocIR>\\s*<Numero>${te.json.clave}</Numero>`),
    );
    expect(xml).not.toContain('<Receptor>');
    expect(await validateXml('NotaCreditoElectronica', xml)).toEqual({ valid: true, errors: [] });
    expect((await verifyWithXmlsec(xml)).valid).toBe(true);

    const ticket = (await api(e, 'GET', `/api/v1/invoices/${te.json.id}`, s.key)).json;
    expect(ticket.annulled).toBe(true);
    await waitFor(async () => (await balanced(note.json.id)).entries >= 1, 10_000);
    const book = await balanced(note.json.id);
    expect(book.balanced).toBe(true);
    const by = Object.fromEntries(book.lines.map((l: any) => [l.role, l]));
    // The reversal of the tiquete's issue entry: revenue and IVA debited; the tiquete was settled
    // at issue and no client owes it, so the refund is paid out of cash, not off receivables.
    expect(new Decimal(by.revenue_goods.debit).toFixed(2)).toBe('450000.00');
    expect(new Decimal(by.iva_payable.debit).toFixed(2)).toBe('58500.00');
    expect(new Decimal(by.cash.credit).toFixed(2)).toBe('508500.00');
    expect(by.receivables).toBeUndefined();
  });

  it('credit and debit notes of an export: TipoDocIR 19, the foreign receptor, 0% IVA, accepted and booked', async () => {
    const fee = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '09',
      client_id: foreign,
      currency: 'USD',
      exchange_rate: '500',
      condition: 'credito_30',
      lines: [
        { service_id: goods, qty: 100, unit_price: '4.25', tariff_code: '090111000000' },
        { service_id: srv(s.consulting.id), qty: 10, unit_price: '80' },
      ],
    });
    expect(fee.status, JSON.stringify(fee.json)).toBe(201);
    expect((await waitForStatus(fee.json.id, ['aceptada', 'rechazada'])).status).toBe('aceptada');

    const credit = await api(e, 'POST', `/api/v1/invoices/${fee.json.id}/credit_notes`, s.key, {
      reason: 'Devolución de dos horas',
      code: '06',
      lines: [{ line: 2, qty: 2 }],
    });
    expect(credit.status, JSON.stringify(credit.json)).toBe(201);
    expect(credit.json).toMatchObject({ client_id: foreign, currency: 'USD', total: '160.00' });
    expect(credit.json.reference).toMatchObject({ document_type: '19', clave: fee.json.clave, code: '06' });
    const debit = await api(e, 'POST', `/api/v1/invoices/${fee.json.id}/debit_notes`, s.key, {
      reason: 'Flete adicional cobrado',
      lines: [{ line: 1, amount: '20' }],
    });
    expect(debit.status, JSON.stringify(debit.json)).toBe(201);
    expect(debit.json.reference).toMatchObject({ document_type: '19', clave: fee.json.clave });

    for (const [note, root] of [
      [credit.json.id, 'NotaCreditoElectronica'],
      [debit.json.id, 'NotaDebitoElectronica'],
    ] as const) {
      const done = await waitForStatus(note, ['aceptada', 'rechazada']);
      expect(done.status, JSON.stringify(done.rejection_reason ?? done.processing_error)).toBe('aceptada');
      const xml = await signedXml(note);
      expect(xml).toMatch(/<InformacionReferencia>\s*<TipoDocIR>19<\/TipoDocIR>/);
      expect(xml).toMatch(
        /<Receptor>\s*<Nombre>Global Imports LLC<\/Nombre>\s*<Identificacion>\s*<Tipo>05<\/Tipo>/,
      );
      expect(xml).toContain('<OtrasSenasExtranjero>1200 Harbor Blvd');
      expect(xml).toContain('<CodigoTarifaIVA>01</CodigoTarifaIVA>');
      expect(xml).not.toContain('<CodigoTarifaIVA>08</CodigoTarifaIVA>');
      expect(await validateXml(root, xml)).toEqual({ valid: true, errors: [] });
      expect((await verifyWithXmlsec(xml)).valid).toBe(true);
    }
    await waitFor(
      async () =>
        (await balanced(credit.json.id)).entries >= 1 && (await balanced(debit.json.id)).entries >= 1,
      10_000,
    );
    const c = await balanced(credit.json.id);
    expect(c.balanced).toBe(true);
    // 2 hours × USD 80 × 500: services revenue reversed, no IVA either way.
    expect(
      c.lines.map((l: any) => [l.role, new Decimal(l.debit).toFixed(2), new Decimal(l.credit).toFixed(2)]),
    ).toEqual(
      expect.arrayContaining([
        ['revenue_services', '80000.00', '0.00'],
        ['receivables', '0.00', '80000.00'],
      ]),
    );
    expect(c.lines.map((l: any) => l.role)).not.toContain('iva_payable');
    const d = await balanced(debit.json.id);
    expect(d.balanced).toBe(true);
    expect(d.lines.map((l: any) => [l.role, new Decimal(l.debit).toFixed(2)])).toEqual(
      expect.arrayContaining([['receivables', '10000.00']]),
    );
    const after = (await api(e, 'GET', `/api/v1/invoices/${fee.json.id}`, s.key)).json;
    expect(after.credited_total).toBe('160.00');
  });
});
