// Property test over generated invoices: 1-20 lines, quantities with 3 decimals, prices with 5,
// stacked discounts, every IVA rate code allowed in an FE, goods and services units, exonerations,
// other charges, CRC / USD / EUR (generators in helpers/invoice-arbitraries.ts). For each invoice the totals must satisfy the v4.4 identities
// (checked here with an independent decimal computation), and the XML, once signed, must validate
// against the official 2026 FacturaElectronica XSD and pass both signature verifiers (xadesjs and
// xmlsec1); changing one byte after signing must break both. Schema and xmlsec checks run in
// batches so that 500 documents take seconds.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { IVA_RATES, SERVICE_UNITS, type CodigoTarifaIVA } from '../domain/codes.ts';
import type { DocumentTotals } from '../domain/totals.ts';
import { createSigner, type XadesSigner } from '../hacienda/signer.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import { validateXmlBatch } from './helpers/xsd.ts';
import {
  EMISORES,
  facturaOf,
  invoiceArb,
  lineArb,
  totalsOf,
  type InvoiceCase,
} from './helpers/invoice-arbitraries.ts';
import { verifyManyWithXmlsec } from './helpers/xmlsec.ts';
import { fixed } from './helpers/invoice-arbitraries.ts';
import type { Config } from '../config/index.ts';
import type { Company, Service } from '../db/models/index.ts';
import type { Catalogue } from '../db/queries/invoice-prepare.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import { purchaseFromCatalogue } from '../db/queries/purchases.ts';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../domain/clave.ts';
import { noteLines } from '../domain/document-notes.ts';
import type { DocumentLine } from '../domain/document-line.ts';
import type { FieldError } from '../domain/errors.ts';
import { capNoteLines, creditedLines, LineCreditExceeded, type LineCredit } from '../domain/note-credits.ts';
import { parsePurchaseRequest } from '../domain/purchase-request.ts';
import { computeDocumentTotals } from '../domain/totals.ts';
import { buildComprobanteXml } from '../hacienda/xml/comprobante.ts';
import { facturaDocument } from '../jobs/invoice-document.ts';
import { checkTotals } from '../simulator/checks/totals.ts';
import { children, parseXml, text } from '../simulator/checks/xml-reader.ts';

const RUNS = 500;
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
type Dec = InstanceType<typeof D>;
const r5 = (d: Dec): Dec => d.toDecimalPlaces(5, D.ROUND_HALF_UP);
const dec = (s: string | null | undefined): Dec => new D(s ?? 0);

// ---------------------------------------------------------------------------------------------
// The identities, checked with an independent decimal computation

