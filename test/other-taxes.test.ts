// The taxes of v4.4 beside the IVA: selectivo de consumo (02) with the IVA on top, the specific
// taxes (03 combustibles, 04 bebidas alcohólicas, 05 bebidas envasadas, 06 tabaco), cemento (12),
// otros (99), IVA de bienes usados (08, factor), the tax the issuer assumes and the IVA returned on
// health services paid by card. (1) The totals equal an independent computation written here from
// the XSD annotations, not domain/totals.ts; (2) the simulator refuses a document whose specific
// tax, factor or IVA devuelto is wrong; (3) through the HTTP API, invoices, a tiquete and a credit
// note with these taxes reach `aceptada`, their signed XML is valid against the XSD and verifies
// with xmlsec1, and the journal entry balances with the other taxes in their own liability; wrong
// input is refused with 422, a stable code and the field, and nothing is recorded.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClave } from '../domain/clave.ts';
import { parseId } from '../domain/ids.ts';
import { computeDocumentTotals, ivaReturnedByLine, type LineInput } from '../domain/totals.ts';
import { DomainValidationError } from '../domain/errors.ts';
import { createService } from '../db/queries/services.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import { checkTotals } from '../simulator/checks/totals.ts';
import { child, children, parseXml, text } from '../simulator/checks/xml-reader.ts';
import type { XmlElement } from '../simulator/checks/xml-reader.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { EMISORES } from './helpers/invoice-arbitraries.ts';
import { waitFor } from './helpers/wait.ts';
import { acceptedDocument } from './helpers/accepted-document.ts';
import type { SchemaDocumentType } from '../hacienda/xsd.ts';
import { cabysCatalogue } from '../domain/cabys.ts';

/** Real CABYS codes for generated lines: the catalogue's dairy products (section 22). */
const DAIRY_CABYS = [...cabysCatalogue().items.keys()].filter((c) => c.startsWith('22')).sort();

const D = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
type Dec = InstanceType<typeof D>;
const r5 = (d: Dec) => d.toDecimalPlaces(5, D.ROUND_HALF_UP);
const f5 = (d: Dec) => d.toFixed(5);

// ---------------------------------------------------------------------------------------------
// The independent computation (XSD annotations of BaseImponible, ImpuestoType, ResumenFactura).

type Tax =
  | { code: '02' | '12'; rate: string }
  | { code: '03' | '06'; units: string; perUnit: string }
  | { code: '04'; units: string; percent: string; perUnit: string }
  | { code: '05'; units: string; volume: string; perUnit: string }
  | { code: '99'; amount: string };

interface Sale {
  qty: string;
  price: string;
  /** IVA percent; a factor instead for IVA 08. */
  ivaRate: string;
  factor?: string;
  taxes?: Tax[];
  assumed?: string;
  returned?: boolean;
}

function taxAmount(t: Tax, qty: Dec, subTotal: Dec): Dec {
  switch (t.code) {
    case '02':
    case '12':
      return r5(subTotal.times(t.rate).div(100));
    case '03':
    case '06':
      return r5(qty.times(t.units).times(t.perUnit));
    case '04':
      return r5(qty.times(r5(new D(t.units).times(t.percent).div(100))).times(t.perUnit));
    case '05':
      return r5(qty.times(t.units).div(t.volume).times(t.perUnit));
    case '99':
      return new D(t.amount);
  }
}

function expected(sales: Sale[]) {
  let venta = new D(0);
  let impuesto = new D(0);
  let others = new D(0);
  let devuelto = new D(0);
  let asumido = new D(0);
  const lines = sales.map((l) => {
    const qty = new D(l.qty);
    const subTotal = r5(qty.times(l.price));
    const other = (l.taxes ?? []).map((t) => ({ code: t.code, amount: taxAmount(t, qty, subTotal) }));
    const base = subTotal.plus(
      other
        .filter((t) => ['02', '04', '05', '12'].includes(t.code))
        .reduce((a, t) => a.plus(t.amount), new D(0)),
    );
    const iva = l.factor ? r5(base.times(l.factor)) : r5(base.times(l.ivaRate).div(100));
    const otherSum = other.reduce((a, t) => a.plus(t.amount), new D(0));
    const neto = iva.plus(otherSum).minus(l.assumed ?? 0);
    venta = venta.plus(subTotal);
    impuesto = impuesto.plus(neto);
    others = others.plus(otherSum);
    asumido = asumido.plus(l.assumed ?? 0);
    if (l.returned) devuelto = devuelto.plus(iva);
    return { base: f5(base), iva: f5(iva), other: other.map((t) => [t.code, f5(t.amount)]), neto: f5(neto) };
  });
  return {
    lines,
    totalVenta: f5(venta),
    totalImpuesto: f5(impuesto),
    otherTaxes: others,
    ivaNet: impuesto.minus(others),
    totalImpAsumEmisorFabrica: asumido.gt(0) ? f5(asumido) : null,
    totalIVADevuelto: devuelto.gt(0) ? f5(devuelto) : null,
    totalComprobante: f5(venta.plus(impuesto).minus(devuelto)),
  };
}

const BEER: Tax[] = [
  { code: '02', rate: '10' },
  { code: '04', units: '350', percent: '4.5', perUnit: '4.15' },
];

// ---------------------------------------------------------------------------------------------

