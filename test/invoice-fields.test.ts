// The fields a real invoice needs: exonerations per line, several coded discounts, other charges
// (the 10 % service charge computed from the sale, a charge collected for a third party) and
// several payment methods with amounts. (1) The totals of exonerated, multi-rate and other-charges
// documents equal an independent computation written here from the v4.4 formulas (NOTES §4.2-4.3),
// not domain/totals.ts; (2) the simulator refuses a document whose exonerated bucket or
// MontoExoneracion is wrong; (3) through the HTTP API, invoices with each kind of field reach
// `aceptada`, their signed XML is valid against the XSD and their journal entry balances; wrong
// input is refused with 422 naming the field.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeDocumentTotals, type LineInput, type OtherChargeInput } from '../domain/totals.ts';
import { buildClave } from '../domain/clave.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import { checkTotals } from '../simulator/checks/totals.ts';
import { child, children, parseXml, text } from '../simulator/checks/xml-reader.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { EMISORES } from './helpers/invoice-arbitraries.ts';
import { waitFor } from './helpers/wait.ts';
import { acceptedDocument } from './helpers/accepted-document.ts';
import { validateXml } from './helpers/xsd.ts';

const D = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
type Dec = InstanceType<typeof D>;
const r5 = (d: Dec) => d.toDecimalPlaces(5, D.ROUND_HALF_UP);
const f5 = (d: Dec) => d.toFixed(5);

// ---------------------------------------------------------------------------------------------
// An independent computation of the figures (exonerated share of MontoTotal = TarifaExonerada /
// Tarifa; MontoExoneracion on BaseImponible; charges by percentage on TotalVentaNeta).

interface PlainLine {
  qty: string;
  price: string;
  rate: string;
  bucket: 'gravado' | 'exento' | 'noSujeto';
  services: boolean;
  discounts?: ({ amount: string } | { percent: string })[];
  exonerated?: string;
}

function expected(lines: PlainLine[], charges: ({ amount: string } | { percent: string })[] = []) {
  const b = { serv: new Map<string, Dec>(), merc: new Map<string, Dec>() };
  const add = (side: 'serv' | 'merc', k: string, v: Dec) =>
    b[side].set(k, (b[side].get(k) ?? new D(0)).plus(v));
  let venta = new D(0);
  let desc = new D(0);
  let tax = new D(0);
  for (const l of lines) {
    const monto = r5(new D(l.qty).times(l.price));
    let left = monto;
    for (const d of l.discounts ?? []) {
      const amt = 'amount' in d ? new D(d.amount) : r5(left.times(d.percent).div(100));
      left = left.minus(amt);
    }
    const gross = r5(left.times(l.rate).div(100));
    const exo = l.exonerated ? r5(left.times(l.exonerated).div(100)) : new D(0);
    const side = l.services ? 'serv' : 'merc';
    if (l.exonerated) {
      const share = new D(l.exonerated).eq(l.rate) ? monto : r5(monto.times(l.exonerated).div(l.rate));
      add(side, 'exonerado', share);
      if (!share.eq(monto)) add(side, 'gravado', monto.minus(share));
    } else add(side, l.bucket, monto);
    venta = venta.plus(monto);
    desc = desc.plus(monto.minus(left));
    tax = tax.plus(gross).minus(exo);
  }
  const neta = venta.minus(desc);
  const otros = charges.reduce(
    (a, c) => a.plus('amount' in c ? new D(c.amount) : r5(neta.times(c.percent).div(100))),
    new D(0),
  );
  const get = (side: 'serv' | 'merc', k: string) => {
    const v = b[side].get(k);
    return v === undefined ? null : f5(v);
  };
  return {
    totalServGravados: get('serv', 'gravado'),
    totalServExonerado: get('serv', 'exonerado'),
    totalMercanciasGravadas: get('merc', 'gravado'),
    totalMercExonerada: get('merc', 'exonerado'),
    totalMercanciasExentas: get('merc', 'exento'),
    totalVenta: f5(venta),
    totalVentaNeta: f5(neta),
    totalImpuesto: f5(tax),
    totalOtrosCargos: charges.length ? f5(otros) : null,
    totalComprobante: f5(neta.plus(tax).plus(otros)),
  };
}

const exoneration = (rate: string) => ({
  docType: '03' as const,
  number: 'AL-00012345-24',
  institution: '01' as const,
  issuedAt: '2026-01-15T06:00:00.000Z',
  rate,
});