function checkIdentities(c: InvoiceCase, t: DocumentTotals): void {
  const FIVE = /^\d{1,13}\.\d{5}$/;
  const s = t.summary;
  const sums = {
    services: { gravado: new D(0), exento: new D(0), exonerado: new D(0), noSujeto: new D(0) },
    goods: { gravado: new D(0), exento: new D(0), exonerado: new D(0), noSujeto: new D(0) },
  };
  let montoTotal = new D(0);
  let discounts = new D(0);
  let impuestoNeto = new D(0);
  let montoTotalLinea = new D(0);
  const desglose = new Map<string, Dec>();

  expect(t.lines).toHaveLength(c.lines.length);
  c.lines.forEach((input, i) => {
    const l = t.lines[i];
    if (!l) throw new Error(`line ${i} missing`);
    for (const v of [
      l.unitPrice,
      l.montoTotal,
      l.subTotal,
      l.baseImponible,
      l.impuestoNeto,
      l.montoTotalLinea,
    ]) {
      expect(v).toMatch(FIVE);
    }
    // MontoTotal = round5(Cantidad × PrecioUnitario)
    expect(l.montoTotal).toBe(r5(dec(input.quantity).times(input.unitPrice)).toFixed(5));
    // Discounts in order, each rounded; SubTotal = MontoTotal − Σ discounts ≥ 0
    let left = dec(l.montoTotal);
    (input.discounts ?? []).forEach((d, k) => {
      const expected = d.amount !== undefined ? dec(d.amount) : r5(left.times(d.percent ?? 0).div(100));
      expect(l.discounts[k]?.amount).toBe(expected.toFixed(5));
      left = left.minus(expected);
    });
    expect(l.subTotal).toBe(left.toFixed(5));
    expect(left.gte(0)).toBe(true);
    expect(dec(l.discountTotal).toFixed(5)).toBe(dec(l.montoTotal).minus(l.subTotal).toFixed(5));
    // Monto = round5(BaseImponible × Tarifa / 100); ImpuestoNeto = Monto − MontoExoneracion
    const tax = l.taxes[0];
    const rate = dec(IVA_RATES[input.ivaRateCode as CodigoTarifaIVA].rate);
    expect(l.baseImponible).toBe(l.subTotal);
    expect(tax?.amount).toBe(r5(dec(l.baseImponible).times(rate).div(100)).toFixed(5));
    const exoneration = input.exoneration
      ? r5(dec(l.baseImponible).times(input.exoneration.rate).div(100))
      : new D(0);
    expect(dec(tax?.exoneration?.amount).toFixed(5)).toBe(exoneration.toFixed(5));
    expect(l.impuestoNeto).toBe(
      dec(tax?.amount).minus(exoneration).minus(l.impuestoAsumidoEmisorFabrica).toFixed(5),
    );
    expect(dec(l.impuestoNeto).gte(0)).toBe(true);
    // MontoTotalLinea = SubTotal + ImpuestoNeto
    expect(l.montoTotalLinea).toBe(dec(l.subTotal).plus(l.impuestoNeto).toFixed(5));
    // The buckets split MontoTotal exactly; goods/services from the unit unless overridden.
    const split = [l.split.gravado, l.split.exento, l.split.exonerado, l.split.noSujeto];
    expect(split.reduce((a, v) => a.plus(dec(v)), new D(0)).toFixed(5)).toBe(l.montoTotal);
    const kind = input.kind ?? (SERVICE_UNITS.has(input.unit) ? 'services' : 'goods');
    expect(l.kind).toBe(kind);
    if (!input.exoneration) {
      expect(l.split[IVA_RATES[input.ivaRateCode as CodigoTarifaIVA].treatment]).toBe(l.montoTotal);
    }
    for (const b of ['gravado', 'exento', 'exonerado', 'noSujeto'] as const) {
      sums[kind][b] = sums[kind][b].plus(dec(l.split[b]));
    }
    montoTotal = montoTotal.plus(l.montoTotal);
    discounts = discounts.plus(l.discountTotal);
    impuestoNeto = impuestoNeto.plus(l.impuestoNeto);
    montoTotalLinea = montoTotalLinea.plus(l.montoTotalLinea);
    const key = `${tax?.code}|${tax?.ivaRateCode}`;
    desglose.set(key, (desglose.get(key) ?? new D(0)).plus(dec(tax?.amount).minus(exoneration)));
  });

  // Summary buckets are sums of the rounded line values.
  const eq = (actual: string | null, expected: Dec): void => {
    expect(dec(actual).toFixed(5)).toBe(expected.toFixed(5));
  };
  eq(s.totalServGravados, sums.services.gravado);
  eq(s.totalServExentos, sums.services.exento);
  eq(s.totalServExonerado, sums.services.exonerado);
  eq(s.totalServNoSujeto, sums.services.noSujeto);
  eq(s.totalMercanciasGravadas, sums.goods.gravado);
  eq(s.totalMercanciasExentas, sums.goods.exento);
  eq(s.totalMercExonerada, sums.goods.exonerado);
  eq(s.totalMercNoSujeta, sums.goods.noSujeto);
  // TotalGravado = servicios + mercancías, and likewise for the others.
  eq(s.totalGravado, dec(s.totalServGravados).plus(dec(s.totalMercanciasGravadas)));
  eq(s.totalExento, dec(s.totalServExentos).plus(dec(s.totalMercanciasExentas)));
  eq(s.totalExonerado, dec(s.totalServExonerado).plus(dec(s.totalMercExonerada)));
  eq(s.totalNoSujeto, dec(s.totalServNoSujeto).plus(dec(s.totalMercNoSujeta)));
  // TotalVenta = gravado + exento + exonerado + no sujeto = Σ MontoTotal
  const venta = dec(s.totalGravado)
    .plus(dec(s.totalExento))
    .plus(dec(s.totalExonerado))
    .plus(dec(s.totalNoSujeto));
  eq(s.totalVenta, venta);
  eq(s.totalVenta, montoTotal);
  // TotalDescuentos = Σ MontoDescuento; TotalVentaNeta = TotalVenta − TotalDescuentos
  eq(s.totalDescuentos, discounts);
  expect(s.totalDescuentos === null).toBe(c.lines.every((l) => (l.discounts ?? []).length === 0));
  eq(s.totalVentaNeta, dec(s.totalVenta).minus(dec(s.totalDescuentos)));
  // TotalImpuesto = Σ ImpuestoNeto = Σ TotalDesgloseImpuesto, one row per (Codigo, CodigoTarifaIVA)
  eq(s.totalImpuesto, impuestoNeto);
  expect(s.totalDesgloseImpuesto.map((d) => `${d.code}|${d.ivaRateCode}`)).toEqual([...desglose.keys()]);
  s.totalDesgloseImpuesto.forEach((d) =>
    eq(d.amount, desglose.get(`${d.code}|${d.ivaRateCode}`) ?? new D(-1)),
  );
  // TotalComprobante = TotalVentaNeta + TotalImpuesto + TotalOtrosCargos − TotalIVADevuelto
  // OtrosCargos: the amount given, or its percentage of TotalVentaNeta (06 defaults to 10 %)
  const otros = c.otherCharges.reduce((a, o, k) => {
    const percent = o.percent ?? (o.amount === undefined ? '10' : null);
    const expected =
      o.amount !== undefined ? dec(o.amount) : r5(dec(s.totalVentaNeta).times(percent!).div(100));
    expect(t.otherCharges[k]?.amount).toBe(expected.toFixed(5));
    return a.plus(expected);
  }, new D(0));
  eq(s.totalOtrosCargos, otros);
  eq(
    s.totalComprobante,
    dec(s.totalVentaNeta).plus(s.totalImpuesto).plus(dec(s.totalOtrosCargos)).minus(dec(s.totalIVADevuelto)),
  );
  eq(s.totalComprobante, montoTotalLinea.plus(otros));
  expect(s.exchangeRate).toBe(dec(c.currency.exchangeRate).toFixed(5));
  // MedioPago: one per method; several add up to TotalComprobante, each > 0
  const medios = s.medioPago ?? [];
  expect(medios.length).toBeGreaterThanOrEqual(1);
  if (medios.length > 1) {
    expect(medios.every((m) => m.total !== null && dec(m.total).gt(0))).toBe(true);
    eq(
      s.totalComprobante,
      medios.reduce((a, m) => a.plus(dec(m.total)), new D(0)),
    );
  }
  // API total: TotalComprobante to 2 decimals, half-up
  expect(t.total).toBe(dec(s.totalComprobante).toDecimalPlaces(2, D.ROUND_HALF_UP).toFixed(2));
}