describe('the totals of the other taxes', () => {
  it('equal the independent computation for ISC + IVA, specific taxes, cemento, otros and bienes usados', () => {
    const lines: LineInput[] = [
      {
        quantity: '24',
        unitPrice: '900',
        unit: 'Unid',
        ivaRateCode: '08',
        otherTaxes: [
          { code: '02', rate: '10' },
          { code: '04', unitQuantity: '350', alcoholPercent: '4.5', taxPerUnit: '4.15' },
        ],
      },
      {
        quantity: '40.5',
        unitPrice: '812.33',
        unit: 'L',
        ivaRateCode: '10',
        otherTaxes: [{ code: '03', unitQuantity: '1', taxPerUnit: '280.25' }],
      },
      {
        quantity: '6',
        unitPrice: '650',
        unit: 'Unid',
        ivaRateCode: '08',
        otherTaxes: [{ code: '05', unitQuantity: '600', consumptionVolume: '250', taxPerUnit: '20.17' }],
      },
      {
        quantity: '3',
        unitPrice: '2500',
        unit: 'Unid',
        ivaRateCode: '08',
        otherTaxes: [{ code: '06', unitQuantity: '20', taxPerUnit: '1.33' }],
        assumedTax: '100',
      },
      {
        quantity: '10',
        unitPrice: '7300',
        unit: 'Unid',
        ivaRateCode: '08',
        otherTaxes: [
          { code: '12', rate: '5.5' },
          { code: '99', codeOther: 'Impuesto municipal de patente', amount: '150' },
        ],
      },
      {
        quantity: '1',
        unitPrice: '5000000',
        unit: 'Unid',
        ivaRateCode: '08',
        taxCode: '08',
        ivaFactor: '0.035',
      },
    ];
    const t = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' });
    const want = expected([
      { qty: '24', price: '900', ivaRate: '13', taxes: BEER },
      { qty: '40.5', price: '812.33', ivaRate: '0', taxes: [{ code: '03', units: '1', perUnit: '280.25' }] },
      {
        qty: '6',
        price: '650',
        ivaRate: '13',
        taxes: [{ code: '05', units: '600', volume: '250', perUnit: '20.17' }],
      },
      {
        qty: '3',
        price: '2500',
        ivaRate: '13',
        taxes: [{ code: '06', units: '20', perUnit: '1.33' }],
        assumed: '100',
      },
      {
        qty: '10',
        price: '7300',
        ivaRate: '13',
        taxes: [
          { code: '12', rate: '5.5' },
          { code: '99', amount: '150' },
        ],
      },
      { qty: '1', price: '5000000', ivaRate: '13', factor: '0.035' },
    ]);
    t.lines.forEach((l, i) => {
      const w = want.lines[i]!;
      expect(l.baseImponible, `line ${i + 1}`).toBe(w.base);
      expect(l.taxes[0]!.amount, `line ${i + 1} IVA`).toBe(w.iva);
      expect(l.taxes.slice(1).map((x) => [x.code, x.amount])).toEqual(w.other);
      expect(l.impuestoNeto).toBe(w.neto);
    });
    expect(t.summary.totalImpuesto).toBe(want.totalImpuesto);
    expect(t.summary.totalImpAsumEmisorFabrica).toBe(want.totalImpAsumEmisorFabrica);
    expect(t.summary.totalComprobante).toBe(want.totalComprobante);
    // One TotalDesgloseImpuesto row per code (and IVA rate), each the sum of its lines.
    const rows = Object.fromEntries(
      t.summary.totalDesgloseImpuesto.map((d) => [`${d.code}|${d.ivaRateCode ?? ''}`, d.amount]),
    );
    expect(rows['03|']).toBe(want.lines[1]!.other[0]![1]);
    expect(rows['08|08']).toBe(want.lines[5]!.iva);
    expect(Object.keys(rows).sort()).toEqual([
      '01|08',
      '01|10',
      '02|',
      '03|',
      '04|',
      '05|',
      '06|',
      '08|08',
      '12|',
      '99|',
    ]);
    // The fuel line has no IVA: exempt; the others are taxed.
    expect(t.summary.totalMercanciasExentas).toBe('32899.36500');
    expect(checkTotalsOf(lines, t)).toEqual([]);
  });

  it('returns the IVA of a health service (TotalIVADevuelto) and takes it off TotalComprobante', () => {
    const lines: LineInput[] = [
      { quantity: '1', unitPrice: '45000', unit: 'Sp', ivaRateCode: '04', ivaReturned: true },
      { quantity: '2', unitPrice: '3000', unit: 'Unid', ivaRateCode: '08' },
    ];
    const t = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' });
    const want = expected([
      { qty: '1', price: '45000', ivaRate: '4', returned: true },
      { qty: '2', price: '3000', ivaRate: '13' },
    ]);
    expect(t.summary.totalIVADevuelto).toBe('1800.00000');
    expect(t.summary.totalIVADevuelto).toBe(want.totalIVADevuelto);
    expect(t.summary.totalComprobante).toBe(want.totalComprobante);
    expect(t.total).toBe('51780.00');
    expect(checkTotalsOf(lines, t, '02')).toEqual([]);
    // Paid in cash, Hacienda refuses the refund.
    expect(messages(checkTotalsOf(lines, t, '01'))).toMatch(/TotalIVADevuelto solo procede/);
  });

  it('checks the mixed-sale formula when the sale is paid partly by card', () => {
    const lines: LineInput[] = [
      { quantity: '1', unitPrice: '45000', unit: 'Sp', ivaRateCode: '04', ivaReturned: true },
      { quantity: '2', unitPrice: '3000', unit: 'Unid', ivaRateCode: '08' },
    ];
    const card = '12345.67891';
    const t = computeDocumentTotals(lines, {
      currency: 'CRC',
      exchangeRate: '1',
      payments: [{ type: '02', amount: card }, { type: '01' }],
    });
    // 12345.67891 / 45000 × 1800
    expect(t.summary.totalIVADevuelto).toBe(f5(r5(new D(card).times(1800).div(45000))));
    const medios = t.summary.medioPago!.map((m) => ({ type: m.type, total: m.total! }));
    expect(checkTotalsOf(lines, t, medios)).toEqual([]);
    // Without the card amount, or with the whole IVA returned, Hacienda refuses.
    const noCardAmount = facturaOf(lines, t, medios).replace(`<TotalMedioPago>${card}</TotalMedioPago>`, '');
    expect(messages(checkTotals(parseXml(noCardAmount)))).toMatch(/requiere el campo TotalMedioPago/);
    const whole = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' });
    const total = new D(whole.summary.totalComprobante);
    const wrong = checkTotalsOf(lines, whole, [
      { type: '02', total: card },
      { type: '01', total: f5(total.minus(card)) },
    ]);
    expect(messages(wrong)).toMatch(
      /TotalIVADevuelto \(1800.00000\) no coincide con el monto pagado con tarjeta/,
    );
  });

  it("shares a mixed sale's IVA devuelto among its returned lines, adding up to the total", () => {
    const lines: LineInput[] = [
      { quantity: '1', unitPrice: '45000', unit: 'Sp', ivaRateCode: '04', ivaReturned: true },
      { quantity: '3', unitPrice: '10000.33333', unit: 'Sp', ivaRateCode: '04', ivaReturned: true },
      { quantity: '2', unitPrice: '3000', unit: 'Unid', ivaRateCode: '08' },
    ];
    const card = '20000.00001';
    const t = computeDocumentTotals(lines, {
      currency: 'CRC',
      exchangeRate: '1',
      payments: [{ type: '02', amount: card }, { type: '01' }],
    });
    const parts = ivaReturnedByLine(t);
    expect(parts[2]).toBeNull();
    const [a, b] = [new D(parts[0]!), new D(parts[1]!)];
    expect(f5(a.plus(b))).toBe(t.summary.totalIVADevuelto);
    // Each part in proportion to the line's IVA, to the last unit of rounding.
    const iva = t.lines.slice(0, 2).map((l) => new D(l.ivaReturned!));
    const want = iva[0]!.times(t.summary.totalIVADevuelto!).div(iva[0]!.plus(iva[1]!));
    expect(a.minus(want).abs().lte('0.00001')).toBe(true);
    // Paid by card alone, every returned line returns all of its IVA.
    const byCard = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' });
    expect(ivaReturnedByLine(byCard)).toEqual([...byCard.lines.slice(0, 2).map((l) => l.ivaReturned), null]);
  });

  it('refuses every invalid combination with its code and path', () => {
    const line = { quantity: '1', unitPrice: '1000', unit: 'Unid' as const, ivaRateCode: '08' as const };
    const cases: [Partial<LineInput>, string, string, string?][] = [
      [
        { otherTaxes: [{ code: '03', taxPerUnit: '10' } as never] },
        '/lines/0/otherTaxes/0/unitQuantity',
        'required',
      ],
      [
        { otherTaxes: [{ code: '02', rate: '10', taxPerUnit: '1' } as never] },
        '/lines/0/otherTaxes/0/taxPerUnit',
        'not_applicable',
      ],
      [{ otherTaxes: [{ code: '01', rate: '13' } as never] }, '/lines/0/otherTaxes/0/code', 'not_allowed'],
      [{ otherTaxes: [{ code: '09' } as never] }, '/lines/0/otherTaxes/0/code', 'unknown_code'],
      [
        {
          otherTaxes: [
            { code: '02', rate: '10' },
            { code: '02', rate: '5' },
          ],
        },
        '/lines/0/otherTaxes/1/code',
        'duplicate_tax',
      ],
      [{ otherTaxes: [{ code: '99', amount: '5' }] }, '/lines/0/otherTaxes/0/codeOther', 'required'],
      [
        { otherTaxes: [{ code: '99', codeOther: 'Municipal', rate: '1', amount: '5' }] },
        '/lines/0/otherTaxes/0',
        'invalid_tax',
      ],
      [{ otherTaxes: [{ code: '02', rate: '10.123' }] }, '/lines/0/otherTaxes/0/rate', 'too_many_decimals'],
      [
        { otherTaxes: [{ code: '05', unitQuantity: '600', taxPerUnit: '1' }] },
        '/lines/0/otherTaxes/0/consumptionVolume',
        'required',
      ],
      [{ taxCode: '08' }, '/lines/0/ivaFactor', 'required'],
      [{ ivaFactor: '0.5' }, '/lines/0/ivaFactor', 'not_applicable'],
      [{ taxCode: '08', ivaFactor: '12.5' }, '/lines/0/ivaFactor', 'out_of_range'],
      [{ taxCode: '02' }, '/lines/0/taxCode', 'not_allowed'],
      [{ taxableBase: '900' }, '/lines/0/taxableBase', 'not_applicable'],
      [{ ivaCollectedAtFactory: '02' }, '/lines/0/otherTaxes', 'tax_required'],
      [{ assumedTax: '500' }, '/lines/0/assumedTax', 'assumed_exceeds_tax'],
      [{ ivaReturned: true, assumedTax: '1' }, '/lines/0/ivaReturned', 'conflicting_fields'],
      [{ ivaReturned: true, ivaRateCode: '10' }, '/lines/0/ivaReturned', 'not_allowed'],
      [
        { otherTaxes: [{ code: '04', unitQuantity: '350', alcoholPercent: '4', taxPerUnit: '1' }] },
        '/lines/0/otherTaxes/0/code',
        'not_allowed',
        '08',
      ],
      [{ otherTaxes: [{ code: '02', rate: '10' }] }, '/lines/0/otherTaxes', 'not_allowed', '09'],
      [{ ivaCollectedAtFactory: '01' }, '/lines/0/ivaCollectedAtFactory', 'not_allowed', '08'],
      [{ assumedTax: '1' }, '/lines/0/assumedTax', 'not_allowed', '08'],
    ];
    for (const [extra, path, code, docType] of cases) {
      let caught: unknown;
      try {
        computeDocumentTotals([{ ...line, ...extra } as LineInput], {
          currency: 'CRC',
          exchangeRate: '1',
          docType: (docType ?? '01') as never,
        });
      } catch (err) {
        caught = err;
      }
      expect(caught, `${path} ${code}`).toBeInstanceOf(DomainValidationError);
      expect((caught as DomainValidationError).errors, JSON.stringify(extra)).toContainEqual(
        expect.objectContaining({ path, code }),
      );
    }
  });
});

