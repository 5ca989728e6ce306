// One case per rule the service checks on input (domain/field-rules.ts, domain/party-rules.ts,
// domain/invoice-request.ts, domain/totals.ts): the API refuses the request with 422, the rule's
// code and the field, and nothing is written (no number spent). Then the last line behind them:
// a document that fails the XSD anyway (its data changed under the API) is stopped before signing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClave, buildConsecutivo } from '../domain/clave.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let client: string;
let service: string;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  client = `cli_${String(s.client.id).padStart(12, '0')}`;
  service = `srv_${String(s.consulting.id).padStart(12, '0')}`;
}, 60_000);
afterAll(async () => {
  await e?.close();
});

async function counts() {
  const n = async (t: string) => Number((await e.db(t).count('* as n').first())?.n);
  const numbers = await e.db('numbering_series').sum('last_number as n').first();
  return {
    invoices: await n('invoices'),
    clients: await n('clients'),
    services: await n('services'),
    numbers: Number(numbers?.n ?? 0),
  };
}

const line = (patch: Record<string, unknown> = {}) => ({ service_id: 'SRV', qty: 1, ...patch });
const invoice = (patch: Record<string, unknown>) => ({ client_id: 'CLI', lines: [line()], ...patch });
const address = (patch: Record<string, unknown>) => ({
  cedula: '1-0555-0555',
  name: 'Cliente Prueba',
  addresses: [{ provincia: '1', canton: '01', distrito: '01', otras_senas: 'Frente al parque', ...patch }],
});
const newService = (patch: Record<string, unknown>) => ({
  cabys: '8314100000200',
  description: 'Servicio de prueba',
  unit: 'Sp',
  iva_rate_code: '08',
  price: '100',
  ...patch,
});

/** An exoneration of the line's whole IVA (13 %), issued on `issued_at`. */
const exoneration = (issued_at: string) => ({
  doc_type: '03',
  number: 'AL-00012345-24',
  institution: '01',
  issued_at,
  rate: '13',
});
/** Two days ahead: after any document numbered today, in any time zone. */
const LATER = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
const supplier = {
  name: 'Cloud Tools LLC',
  identification: 'US4455667788',
  identification_type: '05',
  foreign_address: '500 Market St, San Francisco, CA, USA',
};
const purchase = (patch: Record<string, unknown>) => ({
  document_type: '08',
  supplier,
  lines: [line()],
  ...patch,
});
/** A credit note of a factura issued before the company used the service. */
const externalNote = (patch: Record<string, unknown>) => {
  const issuedAt = new Date(Date.now() - 30 * 86_400_000);
  const consecutivo = buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number: 77 });
  const clave = buildClave({
    date: issuedAt,
    emisorId: '3101123456',
    consecutivo,
    situacion: '1',
    securityCode: '12345678',
  });
  return {
    reference: { clave, issue_date: issuedAt.toISOString() },
    reason: 'Devolución de un documento anterior',
    client_id: 'CLI',
    lines: [line()],
    ...patch,
  };
};