/** Replaces one digit inside the signed content (before the signature) by another digit. */
function tamper(signed: string, pick: number): string {
  const end = signed.indexOf('<ds:Signature');
  const digits: number[] = [];
  for (let i = signed.indexOf('<Clave>'); i < end; i++) {
    const ch = signed.charCodeAt(i);
    if (ch >= 48 && ch <= 57) digits.push(i);
  }
  const at = digits[pick % digits.length] as number;
  const old = signed.charCodeAt(at) - 48;
  return signed.slice(0, at) + String((old + 1) % 10) + signed.slice(at + 1);
}

describe('generated invoices', () => {
  let signers: XadesSigner[];
  beforeAll(async () => {
    signers = await Promise.all(
      EMISORES.map(async (e) =>
        createSigner(
          (await createTestCertificate({ idType: e.idType, idNumber: e.idNumber, name: e.name })).material,
        ),
      ),
    );
  });

  it(`the totals satisfy the v4.4 identities (${RUNS} invoices)`, () => {
    fc.assert(
      fc.property(invoiceArb, (c) => {
        checkIdentities(c, totalsOf(c));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it(`signed XML validates against the 2026 XSD and both verifiers accept it (${RUNS} invoices)`, async () => {
    const cases = fc.sample(invoiceArb, { numRuns: RUNS, seed: SEED + 1 });
    const signed = await Promise.all(
      cases.map(async (c, i) => {
        const xml = buildFacturaXml(facturaOf(c, i, totalsOf(c)));
        return (signers[c.emisorIndex] as XadesSigner).sign(xml);
      }),
    );

    const schema = await validateXmlBatch('FacturaElectronica', signed);
    const invalid = schema.flatMap((r, i) =>
      r.valid ? [] : [{ i, errors: r.errors.slice(0, 3), seed: SEED + 1 }],
    );
    expect(invalid).toEqual([]);

    const xades = await Promise.all(signed.map((x) => verifyXadesSignature(x)));
    expect(xades.flatMap((v, i) => (v.valid ? [] : [{ i, errors: v.errors }]))).toEqual([]);
    const xmlsec = await verifyManyWithXmlsec(signed, { verificationTime: new Date() });
    expect(xmlsec.flatMap((v, i) => (v.valid ? [] : [{ i, output: v.output.slice(0, 500) }]))).toEqual([]);

    // One changed byte after signing breaks both verifiers (every 20th document, a different digit each).
    const tampered = signed.filter((_, i) => i % 20 === 0).map((x, k) => tamper(x, k * 7919));
    expect(tampered.every((x, k) => x !== signed[k * 20])).toBe(true);
    const [tamperedXades, tamperedXmlsec] = await Promise.all([
      Promise.all(tampered.map((x) => verifyXadesSignature(x))),
      verifyManyWithXmlsec(tampered),
    ]);
    expect(tamperedXades.map((v) => v.valid)).toEqual(tampered.map(() => false));
    expect(tamperedXmlsec.map((v) => v.valid)).toEqual(tampered.map(() => false));
  }, 180_000); // 500 signatures, one xmllint and one xmlsec1 run: slow on a busy 2-core machine
});

// ---------------------------------------------------------------------------------------------
// Facturas de compra with other charges, through the purchase's own preparation and document

const COMPANY = {
  ...EMISORES[0]!,
  legalName: EMISORES[0]!.name,
  commercialName: null,
  activityCode: '620100',
  provincia: '1',
  canton: '08',
  distrito: '01',
  barrio: null,
  otrasSenas: 'Frente al parque de Sabana Sur',
  phone: null,
  phoneCountry: null,
  emails: ['fe@lasabana.example'],
  defaultBranch: '001',
  defaultTerminal: '00001',
  defaultCurrency: 'CRC',
} as unknown as Company;

/** The purchase's catalogue: goods and services at 13 %, an exempt service. */
const SERVICES = [
  { id: 1, cabys: '4522003990000', description: 'Computadora portátil', unit: 'Unid', ivaRateCode: '08' },
  { id: 2, cabys: '8311100000000', description: 'Asesoría técnica', unit: 'Sp', ivaRateCode: '08' },
  { id: 3, cabys: '9231000000200', description: 'Servicio educativo exento', unit: 'Sp', ivaRateCode: '10' },
].map((x) => ({
  ...x,
  uuid: `00000000-0000-0000-0000-00000000000${x.id}`,
  taxCode: '01',
  price: '1.00',
  commercialCode: null,
}));
const CATALOGUE: Catalogue = {
  clientsById: new Map(),
  clientsByUuid: new Map(),
  servicesById: new Map(SERVICES.map((x) => [x.id, x as unknown as Service])),
  servicesByUuid: new Map(SERVICES.map((x) => [x.uuid, x as unknown as Service])),
};

const purchaseArb = fc.record({
  lines: fc.array(
    fc.record({
      service_id: fc.constantFrom('srv_000000000001', 'srv_000000000002', 'srv_000000000003'),
      qty: fixed(1, 99_999, 3),
      unit_price: fixed(0, 100_000_000, 2),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  other_charges: fc.array(
    fc.oneof(
      fc.record({ code: fc.constantFrom('01', '02', '07'), amount: fixed(1, 100_000_000, 5) }),
      fc.record({
        code: fc.constant('99'),
        code_other: fc.constant('Cargo por envío'),
        amount: fixed(1, 10_000_000, 2),
      }),
      fc.record({ code: fc.constant('06') }),
      fc.record({ code: fc.constant('07'), percent: fixed(1, 2_000_000, 5) }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  condition: fc.constantFrom('contado', 'credito_30'),
});

type PurchaseBody = typeof purchaseArb extends fc.Arbitrary<infer T> ? T : never;

/** The purchase as recorded and rebuilt for signing: its prepared totals and its XML. */
function purchaseOf(body: PurchaseBody, i: number) {
  const parsed = parsePurchaseRequest(
    {
      document_type: '08',
      supplier: {
        name: 'Cloud Tools LLC',
        identification: 'US4455667788',
        identification_type: '05',
        foreign_address: '500 Market St, San Francisco, CA, USA',
      },
      ...body,
    },
    COMPANY.idNumber,
  );
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const prepared = purchaseFromCatalogue(COMPANY, parsed.value.request, parsed.value.supplier, CATALOGUE);
  const consecutivo = buildConsecutivo({ branch: '001', terminal: '00001', docType: '08', number: i + 1 });
  const row = {
    ...prepared,
    id: i + 1,
    lines: prepared.lines,
    summary: prepared.totals,
    consecutivo,
    clave: buildClave({
      date: new Date('2026-11-20T16:00:00Z'),
      emisorId: COMPANY.idNumber,
      consecutivo,
      situacion: '1',
      securityCode: randomSecurityCode(),
    }),
    issuedAt: new Date('2026-11-20T16:00:00Z'),
  } as unknown as InvoiceRow;
  const doc = facturaDocument({ proveedorSistemas: '' } as Config, row, COMPANY, null);
  return { body, totals: prepared.totals, xml: buildComprobanteXml('FacturaElectronicaCompra', doc) };
}

describe('generated facturas de compra with other charges', () => {
  it(`keep every charge in OtrosCargos and TotalComprobante; the XML validates against the FEC XSD (${RUNS / 5} purchases)`, async () => {
    const signer = createSigner(
      (
        await createTestCertificate({
          idType: COMPANY.idType as '02',
          idNumber: COMPANY.idNumber,
          name: COMPANY.legalName,
        })
      ).material,
    );
    const cases = fc.sample(purchaseArb, { numRuns: RUNS / 5, seed: SEED + 2 }).map(purchaseOf);
    for (const { body, totals, xml } of cases) {
      const s = totals.summary;
      expect(totals.otherCharges).toHaveLength(body.other_charges.length);
      const charges = totals.otherCharges.reduce((a, c) => a.plus(c.amount), new D(0));
      expect(s.totalOtrosCargos).toBe(charges.toFixed(5));
      // TotalComprobante = TotalVentaNeta + TotalImpuesto + TotalOtrosCargos (an FEC returns no IVA)
      expect(s.totalComprobante).toBe(dec(s.totalVentaNeta).plus(s.totalImpuesto).plus(charges).toFixed(5));
      expect(s.totalVentaNeta).toBe(dec(s.totalVenta).minus(dec(s.totalDescuentos)).toFixed(5));
      const root = parseXml(xml);
      expect(children(root, 'OtrosCargos').map((c) => text(c, 'MontoCargo'))).toEqual(
        totals.otherCharges.map((c) => c.amount),
      );
      expect(text(root, 'ResumenFactura', 'TotalOtrosCargos')).toBe(s.totalOtrosCargos);
      expect(text(root, 'ResumenFactura', 'TotalComprobante')).toBe(s.totalComprobante);
      // The simulator's own recomputation from the XML finds nothing to reject.
      expect(checkTotals(root)).toEqual([]);
    }
    const signed = await Promise.all(cases.map((c) => signer.then((x) => x.sign(c.xml))));
    const schema = await validateXmlBatch('FacturaElectronicaCompra', signed);
    expect(schema.flatMap((r, i) => (r.valid ? [] : [{ i, errors: r.errors.slice(0, 3) }]))).toEqual([]);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------
// Partial credit notes: fixed-amount taxes prorated, and notes that together cover every unit

/** A line of 1-5 units with a fixed-amount tax (99), sometimes a rate tax (02) and a discount. */
const taxedLineArb = fc
  .record({
    qty: fc.integer({ min: 1, max: 9 }),
    price: fixed(1, 10_000_000, 2),
    fixedTax: fixed(1, 100_000, 5),
    isc: fc.boolean(),
    discount: fc.option(fixed(1, 100_000, 5), { freq: 2 }),
  })
  .map((x): DocumentLine => ({
    cabys: '2431000000000',
    description: 'Cerveza 350 ml',
    unit: 'Unid',
    quantity: String(x.qty),
    unitPrice: x.price,
    ivaRateCode: '08',
    otherTaxes: [
      ...(x.isc ? [{ code: '02' as const, rate: '10' }] : []),
      { code: '99' as const, codeOther: 'Impuesto municipal de patente', amount: x.fixedTax },
    ],
    ...(x.discount && new D(x.discount).lt(new D(x.price).times(x.qty))
      ? { discounts: [{ amount: x.discount, code: '07' as const }] }
      : {}),
  }));

/** The quantity of a line split into 1-4 positive parts (0.001 apart at least). */
const splitsOf = (quantity: string) =>
  Math.round(Number(quantity) * 1000) < 2
    ? fc.constant<string[]>([new D(quantity).toFixed(3)])
    : fc
        .uniqueArray(fc.integer({ min: 1, max: Math.round(Number(quantity) * 1000) - 1 }), { maxLength: 3 })
        .map((cuts) => {
          const marks = [0, ...cuts.sort((a, b) => a - b), Math.round(Number(quantity) * 1000)];
          return marks.slice(1).map((m, k) => new D(m - marks[k]!).div(1000).toFixed(3));
        });

interface NoteRun {
  notes: { lines: { input: DocumentLine; credit: LineCredit }[]; totals: DocumentTotals }[];
  invoice: DocumentTotals;
}

/** Credits an invoice's lines in the given parts, one note per round, as createNote does. */
function creditInParts(
  lines: readonly DocumentLine[],
  parts: readonly (readonly string[])[],
  currency = CRC,
): NoteRun {
  const invoice = computeDocumentTotals(lines, currency);
  const notes: NoteRun['notes'] = [];
  const rounds = Math.max(...parts.map((p) => p.length));
  for (let k = 0; k < rounds; k++) {
    const credited = creditedLines(
      invoice.lines,
      notes.map((n) => ({ credits: n.lines.map((l) => l.credit), totals: n.totals.lines })),
    );
    const requested = parts.flatMap((p, j) => (p[k] ? [{ line: j + 1, qty: p[k] }] : []));
    const errors: FieldError[] = [];
    const built = noteLines(errors, lines, invoice.lines, requested, credited);
    expect(errors).toEqual([]);
    expect(built.overLine).toBeNull();
    const { lines: noteLinesOut, totals } = capNoteLines(
      built.lines,
      (inputs) => computeDocumentTotals(inputs, { ...currency, docType: '03' }),
      invoice.lines,
      credited,
    );
    notes.push({ lines: noteLinesOut, totals });
    // Never more of any amount than the invoice has, at any step.
    const sofar = creditedLines(
      invoice.lines,
      notes.map((n) => ({ credits: n.lines.map((l) => l.credit), totals: n.totals.lines })),
    );
    invoice.lines.forEach((l, j) => {
      expect(sofar[j]!.subTotal.lte(l.subTotal)).toBe(true);
      l.taxes.forEach((t, x) => expect(sofar[j]!.taxes[x]!.lte(t.amount)).toBe(true));
    });
  }
  return { notes, invoice };
}
const CRC = { currency: 'CRC' as const, exchangeRate: '1' };

/** The notes of a run add up to the invoice, line by line and in total, and nothing is left. */
function checkCovered({ notes, invoice }: NoteRun, lines: readonly DocumentLine[]): void {
  const credited = creditedLines(
    invoice.lines,
    notes.map((n) => ({ credits: n.lines.map((l) => l.credit), totals: n.totals.lines })),
  );
  // Every unit is credited; every amount up to what Hacienda's rounding of the last note leaves:
  // never more than the invoice, and less by a residue that has a bound. The last note's price
  // is to 5 decimals (MontoTotal moves by Cantidad × 0.00001), and where its computed tax would
  // take more than was left its SubTotal gives up the rounding of that tax over the lowest rate.
  const unit = new D('0.00001');
  let residue = new D(0);
  let montoResidue = new D(0);
  const upTo = (what: string, got: Dec, invoiced: string | null | undefined, bound: Dec) => {
    const left = dec(invoiced).minus(got);
    expect({ what, left: left.toFixed(5), within: left.gte(0) && left.lte(bound) }).toEqual({
      what,
      left: left.toFixed(5),
      within: true,
    });
    return left;
  };
  invoice.lines.forEach((l, j) => {
    const c = credited[j]!;
    const src = lines[j]!;
    expect(c.units.toFixed(3)).toBe(l.quantity);
    const last = notes.findLast((n) => n.lines.some((x) => x.credit.line === j + 1));
    const lastQty = dec(last?.lines.find((x) => x.credit.line === j + 1)?.input.quantity);
    const ivaRate = dec(IVA_RATES[src.ivaRateCode as CodigoTarifaIVA].rate);
    const exRate = dec(src.exoneration?.rate);
    const rates = [ivaRate, exRate, ivaRate.minus(exRate), ...(src.otherTaxes ?? []).map((t) => dec(t.rate))];
    const lowest = rates.filter((r) => r.gt(0)).reduce((a, r) => D.min(a, r), new D(100));
    const rounding = unit.times(notes.length + 1);
    const bound = D.max(lastQty, 1).times(unit).plus(rounding.times(100).div(lowest));
    const monto = upTo('MontoTotal', c.montoTotal, l.montoTotal, bound);
    // A discount of the last units gives back what exceeds their MontoTotal.
    l.discounts.forEach((d, k) => upTo('MontoDescuento', c.discounts[k]!, d.amount, monto));
    const sub = upTo('SubTotal', c.subTotal, l.subTotal, monto);
    const taxBound = rounding.times(2).plus(sub);
    const taxed = l.taxes.reduce(
      (a, t, k) => a.plus(upTo(`Impuesto ${t.code}`, c.taxes[k]!, t.amount, taxBound)),
      new D(0),
    );
    const ex = upTo('MontoExoneracion', c.exoneration, l.taxes[0]?.exoneration?.amount, taxBound);
    residue = residue.plus(sub).plus(taxed).plus(ex);
    montoResidue = montoResidue.plus(monto);
  });
  const sum = (f: (t: DocumentTotals) => string | null) =>
    notes.reduce((a, n) => a.plus(dec(f(n.totals))), new D(0));
  for (const [what, f, bound] of [
    ['TotalVenta', (t: DocumentTotals) => t.summary.totalVenta, montoResidue],
    ['TotalDescuentos', (t: DocumentTotals) => t.summary.totalDescuentos, montoResidue],
    ['TotalImpuesto', (t: DocumentTotals) => t.summary.totalImpuesto, residue],
    ['TotalComprobante', (t: DocumentTotals) => t.summary.totalComprobante, residue],
  ] as const)
    upTo(what, sum(f), f(invoice), bound);
  // Each note keeps the v4.4 identities of its own figures.
  for (const n of notes) {
    const s = n.totals.summary;
    expect(s.totalVentaNeta).toBe(dec(s.totalVenta).minus(dec(s.totalDescuentos)).toFixed(5));
    expect(s.totalComprobante).toBe(dec(s.totalVentaNeta).plus(s.totalImpuesto).toFixed(5));
    for (const l of n.totals.lines) {
      expect(l.subTotal).toBe(dec(l.montoTotal).minus(l.discountTotal).toFixed(5));
      expect(l.montoTotalLinea).toBe(dec(l.subTotal).plus(l.impuestoNeto).toFixed(5));
    }
  }
  // One more credit of 0.01 of any line, or of one unit, is refused: nothing is left.
  const errors: FieldError[] = [];
  const more = noteLines(errors, lines, invoice.lines, [{ line: 1, qty: '0.001' }], credited);
  expect(more.overLine).not.toBeNull();
  const byAmount = noteLines(errors, lines, invoice.lines, [{ line: 1, amount: '0.01' }], credited);
  // Refused as a field (more than the line ever had) or by what is left of the line.
  if (errors.length) return expect(errors.map((x) => x.code)).toEqual(['amount_exceeds_line']);
  expect(() =>
    capNoteLines(
      byAmount.lines,
      (inputs) => computeDocumentTotals(inputs, { ...CRC, docType: '03' }),
      invoice.lines,
      credited,
    ),
  ).toThrow(LineCreditExceeded);
}

/**
 * Every note of a run passes the simulator's own recomputation of its XML (MontoTotal, SubTotal,
 * each tax against its base and rate, the exoneration, the summary): what Hacienda would accept.
 */
function checkAccepted({ notes }: NoteRun): void {
  notes.forEach((n, i) => {
    const xml = noteXml(
      n.lines.map((l) => l.input),
      n.totals,
      i,
    );
    expect({ note: i + 1, of: notes.length, rows: checkTotals(parseXml(xml)).map((r) => r.message) }).toEqual(
      {
        note: i + 1,
        of: notes.length,
        rows: [],
      },
    );
  });
}

/**
 * A line of fractional units with what the credit of its last units found hardest to state: a
 * percentage-only discount, a selective consumption tax (02) in the IVA base, an exoneration.
 */
const hardLineArb = fc
  .record({
    qty: fixed(1, 99_999, 3),
    price: fixed(1, 2_000_000_000, 5),
    rateCode: fc.constantFrom('02', '03', '04', '08', '09' as const),
    percent: fc.option(fixed(1, 9_999, 2), { freq: 2 }),
    isc: fc.option(fixed(1, 5_000, 2), { freq: 2 }),
    exoneration: fc.option(fc.integer({ min: 1, max: 100 }), { freq: 2 }),
  })
  .map((x): DocumentLine => {
    const rate = new D(IVA_RATES[x.rateCode].rate);
    const exRate = x.exoneration === null ? null : D.min(rate, new D(x.exoneration).div(100).times(rate));
    return {
      cabys: '2431000000000',
      description: 'Producto a granel',
      unit: 'Kg',
      quantity: x.qty,
      unitPrice: x.price,
      ivaRateCode: x.rateCode,
      ...(x.percent ? { discounts: [{ percent: x.percent, code: '07' as const }] } : {}),
      ...(x.isc ? { otherTaxes: [{ code: '02' as const, rate: x.isc }] } : {}),
      ...(exRate && exRate.gte('0.01')
        ? {
            exoneration: {
              docType: '03' as const,
              number: 'EX-1001',
              institution: '01' as const,
              issuedAt: new Date('2026-01-15T00:00:00Z'),
              rate: exRate.toDecimalPlaces(2, D.ROUND_DOWN).toFixed(2),
            },
          }
        : {}),
    };
  });

describe('generated partial credit notes', () => {
  it(`prorate a fixed-amount tax by units and never credit more tax than invoiced (${RUNS / 2} lines)`, () => {
    fc.assert(
      fc.property(
        taxedLineArb.chain((line) => fc.tuple(fc.constant(line), splitsOf(line.quantity))),
        ([line, parts]) => {
          const run = creditInParts([line], [parts]);
          const fixedAt = run.invoice.lines[0]!.taxes.length - 1;
          const invoiced = dec(run.invoice.lines[0]!.taxes[fixedAt]!.amount);
          // Each note's fixed tax is the share of the units it credits (cumulative rounding).
          let units = new D(0);
          let taken = new D(0);
          for (const n of run.notes) {
            units = units.plus(n.lines[0]!.credit.units!);
            const got = dec(n.totals.lines[0]!.taxes[fixedAt]!.amount);
            expect(got.toFixed(5)).toBe(r5(invoiced.times(units).div(line.quantity)).minus(taken).toFixed(5));
            taken = taken.plus(got);
          }
          checkCovered(run, [line]);
          checkAccepted(run);
        },
      ),
      { numRuns: RUNS / 2, seed: SEED + 3 },
    );
  });

  it(`that together cover every unit never exceed the invoice, are each accepted, leave it fully credited and refuse one more (${RUNS / 2} invoices)`, async () => {
    // The CABYS agrees with the unit (goods or services), as the simulator reads either.
    const agreeing = lineArb.map((l): DocumentLine => {
      const { kind: _k, ...rest } = l;
      return { ...rest, cabys: SERVICE_UNITS.has(l.unit) ? '8311100000000' : '4522003990000' };
    });
    const arb = fc
      .array(agreeing, { minLength: 1, maxLength: 4 })
      .chain((lines) => fc.tuple(fc.constant(lines), fc.tuple(...lines.map((l) => splitsOf(l.quantity)))));
    const samples: { xml: string }[] = [];
    fc.assert(
      fc.property(arb, ([lines, parts]) => {
        const run = creditInParts(lines, parts);
        checkCovered(run, lines);
        checkAccepted(run);
        // The last note of a line states what was left: its taxes stay within the rounding of the
        // notes before it (each within half a unit of the 5th decimal).
        for (const n of run.notes)
          n.totals.lines.forEach((l) => {
            const tax = l.taxes[0];
            if (!tax || tax.factor || !tax.rate) return;
            const exact = dec(l.baseImponible).times(tax.rate).div(100);
            expect(dec(tax.amount).minus(exact).abs().lte(new D('0.000005').times(run.notes.length))).toBe(
              true,
            );
          });
        if (samples.length < 40)
          for (const n of run.notes)
            samples.push({
              xml: noteXml(
                n.lines.map((l) => l.input),
                n.totals,
                samples.length,
              ),
            });
      }),
      { numRuns: RUNS / 2, seed: SEED + 4 },
    );
    const signer = await createSigner(
      (
        await createTestCertificate({
          idType: '02',
          idNumber: EMISORES[0]!.idNumber,
          name: EMISORES[0]!.name,
        })
      ).material,
    );
    const signed = await Promise.all(samples.map((x) => signer.sign(x.xml)));
    const schema = await validateXmlBatch('NotaCreditoElectronica', signed);
    expect(schema.flatMap((r, i) => (r.valid ? [] : [{ i, errors: r.errors.slice(0, 3) }]))).toEqual([]);
  }, 120_000);

  it(`of fractional units, percentage discounts, taxes in the IVA base and exonerations: every note is accepted and the last leaves the line fully credited (${RUNS / 2} invoices)`, () => {
    const arb = fc
      .array(hardLineArb, { minLength: 1, maxLength: 3 })
      .chain((lines) => fc.tuple(fc.constant(lines), fc.tuple(...lines.map((l) => splitsOf(l.quantity)))));
    fc.assert(
      fc.property(arb, ([lines, parts]) => {
        const run = creditInParts(lines, parts);
        checkAccepted(run);
        checkCovered(run, lines);
      }),
      { numRuns: RUNS / 2, seed: SEED + 5 },
    );
  }, 120_000);
});

/** A credit note's XML of these lines, referencing a factura. */
function noteXml(lines: readonly DocumentLine[], totals: DocumentTotals, i: number): string {
  const emisor = EMISORES[0]!;
  const consecutivo = buildConsecutivo({ branch: '001', terminal: '00001', docType: '03', number: i + 1 });
  const issuedAt = new Date('2026-11-20T16:00:00Z');
  const clave = (c: string) =>
    buildClave({
      date: issuedAt,
      emisorId: emisor.idNumber,
      consecutivo: c,
      situacion: '1',
      securityCode: randomSecurityCode(),
    });
  return buildComprobanteXml('NotaCreditoElectronica', {
    kind: 'NotaCreditoElectronica',
    clave: clave(consecutivo),
    consecutivo,
    issuedAt,
    proveedorSistemas: '3101000001',
    activityCode: '620100',
    emisor,
    condicionVenta: '01',
    mediosPago: [{ type: '01' }],
    lines,
    totals,
    referencias: [
      {
        docType: '01',
        number: clave(buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number: 1 })),
        issuedAt,
        code: '02',
        reason: 'Devolución parcial',
      },
    ],
  } as unknown as Parameters<typeof buildComprobanteXml>[1]);
}