type Medios = string | { type: string; total?: string }[];
function facturaOf(
  lines: LineInput[],
  totals: ReturnType<typeof computeDocumentTotals>,
  medio: Medios = '01',
) {
  return buildFacturaXml({
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
    mediosPago: (typeof medio === 'string' ? [{ type: medio }] : medio) as never,
    lines: lines.map((l, i) => ({
      ...l,
      cabys: DAIRY_CABYS[i % DAIRY_CABYS.length]!,
      description: 'Artículo',
    })),
    totals,
  });
}
const checkTotalsOf = (
  lines: LineInput[],
  t: ReturnType<typeof computeDocumentTotals>,
  medio: Medios = '01',
) => checkTotals(parseXml(facturaOf(lines, t, medio)));
const messages = (rows: { message: string }[]) => rows.map((r) => r.message).join('\n');

describe('the simulator recomputes the other taxes', () => {
  const lines: LineInput[] = [
    {
      quantity: '40',
      unitPrice: '800',
      unit: 'L',
      ivaRateCode: '10',
      otherTaxes: [{ code: '03', unitQuantity: '1', taxPerUnit: '280.25' }],
    },
    {
      quantity: '1',
      unitPrice: '5000000',
      unit: 'Unid',
      ivaRateCode: '08',
      taxCode: '08',
      ivaFactor: '0.035',
    },
    {
      quantity: '24',
      unitPrice: '900',
      unit: 'Unid',
      ivaRateCode: '08',
      otherTaxes: [{ code: '02', rate: '10' }],
    },
  ];
  const t = computeDocumentTotals(lines, { currency: 'CRC', exchangeRate: '1' });
  const xml = facturaOf(lines, t);

  it('accepts the right figures', () => {
    expect(checkTotals(parseXml(xml))).toEqual([]);
  });
  it('refuses a wrong specific tax, a missing DatosImpuestoEspecifico, a wrong factor and a wrong base', () => {
    // 40 L × 280.25 = 11210; the line's net tax and total move with it, so only Monto is wrong.
    const fuel = xml.replace('<Monto>11210.00000<', '<Monto>11200.00000<');
    expect(messages(checkTotals(parseXml(fuel)))).toMatch(/Monto del impuesto 03 de la línea 1/);
    const noData = xml.replace(/<DatosImpuestoEspecifico>[\s\S]*?<\/DatosImpuestoEspecifico>/, '');
    expect(messages(checkTotals(parseXml(noData)))).toMatch(/requiere el nodo DatosImpuestoEspecifico/);
    const factor = xml.replace('<FactorCalculoIVA>0.0350<', '<FactorCalculoIVA>0.0400<');
    expect(messages(checkTotals(parseXml(factor)))).toMatch(/BaseImponible × FactorCalculoIVA/);
    // ISC belongs in the IVA's base: a base without it is refused.
    const base = xml.replace('<BaseImponible>23760.00000<', '<BaseImponible>21600.00000<');
    expect(messages(checkTotals(parseXml(base)))).toMatch(/BaseImponible de la línea 3/);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the HTTP API to Hacienda (the simulator)

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const ref = (kind: 'cli' | 'srv', id: number) => `${kind}_${String(id).padStart(12, '0')}`;
const svc: Record<string, string> = {};

describe('through the API', () => {
  beforeAll(async () => {
    e = await startE2E();
    s = await seedIssuer(e.db, e.config);
    const tenant = { companyId: s.company.id, livemode: false };
    const add = async (name: string, cabys: string, unit: string, ivaRateCode: string, price: string) => {
      const x = await createService(e.db, tenant, {
        cabys,
        description: name,
        unit,
        taxCode: '01',
        ivaRateCode,
        price,
        commercialCode: null,
      });
      svc[name] = ref('srv', x.id);
    };
    await add('Cerveza 350 ml', '2431000000000', 'Unid', '08', '900');
    await add('Gasolina súper', '3331100010000', 'L', '10', '800');
    await add('Vehículo usado', '4911399000000', 'Unid', '08', '5000000');
    await add('Cigarrillos, cajetilla', '2502000000200', 'Unid', '08', '2500');
    await add('Consulta médica', '9310100000300', 'Sp', '04', '45000');
  }, 60_000);
  afterAll(async () => {
    await e?.close();
  });

  async function accepted(
    body: Record<string, unknown>,
    path = '/api/v1/invoices',
    kind: SchemaDocumentType = 'FacturaElectronica',
  ) {
    const res = await api(e, 'POST', path, s.key, body);
    expect(res.status, res.text).toBe(201);
    const doc = await acceptedDocument(e, s.key, res.json.id as string, kind);
    // A sale's total is receivable; a purchase's is payable (or paid in cash).
    const owed =
      kind === 'FacturaElectronicaCompra'
        ? new D(doc.booked('payables')).plus(doc.booked('cash')).toFixed(2)
        : doc.booked('receivables', 'debit');
    expect(owed).toBe(doc.inv.total);
    return doc;
  }
  const lineEls = (root: XmlElement) => children(child(root, 'DetalleServicio'), 'LineaDetalle');
  const impuestos = (line: XmlElement) =>
    children(line, 'Impuesto').map((i) => [text(i, 'Codigo'), text(i, 'Monto')]);

  it('a line with ISC + IVA and alcohol tax is accepted; the other taxes go to their liability; its credit note too', async () => {
    const { inv, root, booked, lines } = await accepted({
      client_id: ref('cli', s.client.id),
      lines: [
        {
          service_id: svc['Cerveza 350 ml'],
          qty: 24,
          taxes: [
            { code: '02', rate: '10' },
            { code: '04', unit_quantity: '350', alcohol_percent: '4.5', tax_per_unit: '4.15' },
          ],
        },
      ],
    });
    const want = expected([{ qty: '24', price: '900', ivaRate: '13', taxes: BEER }]);
    const line = lineEls(root)[0]!;
    expect(text(line, 'BaseImponible')).toBe(want.lines[0]!.base);
    expect(impuestos(line)).toEqual([['01', want.lines[0]!.iva], ...want.lines[0]!.other]);
    expect(text(children(line, 'Impuesto')[2], 'DatosImpuestoEspecifico', 'Proporcion')).toBe('15.75000');
    const r = child(root, 'ResumenFactura');
    expect(text(r, 'TotalImpuesto')).toBe(want.totalImpuesto);
    expect(text(r, 'TotalComprobante')).toBe(want.totalComprobante);
    expect(children(r, 'TotalDesgloseImpuesto').map((d) => text(d, 'Codigo'))).toEqual(['01', '02', '04']);
    expect(booked('other_taxes_payable')).toBe(want.otherTaxes.toFixed(2));
    expect(booked('iva_payable')).toBe(want.ivaNet.toFixed(2));
    expect(lines.find((l) => l.role === 'other_taxes_payable')?.code).toBe('2103');
    expect(inv.lines[0].taxes.map((x: { code: string }) => x.code)).toEqual(['01', '02', '04']);
    expect(inv.lines[0].taxable_base).toBe(want.lines[0]!.base);

    // The whole sale's credit note carries the same taxes and reverses the liability.
    const note = await api(e, 'POST', `/api/v1/invoices/${inv.id}/credit_notes`, s.key, {
      reason: 'Devolución del pedido',
    });
    expect(note.status, note.text).toBe(201);
    const nc = await acceptedNote(note.json.id);
    expect(impuestos(lineEls(nc.root)[0]!)).toEqual(impuestos(line));
    expect(nc.booked('other_taxes_payable', 'debit')).toBe(want.otherTaxes.toFixed(2));
  });

  async function acceptedNote(id: string) {
    return acceptedDocument(e, s.key, id, 'NotaCreditoElectronica', null);
  }

  it('a fuel line (03), a used-goods line (08, factor) and an otros line (99, shape B) are accepted', async () => {
    const { root, booked } = await accepted({
      clientId: s.client.uuid,
      lines: [
        {
          serviceId: await uuidOf('Gasolina súper'),
          qty: '40.5',
          taxes: [{ code: '03', unitQuantity: '1', taxPerUnit: '280.25' }],
        },
        { serviceId: await uuidOf('Vehículo usado'), qty: 1, tax_code: '08', iva_factor: '0.035' },
        {
          serviceId: await uuidOf('Cerveza 350 ml'),
          qty: 2,
          taxes: [{ code: '99', code_other: 'Impuesto municipal de patente', amount: '150' }],
        },
      ],
    });
    const want = expected([
      { qty: '40.5', price: '800', ivaRate: '0', taxes: [{ code: '03', units: '1', perUnit: '280.25' }] },
      { qty: '1', price: '5000000', ivaRate: '13', factor: '0.035' },
      { qty: '2', price: '900', ivaRate: '13', taxes: [{ code: '99', amount: '150' }] },
    ]);
    const [fuel, car, other] = lineEls(root);
    expect(impuestos(fuel!)).toEqual([['01', '0.00000'], ...want.lines[0]!.other]);
    expect(text(fuel, 'Impuesto', 'Codigo')).toBe('01');
    expect(text(children(fuel!, 'Impuesto')[1], 'DatosImpuestoEspecifico', 'ImpuestoUnidad')).toBe(
      '280.25000',
    );
    expect(impuestos(car!)).toEqual([['08', want.lines[1]!.iva]]);
    expect(text(car, 'Impuesto', 'FactorCalculoIVA')).toBe('0.0350');
    expect(text(children(other!, 'Impuesto')[1], 'CodigoImpuestoOTRO')).toBe('Impuesto municipal de patente');
    const r = child(root, 'ResumenFactura');
    expect(text(r, 'TotalMercanciasExentas')).toBe('32400.00000');
    expect(text(r, 'TotalImpuesto')).toBe(want.totalImpuesto);
    expect(text(r, 'TotalComprobante')).toBe(want.totalComprobante);
    expect(booked('other_taxes_payable')).toBe(want.otherTaxes.toFixed(2));
  });

  async function uuidOf(name: string): Promise<string> {
    const row = await e
      .db('services')
      .where({ id: parseId('service', svc[name]!)! })
      .first('uuid');
    return row.uuid as string;
  }

  it('a health service paid by card returns its IVA (TotalIVADevuelto)', async () => {
    const { inv, root, booked } = await accepted({
      client_id: ref('cli', s.client.id),
      payment_method: 'tarjeta',
      lines: [
        { service_id: svc['Consulta médica'], qty: 1, iva_returned: true },
        { service_id: svc['Cerveza 350 ml'], qty: 2 },
      ],
    });
    const want = expected([
      { qty: '1', price: '45000', ivaRate: '4', returned: true },
      { qty: '2', price: '900', ivaRate: '13' },
    ]);
    const r = child(root, 'ResumenFactura');
    expect(text(r, 'TotalIVADevuelto')).toBe(want.totalIVADevuelto);
    expect(text(r, 'TotalComprobante')).toBe(want.totalComprobante);
    expect(inv.total).toBe(new D(want.totalComprobante).toFixed(2));
    expect(inv.lines[0].iva_returned).toBe('1800.00000');
    // The IVA charged is owed; what is returned to the patient lowers the revenue side.
    expect(booked('iva_payable')).toBe(new D(want.totalImpuesto).toFixed(2));

    // Its credit note returns the same IVA and is accepted too.
    const note = await api(e, 'POST', `/api/v1/invoices/${inv.id}/credit_notes`, s.key, {
      reason: 'Anulación de la consulta',
    });
    expect(note.status, note.text).toBe(201);
    expect(note.json.total).toBe(inv.total);
    const nc = await acceptedNote(note.json.id);
    expect(text(child(nc.root, 'ResumenFactura'), 'TotalIVADevuelto')).toBe(want.totalIVADevuelto);
  });

  it('a health service paid partly by card returns the card share of its IVA (2026 mixed sale)', async () => {
    const card = '12345.67891';
    const { inv, root, booked } = await accepted({
      client_id: ref('cli', s.client.id),
      payments: [{ method: 'tarjeta', amount: card }, { method: 'efectivo' }],
      lines: [
        { service_id: svc['Consulta médica'], qty: 1, iva_returned: true },
        { service_id: svc['Cerveza 350 ml'], qty: 2 },
      ],
    });
    // Independently: the whole-card figures, then the card share of the consultation's IVA
    // (card / its venta neta × its IVA, rounded half-up once) in place of the whole IVA.
    const whole = expected([
      { qty: '1', price: '45000', ivaRate: '4', returned: true },
      { qty: '2', price: '900', ivaRate: '13' },
    ]);
    const devuelto = r5(new D(card).times('1800').div('45000'));
    const total = new D(whole.totalComprobante).plus(whole.totalIVADevuelto!).minus(devuelto);
    expect(f5(devuelto)).toBe('493.82716');
    const r = child(root, 'ResumenFactura');
    expect(text(r, 'TotalIVADevuelto')).toBe(f5(devuelto));
    expect(text(r, 'TotalImpuesto')).toBe(whole.totalImpuesto);
    expect(text(r, 'TotalComprobante')).toBe(f5(total));
    expect(
      children(r, 'MedioPago').map((m) => [text(m, 'TipoMedioPago'), text(m, 'TotalMedioPago')]),
    ).toEqual([
      ['02', card],
      ['01', f5(total.minus(card))],
    ]);
    expect(inv.total).toBe(total.toFixed(2));
    // The line shows the IVA it returns: the card share, not its whole IVA.
    expect(inv.lines.map((l: { iva_returned?: string }) => l.iva_returned ?? null)).toEqual([
      f5(devuelto),
      null,
    ]);
    expect(booked('iva_payable')).toBe(new D(whole.totalImpuesto).toFixed(2));

    // Its credit note returns the same IVA (the card share), states the card and credits the total.
    const note = await api(e, 'POST', `/api/v1/invoices/${inv.id}/credit_notes`, s.key, {
      reason: 'Anulación de la consulta',
    });
    expect(note.status, note.text).toBe(201);
    expect(note.json.total).toBe(inv.total);
    const nc = await acceptedNote(note.json.id);
    const nr = child(nc.root, 'ResumenFactura');
    expect(text(nr, 'TotalIVADevuelto')).toBe(f5(devuelto));
    expect(text(nr, 'TotalComprobante')).toBe(f5(total));
    expect(children(nr, 'MedioPago').map((m) => text(m, 'TipoMedioPago'))).toEqual(['02']);
    expect(nc.booked('iva_payable', 'debit')).toBe(new D(whole.totalImpuesto).toFixed(2));
  });

  it('a tiquete with tobacco (06) and tax assumed by the issuer is accepted; the issuer still owes it, as an expense', async () => {
    const { root, booked } = await accepted(
      {
        document_type: '04',
        lines: [
          {
            service_id: svc['Cigarrillos, cajetilla'],
            qty: 3,
            taxes: [{ code: '06', unit_quantity: '20', tax_per_unit: '1.33' }],
            assumed_tax: '100',
          },
        ],
      },
      '/api/v1/invoices',
      'TiqueteElectronico',
    );
    const want = expected([
      {
        qty: '3',
        price: '2500',
        ivaRate: '13',
        taxes: [{ code: '06', units: '20', perUnit: '1.33' }],
        assumed: '100',
      },
    ]);
    const line = lineEls(root)[0]!;
    expect(text(line, 'ImpuestoAsumidoEmisorFabrica')).toBe('100.00000');
    expect(text(line, 'ImpuestoNeto')).toBe(want.lines[0]!.neto);
    const r = child(root, 'ResumenFactura');
    expect(text(r, 'TotalImpAsumEmisorFabrica')).toBe(want.totalImpAsumEmisorFabrica);
    expect(text(r, 'TotalComprobante')).toBe(want.totalComprobante);
    // The client pays the net tax; the State is owed the whole tax; the issuer bears the rest.
    expect(booked('assumed_tax_expense', 'debit')).toBe('100.00');
    expect(booked('iva_payable')).toBe(new D(want.lines[0]!.iva).toFixed(2));
    expect(booked('other_taxes_payable')).toBe(want.otherTaxes.toFixed(2));
  });

  it('tax the factory collected (IVACobradoFabrica 01) is owed by no one here: no expense, the IVA payable net of it', async () => {
    const { root, booked, lines } = await accepted({
      client_id: ref('cli', s.client.id),
      lines: [
        {
          service_id: svc['Cerveza 350 ml'],
          qty: 2,
          iva_collected_at_factory: '01',
          taxable_base: '2000',
          assumed_tax: '150',
        },
      ],
    });
    const line = lineEls(root)[0]!;
    expect(text(line, 'IVACobradoFabrica')).toBe('01');
    expect(text(line, 'ImpuestoAsumidoEmisorFabrica')).toBe('150.00000');
    // IVA 13 % of the stated base 2,000 = 260, of which the factory collected 150.
    expect(text(line, 'ImpuestoNeto')).toBe('110.00000');
    expect(lines.some((l) => l.role === 'assumed_tax_expense')).toBe(false);
    expect(booked('iva_payable')).toBe('110.00');
  });

  it('a service of the used-goods regime (tax code 08) is created through the API; its lines state the factor', async () => {
    const created = await api(e, 'POST', '/api/v1/services', s.key, {
      cabys: '4911399000000',
      description: 'Motocicleta usada',
      unit: 'Unid',
      tax_code: '08',
      iva_rate_code: '08',
      price: '1200000',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.tax_code).toBe('08');
    const client_id = ref('cli', s.client.id);
    const without = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id,
      lines: [{ service_id: created.json.id, qty: 1 }],
    });
    expect(without.status).toBe(422);
    expect(without.json.errors).toContainEqual(
      expect.objectContaining({ path: '/lines/0/iva_factor', code: 'required' }),
    );
    const { root } = await accepted({
      client_id,
      lines: [{ service_id: created.json.id, qty: 1, iva_factor: '0.04' }],
    });
    const tax = children(lineEls(root)[0]!, 'Impuesto')[0]!;
    expect(text(tax, 'Codigo')).toBe('08');
    expect(text(tax, 'FactorCalculoIVA')).toBe('0.0400');
    expect(text(tax, 'Monto')).toBe('48000.00000');
  });

  it('a factura de compra carries ISC with its IVA; a specific tax is refused there', async () => {
    const supplier = {
      name: 'Distribuidora Campos Limitada',
      identification: '3102456789',
      identification_type: '02',
      location: { provincia: '1', canton: '01', distrito: '01', otras_senas: 'Frente al parque central' },
      email: 'ventas@campos.example',
    };
    const refused = await api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '08',
      supplier,
      lines: [
        {
          service_id: svc['Cerveza 350 ml'],
          qty: 1,
          taxes: [{ code: '04', unit_quantity: '350', alcohol_percent: '4.5', tax_per_unit: '4.15' }],
        },
      ],
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.errors).toContainEqual(
      expect.objectContaining({ path: '/lines/0/taxes/0/code', code: 'not_allowed' }),
    );
    const { root, booked } = await accepted(
      {
        document_type: '08',
        supplier,
        lines: [{ service_id: svc['Cerveza 350 ml'], qty: 24, taxes: [{ code: '02', rate: '10' }] }],
      },
      '/api/v1/invoices',
      'FacturaElectronicaCompra',
    );
    const want = expected([{ qty: '24', price: '900', ivaRate: '13', taxes: [{ code: '02', rate: '10' }] }]);
    expect(impuestos(lineEls(root)[0]!)).toEqual([['01', want.lines[0]!.iva], ...want.lines[0]!.other]);
    expect(text(child(root, 'ResumenFactura'), 'TotalComprobante')).toBe(want.totalComprobante);
    // A purchase's IVA is a credit; the ISC paid is part of the expense.
    expect(booked('iva_credit', 'debit')).toBe(new D(want.lines[0]!.iva).toFixed(2));
    expect(booked('purchases', 'debit')).toBe(new D('21600').plus(want.otherTaxes).toFixed(2));
  });

  it('a service of the catalogue carries default taxes; its lines take them unless they give their own', async () => {
    const bad = await api(e, 'POST', '/api/v1/services', s.key, {
      cabys: '2431000000000',
      description: 'Cerveza artesanal 355 ml',
      unit: 'Unid',
      iva_rate_code: '08',
      price: '1500',
      taxes: [{ code: '04', unit_quantity: '355', tax_per_unit: '4.15' }],
    });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.json.errors).toContainEqual(
      expect.objectContaining({ path: '/taxes/0/alcohol_percent', code: 'required' }),
    );
    const created = await api(e, 'POST', '/api/v1/services', s.key, {
      cabys: '2431000000000',
      description: 'Cerveza artesanal 355 ml',
      unit: 'Unid',
      iva_rate_code: '08',
      price: '1500',
      taxes: [
        { code: '02', rate: '10' },
        { code: '04', unit_quantity: '355', alcohol_percent: '6', tax_per_unit: '4.15' },
      ],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.taxes).toEqual([
      { code: '02', rate: '10' },
      { code: '04', unit_quantity: '355', alcohol_percent: '6', tax_per_unit: '4.15' },
    ]);
    const { root } = await accepted({
      client_id: ref('cli', s.client.id),
      lines: [
        { service_id: created.json.id, qty: 6 },
        { service_id: created.json.id, qty: 1, taxes: [{ code: '02', rate: '5' }] },
      ],
    });
    const want = expected([
      {
        qty: '6',
        price: '1500',
        ivaRate: '13',
        taxes: [
          { code: '02', rate: '10' },
          { code: '04', units: '355', percent: '6', perUnit: '4.15' },
        ],
      },
      { qty: '1', price: '1500', ivaRate: '13', taxes: [{ code: '02', rate: '5' }] },
    ]);
    const [first, second] = lineEls(root);
    expect(impuestos(first!)).toEqual([['01', want.lines[0]!.iva], ...want.lines[0]!.other]);
    expect(impuestos(second!)).toEqual([['01', want.lines[1]!.iva], ...want.lines[1]!.other]);
    expect(text(child(root, 'ResumenFactura'), 'TotalComprobante')).toBe(want.totalComprobante);
  });

  it('the batch API takes the same tax fields: a good item is accepted, a wrong one fails with its field', async () => {
    const run = Date.now();
    const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
      invoices: [
        {
          idempotency_key: `fuel-${run}`,
          client_id: ref('cli', s.client.id),
          lines: [
            {
              service_id: svc['Gasolina súper'],
              qty: 10,
              taxes: [{ code: '03', unit_quantity: '1', tax_per_unit: '280.25' }],
            },
          ],
        },
        {
          idempotency_key: `bad-${run}`,
          client_id: ref('cli', s.client.id),
          lines: [{ service_id: svc['Vehículo usado'], qty: 1, tax_code: '08' }],
        },
      ],
    });
    expect(res.status, res.text).toBe(202);
    let b: any;
    await waitFor(async () => {
      b = (await api(e, 'GET', `/api/v1/batches/${res.json.id}`, s.key)).json;
      return b.status === 'completed';
    }, 30_000);
    expect(b.counts).toMatchObject({ created: 1, failed: 1 });
    expect(b.items[1].error.errors).toContainEqual(
      expect.objectContaining({ path: '/lines/0/iva_factor', code: 'required' }),
    );
    const id = b.items[0].invoice.id as string;
    let inv: any;
    await waitFor(async () => {
      inv = (await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json;
      if (inv.status === 'rechazada') throw new Error(JSON.stringify(inv.rejection_reason));
      return inv.status === 'aceptada';
    }, 30_000);
    // 10 × 800 = 8000 exempt of IVA, 10 × 280.25 = 2802.50 of impuesto único.
    expect(inv.total).toBe('10802.50');
    expect(inv.lines[0].taxes[1]).toMatchObject({ code: '03', amount: '2802.50000' });
  });

  it('wrong tax fields are refused with 422, a code and the field, and nothing is recorded', async () => {
    const before = Number((await e.db('invoices').count('* as n'))[0]!.n);
    const base = { client_id: ref('cli', s.client.id) };
    const beer = { service_id: svc['Cerveza 350 ml'], qty: 1 };
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { ...base, lines: [{ ...beer, taxes: [{ code: '03', tax_per_unit: '1' }] }] },
        '/lines/0/taxes/0/unit_quantity',
        'required',
      ],
      [
        { ...base, lines: [{ ...beer, taxes: [{ code: '02', rate: 'diez' }] }] },
        '/lines/0/taxes/0/rate',
        'invalid_decimal',
      ],
      [
        { ...base, lines: [{ ...beer, taxes: [{ code: '02', rate: '10', colour: 'x' }] }] },
        '/lines/0/taxes/0/colour',
        'unknown_field',
      ],
      [
        { ...base, lines: [{ ...beer, taxes: [{ code: '01', rate: '13' }] }] },
        '/lines/0/taxes/0/code',
        'not_allowed',
      ],
      [{ ...base, lines: [{ ...beer, taxes: [] }] }, '/lines/0/taxes', 'invalid_value'],
      [{ ...base, lines: [{ ...beer, tax_code: '02' }] }, '/lines/0/tax_code', 'unknown_code'],
      [{ ...base, lines: [{ ...beer, tax_code: '08' }] }, '/lines/0/iva_factor', 'required'],
      [{ ...base, lines: [{ ...beer, iva_factor: '0.5' }] }, '/lines/0/iva_factor', 'not_applicable'],
      [{ ...base, lines: [{ ...beer, iva_collected_at_factory: '02' }] }, '/lines/0/taxes', 'tax_required'],
      [{ ...base, lines: [{ ...beer, assumed_tax: '1000' }] }, '/lines/0/assumed_tax', 'assumed_exceeds_tax'],
      [
        { ...base, lines: [{ service_id: svc['Consulta médica'], qty: 1, iva_returned: true }] },
        '/payment_method',
        'iva_returned_needs_card',
      ],
      [
        {
          ...base,
          payments: [{ method: 'tarjeta' }, { method: 'efectivo', amount: '1000' }],
          lines: [{ service_id: svc['Consulta médica'], qty: 1, iva_returned: true }],
        },
        '/payments/0/amount',
        'iva_returned_card_amount_required',
      ],
      [
        { ...base, lines: [{ ...beer, iva_collected_at_factory: '03' }] },
        '/lines/0/iva_collected_at_factory',
        'unknown_code',
      ],
      [{ ...base, lines: [{ ...beer, iva_returned: 'sí' }] }, '/lines/0/iva_returned', 'invalid_type'],
    ];
    for (const [body, path, code] of cases) {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, body);
      expect(res.status, res.text).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.json.errors, `${path} ${res.text}`).toContainEqual(expect.objectContaining({ path, code }));
    }
    expect(Number((await e.db('invoices').count('* as n'))[0]!.n)).toBe(before);
  });
});