// [rule, route, body, field, code, message pattern]
type Case = [string, string, Record<string, unknown>, string, string, RegExp?];
const CASES: Case[] = [
  // Invoices: XSD facets of each field.
  ['Detalle ≤ 200 characters', 'invoices', invoice({ lines: [line({ description: 'd'.repeat(201) })] }), '/lines/0/description', 'too_long'],
  ['Detalle ≥ 3 characters once trimmed', 'invoices', invoice({ lines: [line({ description: '  ab  ' })] }), '/lines/0/description', 'too_short'],
  ['Detalle holds XML characters only', 'invoices', invoice({ lines: [line({ description: 'ab\u0007cd' })] }), '/lines/0/description', 'invalid_character'],
  ['CondicionVentaOtros ≤ 100 characters', 'invoices', invoice({ condition: 'otros', condition_other: 'c'.repeat(150) }), '/condition_other', 'too_long'],
  ['Cantidad: 13 integer digits (size named)', 'invoices', invoice({ lines: [line({ qty: 1e20 })] }), '/lines/0/qty', 'out_of_range', /too large: at most 13 integer digits/],
  ['Cantidad: 3 decimals', 'invoices', invoice({ lines: [line({ qty: '1.2345' })] }), '/lines/0/qty', 'invalid_quantity', /at most 3 decimals/],
  ['Cantidad > 0', 'invoices', invoice({ lines: [line({ qty: 0 })] }), '/lines/0/qty', 'out_of_range'],
  ['PrecioUnitario: 5 decimals', 'invoices', invoice({ lines: [line({ unit_price: '1.123456' })] }), '/lines/0/unit_price', 'invalid_price'],
  ['MontoTotal within DecimalDineroType', 'invoices', invoice({ lines: [line({ qty: 1_000_000, unit_price: '9999999999' })] }), '/lines/0', 'amount_too_large'],
  ['TipoCambio within DecimalDineroType', 'invoices', invoice({ currency: 'USD', exchange_rate: 1e20 }), '/exchange_rate', 'out_of_range'],
  ['Entry in colones (amounts × TipoCambio) within numeric(18,5)', 'invoices', invoice({ currency: 'USD', exchange_rate: '1000000000', lines: [line({ unit_price: '20000' })] }), '/exchange_rate', 'amount_too_large', /₡22600000000000\.00/],
  ['NaturalezaDescuento ≤ 80 characters', 'invoices', invoice({ lines: [line({ discount: { percent: '5', nature: 'n'.repeat(81) } })] }), '/lines/0/discount/nature', 'too_long'],
  ['Descuento ≤ 100 %', 'invoices', invoice({ lines: [line({ discount: { percent: '150' } })] }), '/lines/0/discount/percent', 'out_of_range'],
  ['NumeroConsecutivo: sucursal of 3 digits', 'invoices', invoice({ branch: '1' }), '/branch', 'invalid_format'],
  // Invoices: Hacienda's business rules on input.
  ['CondicionVenta 99 needs CondicionVentaOtros', 'invoices', invoice({ condition: 'otros' }), '/condition_other', 'required'],
  ['CondicionVentaOtros only with 99', 'invoices', invoice({ condition_other: 'Trueque de bienes' }), '/condition_other', 'not_applicable'],
  ['TipoMedioPago 99 needs MedioPagoOtros', 'invoices', invoice({ payment_method: 'otros' }), '/payment_method_other', 'required'],
  ['MedioPagoOtros only with 99', 'invoices', invoice({ payment_method_other: 'Canje' }), '/payment_method_other', 'not_applicable'],
  ['MedioPagoOtros ≥ 3 characters', 'invoices', invoice({ payment_method: 'otros', payment_method_other: 'ab' }), '/payment_method_other', 'too_short'],
  ['CodigoDescuento 99 needs CodigoDescuentoOTRO', 'invoices', invoice({ lines: [line({ discount: { percent: '5', code: '99' } })] }), '/lines/0/discount/code_other', 'required'],
  ['PlazoCredito only with credit conditions', 'invoices', invoice({ credit_days: 30 }), '/credit_days', 'invalid_condition'],
  ['PlazoCredito 1 to 99999 days', 'invoices', invoice({ condition: 'credito_0' }), '/condition', 'invalid_condition'],
  ['TipoCambio 1 for CRC', 'invoices', invoice({ currency: 'CRC', exchange_rate: '2' }), '/exchange_rate', 'invalid_exchange_rate'],
  ['TipoCambio required for other currencies', 'invoices', invoice({ currency: 'EUR' }), '/exchange_rate', 'required'],
  ['TipoCambio 1 for a document in colones by default', 'invoices', invoice({ exchange_rate: '500' }), '/exchange_rate', 'invalid_exchange_rate', /colones \(CRC\).*es 1, no 500/],
  ['TipoCambio 1 for a CRC tiquete', 'invoices', invoice({ document_type: '04', exchangeRate: 500 }), '/exchangeRate', 'invalid_exchange_rate'],
  ['TipoCambio 1 for a CRC export', 'invoices', invoice({ document_type: '09', exchange_rate: '505.20' }), '/exchange_rate', 'invalid_exchange_rate'],
  ['TipoCambio 1 for a CRC purchase', 'invoices', purchase({ exchange_rate: '500' }), '/exchange_rate', 'invalid_exchange_rate'],
  ['FechaEmisionEX not after the document', 'invoices', invoice({ lines: [line({ exoneration: exoneration(LATER) })] }), '/lines/0/exoneration/issued_at', 'exoneration_after_document', /posterior/],
  ['FechaEmisionEX not after the document, as a date-time', 'invoices', invoice({ lines: [line({ exoneration: exoneration(`${LATER}T08:00:00-06:00`) })] }), '/lines/0/exoneration/issued_at', 'exoneration_after_document'],
  ['FechaEmisionEX not after a purchase', 'invoices', purchase({ lines: [line({ exoneration: exoneration(LATER) })] }), '/lines/0/exoneration/issued_at', 'exoneration_after_document'],
  ['FechaEmisionEX a real day', 'invoices', invoice({ lines: [line({ exoneration: exoneration('2025-02-30') })] }), '/lines/0/exoneration/issued_at', 'invalid_date'],
  ['FechaEmisionEX of a four-digit year', 'invoices', invoice({ lines: [line({ exoneration: exoneration('0999-12-31') })] }), '/lines/0/exoneration/issued_at', 'invalid_date'],
  // Credit notes of documents issued outside the service: lines and terms as an invoice's.
  ['FechaEmisionEX not after a credit note', 'credit_notes', externalNote({ lines: [line({ exoneration: exoneration(LATER) })] }), '/lines/0/exoneration/issued_at', 'exoneration_after_document'],
  ['TipoCambio 1 for a CRC credit note', 'credit_notes', externalNote({ exchange_rate: '500' }), '/exchange_rate', 'invalid_exchange_rate'],
  // Clients (the Receptor).
  ['Canton in the territorial division', 'clients', address({ canton: '99' }), '/addresses/0/canton', 'unknown_location', /99 is not a cantón of San José/],
  ['Distrito in the territorial division', 'clients', address({ distrito: '99' }), '/addresses/0/distrito', 'unknown_location'],
  ['Provincia 1-7', 'clients', address({ provincia: '8' }), '/addresses/0/provincia', 'invalid_format'],
  ['OtrasSenas ≥ 5 characters once trimmed', 'clients', address({ otras_senas: '  abcd  ' }), '/addresses/0/otras_senas', 'too_short'],
  ['Barrio ≤ 50 characters', 'clients', address({ barrio: 'b'.repeat(51) }), '/addresses/0/barrio', 'too_long'],
  ['Receptor Nombre ≤ 100 characters', 'clients', { cedula: '1-0555-0556', name: 'n'.repeat(101) }, '/name', 'too_long'],
  ['NumTelefono ≥ 100', 'clients', { cedula: '1-0555-0557', name: 'Cliente Prueba', phone: '00000042' }, '/phone', 'out_of_range'],
  ['Identificación by Nota 4', 'clients', { cedula: '0123', name: 'Cliente Prueba', identification_type: '01' }, '/cedula', ''],
  ['CodigoActividad of 6 digits', 'clients', { cedula: '1-0555-0558', name: 'Cliente Prueba', activity_code: '62010' }, '/activity_code', 'invalid_format'],
  ['NombreComercial holds XML characters only', 'clients', { cedula: '1-0555-0559', name: 'Cliente Prueba', commercial_name: 'Tienda\u0001' }, '/commercial_name', 'invalid_character'],
  // Services (a line's catalogue data).
  ['CodigoCABYS of 13 digits', 'services', newService({ cabys: '831410000000' }), '/cabys', 'invalid_format'],
  ['Detalle ≤ 200 characters (service)', 'services', newService({ description: 'd'.repeat(201) }), '/description', 'too_long'],
  ['CodigoComercial ≤ 20 characters', 'services', newService({ commercial_code: 'c'.repeat(21) }), '/commercial_code', 'too_long'],
  ['CodigoTarifaIVA allowed in a factura', 'services', newService({ iva_rate_code: '99' }), '/iva_rate_code', 'invalid_value'],
]; // prettier-ignore