describe('totals of the new fields against an independent computation', () => {
  it('exonerated lines: a full exoneration of goods, a partial one of services, with discounts', () => {
    const lines: LineInput[] = [
      {
        quantity: '2',
        unitPrice: '15000',
        unit: 'Unid',
        ivaRateCode: '08',
        discounts: [{ percent: '10', code: '04' }],
        exoneration: exoneration('13'),
      },
      {
        quantity: '3.5',
        unitPrice: '3333.33333',
        unit: 'Sp',
        ivaRateCode: '08',
        discounts: [
          { amount: '100', code: '99', codeOther: 'Cliente frecuente' },
          { percent: '5', code: '06' },
        ],
        exoneration: exoneration('4'),
      },
    ];
    const t = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' });
    const want = expected([
      {
        qty: '2',
        price: '15000',
        rate: '13',
        bucket: 'gravado',
        services: false,
        discounts: [{ percent: '10' }],
        exonerated: '13',
      },
      {
        qty: '3.5',
        price: '3333.33333',
        rate: '13',
        bucket: 'gravado',
        services: true,
        discounts: [{ amount: '100' }, { percent: '5' }],
        exonerated: '4',
      },
    ]);
    expect(t.summary).toMatchObject(want);
    // Hand figures of the first line: 30000 − 3000 = 27000; IVA 3510, all exonerated.
    expect(t.lines[0]!.taxes[0]!.exoneration!.amount).toBe('3510.00000');
    expect(t.lines[0]!.impuestoNeto).toBe('0.00000');
    expect(t.summary.totalMercanciasGravadas).toBeNull();
    expect(t.summary.totalExonerado).toBe(f5(new D(want.totalServExonerado!).plus(want.totalMercExonerada!)));
  });

  it('several IVA rates, exempt goods and a stated discount code', () => {
    const lines: LineInput[] = [
      { quantity: '1', unitPrice: '1000', unit: 'Unid', ivaRateCode: '08' },
      {
        quantity: '4',
        unitPrice: '250.5',
        unit: 'Unid',
        ivaRateCode: '04',
        discounts: [{ amount: '2', code: '05' }],
      },
      { quantity: '2', unitPrice: '99.99', unit: 'Sp', ivaRateCode: '02' },
      { quantity: '1', unitPrice: '700', unit: 'Kg', ivaRateCode: '10' },
    ];
    const t = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' });
    expect(t.summary).toMatchObject(
      expected([
        { qty: '1', price: '1000', rate: '13', bucket: 'gravado', services: false },
        {
          qty: '4',
          price: '250.5',
          rate: '4',
          bucket: 'gravado',
          services: false,
          discounts: [{ amount: '2' }],
        },
        { qty: '2', price: '99.99', rate: '1', bucket: 'gravado', services: true },
        { qty: '1', price: '700', rate: '0', bucket: 'exento', services: false },
      ]),
    );
    expect(t.summary.totalDesgloseImpuesto.map((d) => d.ivaRateCode)).toEqual(['08', '04', '02', '10']);
  });

  it('other charges: the 10 % service charge on the net sale, a percentage, an amount for a third party', () => {
    const lines: LineInput[] = [
      {
        quantity: '3',
        unitPrice: '4550',
        unit: 'Unid',
        ivaRateCode: '08',
        discounts: [{ percent: '15', code: '06' }],
      },
    ];
    const charges: OtherChargeInput[] = [
      { code: '06' },
      { code: '02', percent: '2.5' },
      {
        code: '04',
        amount: '1200',
        thirdParty: { idType: '02', idNumber: '3101654321', name: 'Parqueo SA' },
      },
    ];
    const t = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1', otherCharges: charges });
    const want = expected(
      [
        {
          qty: '3',
          price: '4550',
          rate: '13',
          bucket: 'gravado',
          services: false,
          discounts: [{ percent: '15' }],
        },
      ],
      [{ percent: '10' }, { percent: '2.5' }, { amount: '1200' }],
    );
    expect(t.summary).toMatchObject(want);
    expect(t.otherCharges.map((c) => [c.code, c.percent, c.detail])).toEqual([
      ['06', '10.00000', 'Impuesto de servicio 10%'],
      ['02', '2.50000', 'Timbre de la Cruz Roja'],
      ['04', null, 'Cobro de un tercero'],
    ]);
  });

  it('payments: one left open takes the rest; stated amounts that do not add up are refused', () => {
    const lines: LineInput[] = [{ quantity: '1', unitPrice: '100.004', unit: 'Unid', ivaRateCode: '08' }];
    const base = { currency: 'CRC' as const, exchangeRate: '1' };
    const t = computeDocumentTotals(lines, {
      ...base,
      payments: [{ type: '02', amount: '50' }, { type: '01' }],
    });
    // 100.004 + 13.00052 = 113.00452
    expect(t.summary.medioPago).toEqual([
      { type: '02', other: null, total: '50.00000' },
      { type: '01', other: null, total: '63.00452' },
    ]);
    // Stated to the centavo (the API's total): the last absorbs the fraction.
    const c = computeDocumentTotals(lines, {
      ...base,
      payments: [
        { type: '02', amount: '100' },
        { type: '99', other: 'Canje de puntos', amount: '13' },
      ],
    });
    expect(c.summary.medioPago?.map((m) => m.total)).toEqual(['100.00000', '13.00452']);
    expect(() =>
      computeDocumentTotals(lines, {
        ...base,
        payments: [
          { type: '02', amount: '100' },
          { type: '01', amount: '12' },
        ],
      }),
    ).toThrow(/payments add up to 112.00/);
  });
});