describe('input rules: 422 with the code and the field, nothing written', () => {
  it.each(CASES)('%s', async (_rule, route, raw, field, code, message) => {
    const body = JSON.parse(
      JSON.stringify(raw).replaceAll('"SRV"', `"${service}"`).replaceAll('"CLI"', `"${client}"`),
    );
    const before = await counts();
    const res = await api(e, 'POST', `/api/v1/${route}`, s.key, body);
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    const match = res.json.errors?.find((x: { path: string }) => x.path === field);
    expect(match, res.text).toBeDefined();
    if (code) expect(match.code, res.text).toBe(code);
    if (message) expect(match.message).toMatch(message);
    expect(await counts()).toEqual(before);
  });

  it('the same rules hold for batch items, refused before any number is taken', async () => {
    const before = await counts();
    const items = CASES.filter(([, route]) => route === 'invoices').map(([, , raw], i) => ({
      ...JSON.parse(
        JSON.stringify(raw).replaceAll('"SRV"', `"${service}"`).replaceAll('"CLI"', `"${client}"`),
      ),
      idempotency_key: `rule-${i}`,
    }));
    const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: items });
    // Characters no text may hold refuse the whole body, naming the item's field.
    expect(res.status).toBe(422);
    expect(res.json.errors.map((x: { path: string }) => x.path)).toEqual(['/invoices/2/lines/0/description']);
    const rest = items.filter((_x, i) => i !== 2);
    const ok = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: rest });
    expect(ok.status, ok.text).toBe(202);
    // Items are judged when the batch is received (those needing the catalogue's prices, when the
    // worker prices them): every one fails, with its field.
    let batch: any;
    await waitFor(
      async () => {
        batch = (await api(e, 'GET', `/api/v1/batches/${ok.json.id}`, s.key)).json;
        return batch.status === 'completed';
      },
      30_000,
      100,
      'the batch to complete',
    );
    expect(batch.counts).toMatchObject({ failed: rest.length, created: 0 });
    const invoiceCases = CASES.filter(([, route]) => route === 'invoices').filter((_c, i) => i !== 2);
    batch.items.forEach((item: any, i: number) => {
      expect(item.error.status).toBe(422);
      expect(item.error.errors.map((x: { path: string }) => x.path)).toContain(invoiceCases[i]![3]);
    });
    const after = await counts();
    expect(after.numbers).toBe(before.numbers);
    expect(after.invoices).toBe(before.invoices);
  });
});