describe('the simulator recomputes the new buckets', () => {
  it('refuses a wrong TotalMercExonerada and a wrong MontoExoneracion, accepts the right ones', () => {
    const lines = [
      {
        cabys: '4522003990000',
        description: 'Computadora portátil',
        quantity: '1',
        unitPrice: '1000',
        unit: 'Unid' as const,
        ivaRateCode: '08' as const,
        exoneration: exoneration('6.5'),
      },
    ];
    const totals = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' });
    const xml = buildFacturaXml({
      clave: buildClave({
        date: new Date('2027-01-01T12:00:00Z'),
        emisorId: EMISORES[0]!.idNumber,
        consecutivo: '00100001010000000001',
        situacion: '1',
        securityCode: '12345678',
      }),
      consecutivo: '00100001010000000001',
      issuedAt: new Date('2027-01-01T12:00:00Z'),
      proveedorSistemas: '3101765432',
      activityCode: '620100',
      emisor: EMISORES[0]!,
      receptor: { name: 'Juana Pérez', idType: '01', idNumber: '102340567' },
      condicionVenta: '01',
      mediosPago: [{ type: '01' }],
      lines,
      totals,
    });
    expect(checkTotals(parseXml(xml))).toEqual([]);
    expect(totals.summary.totalMercExonerada).toBe('500.00000');
    const wrongBucket = xml
      .replace('<TotalMercanciasGravadas>500.00000<', '<TotalMercanciasGravadas>0.00000<')
      .replace('<TotalMercExonerada>500.00000<', '<TotalMercExonerada>1000.00000<');
    expect(
      checkTotals(parseXml(wrongBucket))
        .map((r) => r.message)
        .join('\n'),
    ).toMatch(/TotalMercanciasGravadas[\s\S]*TotalMercExonerada/);
    const wrongAmount = xml
      .replace('<MontoExoneracion>65.00000<', '<MontoExoneracion>130.00000<')
      .replace('<ImpuestoNeto>65.00000<', '<ImpuestoNeto>0.00000<');
    expect(
      checkTotals(parseXml(wrongAmount))
        .map((r) => r.message)
        .join('\n'),
    ).toMatch(/MontoExoneracion/);
    const tooHigh = xml.replace('<TarifaExonerada>6.50<', '<TarifaExonerada>14.00<');
    expect(
      checkTotals(parseXml(tooHigh))
        .map((r) => r.message)
        .join('\n'),
    ).toMatch(/supera la tarifa/);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the HTTP API to Hacienda (the simulator)

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const ref = (kind: 'cli' | 'srv', id: number) => `${kind}_${String(id).padStart(12, '0')}`;

describe('through the API', () => {
  beforeAll(async () => {
    e = await startE2E();
    s = await seedIssuer(e.db, e.config);
  }, 60_000);
  afterAll(async () => {
    await e?.close();
  });

  async function accepted(body: Record<string, unknown>) {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, body);
    expect(res.status, res.text).toBe(201);
    const doc = await acceptedDocument(e, s.key, res.json.id as string, 'FacturaElectronica');
    expect(doc.lines.reduce((a, l) => a.plus(l.debit), new D(0)).toFixed(2)).toBe(doc.inv.total);
    return { inv: doc.inv, root: doc.root, credited: (role: string) => doc.booked(role) };
  }

  it('an exonerated client with coded discounts (shape A) is accepted, the exonerated totals in their buckets', async () => {
    const { inv, root, credited } = await accepted({
      client_id: ref('cli', s.client.id),
      lines: [
        {
          service_id: ref('srv', s.laptop.id),
          qty: 1,
          discounts: [
            { percent: '10', code: '04', nature: 'Descuento por volumen' },
            { amount: '5000', code: '99', code_other: 'Cliente de la casa' },
          ],
          exoneration: {
            doc_type: '08',
            number: 'ZF-2026-0042',
            institution: '04',
            issued_at: '2026-01-15',
            rate: '13',
          },
        },
        {
          service_id: ref('srv', s.consulting.id),
          qty: 3,
          exoneration: {
            doc_type: '03',
            number: 'AL-00012345-24',
            institution: '01',
            issued_at: '2026-02-01',
            rate: '4',
          },
        },
      ],
    });
    const want = expected([
      {
        qty: '1',
        price: '450000',
        rate: '13',
        bucket: 'gravado',
        services: false,
        discounts: [{ percent: '10' }, { amount: '5000' }],
        exonerated: '13',
      },
      { qty: '3', price: '33.33333', rate: '13', bucket: 'gravado', services: true, exonerated: '4' },
    ]);
    const r = child(root, 'ResumenFactura');
    expect(text(r, 'TotalMercExonerada')).toBe(want.totalMercExonerada);
    expect(text(r, 'TotalServExonerado')).toBe(want.totalServExonerado);
    expect(text(r, 'TotalServGravados')).toBe(want.totalServGravados);
    expect(text(r, 'TotalComprobante')).toBe(want.totalComprobante);
    const first = children(child(root, 'DetalleServicio'), 'LineaDetalle')[0]!;
    expect(children(first, 'Descuento').map((d) => text(d, 'CodigoDescuento'))).toEqual(['04', '99']);
    expect(text(first, 'Impuesto', 'Exoneracion', 'TipoDocumentoEX1')).toBe('08');
    // The exonerated IVA is not owed: IVA payable is only the line's net tax.
    expect(credited('iva_payable')).toBe(new D(want.totalImpuesto).toFixed(2));
    expect(inv.lines[0].discounts.map((d: { code: string }) => d.code)).toEqual(['04', '99']);
    expect(inv.lines[0].taxes[0].exoneration.amount).toBe(
      text(first, 'Impuesto', 'Exoneracion', 'MontoExoneracion'),
    );
  });

  it('other charges (service charge, third party) and several payments (shape B) are accepted', async () => {
    const { inv, root, credited } = await accepted({
      clientId: s.client.uuid,
      lines: [{ serviceId: s.laptop.uuid, qty: 1, price: '20000' }],
      otherCharges: [
        { code: '06' },
        {
          code: '04',
          amount: '2500',
          third_party: { id_type: '02', id_number: '3101654321', name: 'Parqueo Central SA' },
        },
      ],
      payments: [
        { method: 'tarjeta', amount: '10000' },
        { method: 'otros', other: 'Canje de puntos', amount: '500' },
        { method: 'efectivo' },
      ],
    });
    // 20000 + 2600 IVA + 2000 (10 % of 20000) + 2500 = 27100
    const want = expected(
      [{ qty: '1', price: '20000', rate: '13', bucket: 'gravado', services: false }],
      [{ percent: '10' }, { amount: '2500' }],
    );
    expect(want.totalComprobante).toBe('27100.00000');
    const r = child(root, 'ResumenFactura');
    expect(text(r, 'TotalOtrosCargos')).toBe(want.totalOtrosCargos);
    expect(text(r, 'TotalComprobante')).toBe(want.totalComprobante);
    const cargos = children(root, 'OtrosCargos');
    expect(cargos.map((c) => [text(c, 'TipoDocumentoOC'), text(c, 'MontoCargo')])).toEqual([
      ['06', '2000.00000'],
      ['04', '2500.00000'],
    ]);
    expect(text(cargos[1], 'IdentificacionTercero', 'Numero')).toBe('3101654321');
    expect(
      children(r, 'MedioPago').map((m) => [
        text(m, 'TipoMedioPago'),
        text(m, 'TotalMedioPago'),
        text(m, 'MedioPagoOtros'),
      ]),
    ).toEqual([
      ['02', '10000.00000', null],
      ['99', '500.00000', 'Canje de puntos'],
      ['01', '16600.00000', null],
    ]);
    expect(inv.payments.map((p: { method: string; amount: string }) => [p.method, p.amount])).toEqual([
      ['tarjeta', '10000.00'],
      ['otros', '500.00'],
      ['efectivo', '16600.00'],
    ]);
    expect(inv.other_charges[1].third_party.id_number).toBe('3101654321');
    // Charges collected for others (the staff's 10 %, the third party's) are a debt, not revenue.
    expect(credited('third_party_payable')).toBe('4500.00');
    expect(credited('revenue_goods')).toBe('20000.00');
    expect(credited('iva_payable')).toBe('2600.00');

    // The whole document's credit note carries the charges too, with one payment method, and
    // annuls it.
    const note = await api(e, 'POST', `/api/v1/invoices/${inv.id}/credit_notes`, s.key, {
      reason: 'Anulación de la cuenta',
    });
    expect(note.status, note.text).toBe(201);
    expect(note.json.total).toBe('27100.00');
    let done: any;
    await waitFor(
      async () => {
        done = (await api(e, 'GET', `/api/v1/invoices/${note.json.id}`, s.key)).json;
        return ['aceptada', 'rechazada'].includes(done.status);
      },
      30_000,
      100,
      'the credit note to be answered',
    );
    expect(done.status, JSON.stringify(done.rejection_reason)).toBe('aceptada');
    const noteXml = (await api(e, 'GET', `/api/v1/invoices/${note.json.id}/xml`, s.key)).text;
    expect((await validateXml('NotaCreditoElectronica', noteXml)).valid).toBe(true);
    expect(children(parseXml(noteXml), 'OtrosCargos')).toHaveLength(2);
    expect((await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key)).json.annulled).toBe(true);
  });

  it('wrong fields are refused with 422 naming them, and nothing is recorded', async () => {
    const before = Number((await e.db('invoices').count('* as n'))[0]!.n);
    const base = { client_id: ref('cli', s.client.id) };
    const line = { service_id: ref('srv', s.laptop.id), qty: 1 };
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          ...base,
          lines: [
            {
              ...line,
              exoneration: {
                doc_type: '03',
                number: 'AL-1',
                institution: '01',
                issued_at: '2026-01-15',
                rate: '20',
              },
            },
          ],
        },
        '/lines/0/exoneration/rate',
      ],
      [
        {
          ...base,
          lines: [
            {
              ...line,
              exoneration: {
                doc_type: '77',
                number: 'AL-123',
                institution: '01',
                issued_at: 'ayer',
                rate: '13',
              },
            },
          ],
        },
        '/lines/0/exoneration/doc_type',
      ],
      [
        { ...base, lines: [line], other_charges: [{ code: '04', amount: '10' }] },
        '/other_charges/0/third_party',
      ],
      [
        {
          ...base,
          lines: [line],
          other_charges: [
            {
              code: '04',
              amount: '10',
              third_party: { id_number: '3101654321', name: 'Parqueo Central SA' },
            },
          ],
        },
        '/other_charges/0/third_party/id_number',
      ],
      [
        {
          ...base,
          lines: [line],
          payments: [{ method: 'tarjeta', amount: '1000000' }, { method: 'efectivo' }],
        },
        '/payments',
      ],
      [
        {
          ...base,
          lines: [line],
          payments: [
            { method: 'tarjeta', amount: '1' },
            { method: 'efectivo', amount: '1' },
          ],
        },
        '/payments',
      ],
      [
        { ...base, lines: [{ ...line, discounts: [{ percent: '5', code: '01' }] }] },
        '/lines/0/discounts/0/code',
      ],
      [
        { ...base, lines: [line], payments: [{ method: 'efectivo' }], payment_method: 'tarjeta' },
        '/payments',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, body);
      expect(res.status, res.text).toBe(422);
      expect(
        res.json.errors.map((x: { path: string }) => x.path),
        res.text,
      ).toContain(path);
    }
    expect(Number((await e.db('invoices').count('* as n'))[0]!.n)).toBe(before);
  });
});