describe('the XSD check before signing', () => {
  it('stops a document that fails the XSD: a permanent processing error naming the XSD message, nothing signed or sent', async () => {
    // A draft the API accepted, whose client then changed outside the API (a 2-character name).
    const draft = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: client,
      lines: [{ service_id: service, qty: 1 }],
      send: false,
    });
    expect(draft.status, draft.text).toBe(201);
    await e.db('clients').where({ id: s.client.id }).update({ name: 'AB' });
    try {
      const sent = await api(e, 'POST', `/api/v1/invoices/${draft.json.id}/send`, s.key);
      expect(sent.status, sent.text).toBe(200);
      let inv: any;
      await waitFor(
        async () => {
          inv = (await api(e, 'GET', `/api/v1/invoices/${draft.json.id}`, s.key)).json;
          return inv.processing_error !== null;
        },
        20_000,
        100,
        'the sign job to record its error',
      );
      expect(inv.processing_error).toMatchObject({ step: 'sign', code: 'schema_invalid', permanent: true });
      expect(inv.processing_error.message).toMatch(/fails the v4.4 XSD: .*Nombre.*minLength/);
      expect(inv.status).toBe('pendiente');
      const id = Number(draft.json.id.slice(4));
      expect(
        await e.db('invoice_documents').where({ invoiceId: id }).whereNotNull('signed_xml').first(),
      ).toBeUndefined();
      expect(await e.db('hacienda_submissions').where({ invoiceId: id }).first()).toBeUndefined();
      expect(inv.hacienda.submitted_at).toBeNull();
    } finally {
      await e.db('clients').where({ id: s.client.id }).update({ name: 'Juana Pérez Mora' });
    }
  });
});

describe('an exoneration dated after the document, a CRC rate other than 1: no number spent', () => {
  const numberOf = (r: { json: { consecutivo: string } }) => Number(r.json.consecutivo.slice(10));
  const accepted = async (id: string) => {
    let inv: any;
    await waitFor(
      async () => {
        inv = (await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json;
        return inv.status === 'aceptada' || inv.status === 'rechazada';
      },
      30_000,
      100,
      'Hacienda to answer',
    );
    expect(inv.status, JSON.stringify(inv.rejection_reason)).toBe('aceptada');
  };
  const body = (raw: Record<string, unknown>) =>
    JSON.parse(JSON.stringify(raw).replaceAll('"SRV"', `"${service}"`).replaceAll('"CLI"', `"${client}"`));

  it.each([
    ['factura', (p: Record<string, unknown>) => invoice(p)],
    ['factura de compra', (p: Record<string, unknown>) => purchase(p)],
  ] as const)(
    '%s: the next accepted document takes the number the refused ones would have',
    async (_t, doc) => {
      const past = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const first = await api(
        e,
        'POST',
        '/api/v1/invoices',
        s.key,
        body(doc({ lines: [line({ exoneration: exoneration(past) })] })),
      );
      expect(first.status, first.text).toBe(201);
      await accepted(first.json.id);
      const before = await counts();
      for (const refused of [
        doc({ lines: [line({ exoneration: exoneration(LATER) })] }),
        doc({ exchange_rate: '500' }),
        doc({ currency: 'CRC', exchange_rate: '500' }),
      ]) {
        const res = await api(e, 'POST', '/api/v1/invoices', s.key, body(refused));
        expect(res.status, res.text).toBe(422);
        expect(res.json.code).toBe('validation_failed');
      }
      const batch = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
        invoices: [{ ...body(doc({ exchange_rate: '500' })), idempotency_key: `crc-${_t}` }],
      });
      expect(batch.status, batch.text).toBe(202);
      await waitFor(
        async () =>
          (await api(e, 'GET', `/api/v1/batches/${batch.json.id}`, s.key)).json.status === 'completed',
        30_000,
        100,
        'the batch to complete',
      );
      expect(await counts()).toEqual(before);
      const next = await api(
        e,
        'POST',
        '/api/v1/invoices',
        s.key,
        body(doc({ lines: [line({ exoneration: exoneration(past) })] })),
      );
      expect(next.status, next.text).toBe(201);
      expect(next.json.consecutivo.slice(0, 10)).toBe(first.json.consecutivo.slice(0, 10));
      expect(numberOf(next)).toBe(numberOf(first) + 1);
      await accepted(next.json.id);
    },
  );
});
