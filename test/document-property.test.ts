// Property test over generated invoices: 1-20 lines, quantities with 3 decimals, prices with 5,
// stacked discounts, every IVA rate code allowed in an FE, goods and services units, exonerations,
// other charges, CRC / USD / EUR. For each invoice the totals must satisfy the v4.4 identities
// (checked here with an independent decimal computation), and the XML, once signed, must validate
// against the official 2026 FacturaElectronica XSD and pass both signature verifiers (xadesjs and
// xmlsec1); changing one byte after signing must break both. Schema and xmlsec checks run in
// batches so that 500 documents take seconds.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../domain/clave.ts';
import {
  CONDICIONES_VENTA_CREDITO,
  CONDICIONES_VENTA_FE,
  IVA_RATES,
  IVA_RATE_CODES_FE,
  SERVICE_UNITS,
  UNIDADES_MEDIDA,
  type CodigoDescuento,
  type CodigoTarifaIVA,
  type UnidadMedida,
} from '../domain/codes.ts';
import {
  computeDocumentTotals,
  type DiscountInput,
  type DocumentTotals,
  type OtherChargeInput,
} from '../domain/totals.ts';
import { createSigner, type XadesSigner } from '../hacienda/signer.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import type { DocumentLine, Emisor, FacturaDocument, MedioPago, Receptor } from '../hacienda/xml/types.ts';
import { validateXmlBatch } from '../hacienda/xsd.ts';
import { verifyManyWithXmlsec } from './helpers/xmlsec.ts';

const RUNS = 500;
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
type Dec = InstanceType<typeof D>;
const r5 = (d: Dec): Dec => d.toDecimalPlaces(5, D.ROUND_HALF_UP);
const dec = (s: string | null | undefined): Dec => new D(s ?? 0);

// ---------------------------------------------------------------------------------------------
// Generators

/** A decimal string with exactly `frac` decimals from an integer count of the smallest unit. */
const fixed = (min: number, max: number, frac: number): fc.Arbitrary<string> =>
  fc.integer({ min, max }).map((n) => new D(n).div(10 ** frac).toFixed(frac));

/** Same value written in a shorter form (trailing zeros and dot dropped), as clients send it. */
const loose = (a: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(a, fc.boolean()).map(([s, trim]) => (trim ? new D(s).toString() : s));

/** A string of exactly `n` digits. */
const digits = (n: number): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));

const text = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.constantFrom('a', 'Z', '7', ' ', 'ñ', 'é', 'Ü', '&', '<', '>', '"', "'", '—', '🇨🇷', '€'),
    minLength: min,
    maxLength: max,
  });

const serviceUnits = [...SERVICE_UNITS];
const allUnits = UNIDADES_MEDIDA.map(([code]) => code);
const unitArb: fc.Arbitrary<UnidadMedida> = fc.oneof(
  fc.constantFrom(...serviceUnits),
  fc.constantFrom(...allUnits),
);
const discountCodes: CodigoDescuento[] = ['04', '05', '06', '07', '08', '09', '99'];

interface DiscountDraft {
  kind: 'amount' | 'percent';
  percent: string;
  /** Share (in 1/100000) of what is left that an amount discount takes. */
  fraction: number;
  code: CodigoDescuento;
  codeOther: string;
  nature: string | null;
}

/** Turns drafts into discounts whose amounts never exceed what the earlier ones left. */
function stackDiscounts(montoTotal: Dec, drafts: DiscountDraft[]): DiscountInput[] {
  let left = montoTotal;
  const out: DiscountInput[] = [];
  for (const d of drafts) {
    const common = {
      code: d.code,
      ...(d.code === '99' ? { codeOther: d.codeOther } : {}),
      ...(d.nature === null ? {} : { nature: d.nature }),
    };
    if (d.kind === 'percent') {
      left = left.minus(r5(left.times(d.percent).div(100)));
      out.push({ percent: d.percent, ...common });
    } else {
      const amount = left.times(d.fraction).div(100_000).toDecimalPlaces(5, D.ROUND_DOWN);
      if (amount.lte(0)) continue;
      left = left.minus(amount);
      out.push({ amount: amount.toString(), ...common });
    }
  }
  return out;
}

const lineArb: fc.Arbitrary<DocumentLine> = fc
  .record({
    cabys: digits(13),
    description: text(3, 60),
    quantity: loose(fixed(1, 9_999_999, 3)), // 0.001 .. 9999.999
    unitPrice: loose(fixed(0, 2_000_000_000, 5)), // 0 .. 20000.00000
    unit: unitArb,
    kind: fc.option(fc.constantFrom('goods' as const, 'services' as const), { freq: 8 }),
    ivaRateCode: fc.constantFrom(...IVA_RATE_CODES_FE),
  })
  .chain((base) => {
    // MontoTotal, to keep amount discounts within what earlier discounts left.
    const montoTotal = r5(dec(base.quantity).times(base.unitPrice));
    const discount = fc.record({
      kind: fc.constantFrom('amount' as const, 'percent' as const),
      percent: fixed(1, 10_000_000, 5), // 0.00001 .. 100
      fraction: fc.integer({ min: 1, max: 100_000 }),
      code: fc.constantFrom(...discountCodes),
      codeOther: text(5, 40),
      nature: fc.option(text(3, 40)),
    });
    const rate = new D(IVA_RATES[base.ivaRateCode].rate);
    const exonerable = IVA_RATES[base.ivaRateCode].treatment === 'gravado' && rate.gt(0);
    return fc
      .record({
        discounts: fc.array(discount, { maxLength: 5 }),
        exoneration: exonerable
          ? fc.option(
              fc.record({
                rateCents: fc.integer({ min: 1, max: rate.times(100).toNumber() }),
                docType: fc.constantFrom('01', '02', '03', '08', '99' as const),
                institution: fc.constantFrom('01', '02', '12', '99' as const),
                number: fc.integer({ min: 1, max: 999_999 }).map((n) => `EX-${n}`),
                issuedAt: fc.date({
                  min: new Date('2024-01-01T00:00:00Z'),
                  max: new Date('2026-10-31T00:00:00Z'),
                  noInvalidDate: true,
                }),
              }),
              { freq: 4 },
            )
          : fc.constant(null),
      })
      .map(({ discounts, exoneration }): DocumentLine => ({
        ...base,
        kind: base.kind ?? undefined,
        discounts: stackDiscounts(montoTotal, discounts),
        ...(exoneration
          ? {
              exoneration: {
                docType: exoneration.docType,
                ...(exoneration.docType === '99' ? { docTypeOther: 'Convenio especial' } : {}),
                number: exoneration.number,
                institution: exoneration.institution,
                ...(exoneration.institution === '99' ? { institutionOther: 'Municipalidad' } : {}),
                issuedAt: exoneration.issuedAt,
                rate: new D(exoneration.rateCents).div(100).toFixed(2),
              },
            }
          : {}),
      }));
  });

const receptorArb: fc.Arbitrary<Receptor> = fc
  .record({
    name: text(3, 80),
    id: fc.oneof(
      fc
        .integer({ min: 100_000_000, max: 999_999_999 })
        .map(String)
        .map((n) => ({ idType: '01' as const, idNumber: n })),
      fc
        .integer({ min: 0, max: 999_999_999 })
        .map((n) => `3${String(n).padStart(9, '0')}`)
        .map((n) => ({ idType: '02' as const, idNumber: n })),
      fc
        .integer({ min: 100_000, max: 999_999 })
        .map(
          (n) =>
            `${n}${String(n * 7)
              .padStart(6, '0')
              .slice(-6)}`,
        )
        .map((n) => ({ idType: '03' as const, idNumber: n })),
    ),
    ubicacion: fc.option(
      fc.record({
        provincia: fc.constantFrom('1', '2', '3', '4', '5', '6', '7'),
        canton: fc.constantFrom('01', '02', '10'),
        distrito: fc.constantFrom('01', '05'),
        otrasSenas: text(5, 100),
      }),
    ),
    email: fc.option(fc.constantFrom('a@example.com', 'cuentas.por.pagar@empresa.example')),
  })
  .map(({ name, id, ubicacion, email }) => ({
    name,
    ...id,
    ...(ubicacion ? { ubicacion } : {}),
    ...(email ? { email } : {}),
  }));

const currencyArb = fc.oneof(
  { arbitrary: fc.constant({ currency: 'CRC' as const, exchangeRate: '1' }), weight: 2 },
  fc.record({ currency: fc.constant('USD' as const), exchangeRate: fixed(45_000_000, 70_000_000, 5) }),
  fc.record({ currency: fc.constant('EUR' as const), exchangeRate: fixed(50_000, 80_000, 2) }),
);

const otherChargeArb: fc.Arbitrary<OtherChargeInput> = fc
  .record({
    code: fc.constantFrom('01', '02', '06', '07', '99' as const),
    detail: text(1, 60),
    amount: fixed(0, 100_000_000, 5),
  })
  .map((c) => ({ ...c, ...(c.code === '99' ? { codeOther: 'Cargo adicional' } : {}) }));

interface InvoiceCase {
  lines: DocumentLine[];
  currency: { currency: 'CRC' | 'USD' | 'EUR'; exchangeRate: string };
  otherCharges: OtherChargeInput[];
  receptor: Receptor;
  emisorIndex: number;
  condicion: (typeof CONDICIONES_VENTA_FE)[number];
  plazo: number;
  medios: MedioPago['type'][];
  issuedAt: Date;
  activity: string;
  receptorActivity: string | null;
}

const invoiceArb: fc.Arbitrary<InvoiceCase> = fc.record({
  lines: fc.array(lineArb, { minLength: 1, maxLength: 20 }),
  currency: currencyArb,
  otherCharges: fc.array(otherChargeArb, { maxLength: 2 }),
  receptor: receptorArb,
  emisorIndex: fc.integer({ min: 0, max: 1 }),
  condicion: fc.constantFrom(...CONDICIONES_VENTA_FE),
  plazo: fc.integer({ min: 0, max: 120 }),
  medios: fc.uniqueArray(fc.constantFrom('01', '02', '03', '04', '05', '06', '07', '99' as const), {
    minLength: 1,
    maxLength: 4,
  }),
  issuedAt: fc.date({
    min: new Date('2026-11-01T06:00:00Z'),
    max: new Date('2027-12-31T23:59:59Z'),
    noInvalidDate: true,
  }),
  activity: digits(6),
  receptorActivity: fc.option(digits(6)),
});

function totalsOf(c: InvoiceCase): DocumentTotals {
  return computeDocumentTotals(c.lines, { ...c.currency, otherCharges: c.otherCharges });
}

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
  const otros = c.otherCharges.reduce((a, o) => a.plus(o.amount), new D(0));
  eq(s.totalOtrosCargos, otros);
  eq(
    s.totalComprobante,
    dec(s.totalVentaNeta).plus(s.totalImpuesto).plus(dec(s.totalOtrosCargos)).minus(dec(s.totalIVADevuelto)),
  );
  eq(s.totalComprobante, montoTotalLinea.plus(otros));
  expect(s.exchangeRate).toBe(dec(c.currency.exchangeRate).toFixed(5));
  // API total: TotalComprobante to 2 decimals, half-up
  expect(t.total).toBe(dec(s.totalComprobante).toDecimalPlaces(2, D.ROUND_HALF_UP).toFixed(2));
}

// ---------------------------------------------------------------------------------------------

const EMISORES: Emisor[] = [
  {
    name: 'Distribuidora La Sabana S.A.',
    idType: '02',
    idNumber: '3101765432',
    ubicacion: { provincia: '1', canton: '08', distrito: '01', otrasSenas: 'Frente al parque de Sabana Sur' },
    emails: ['fe@lasabana.example'],
  },
  {
    name: 'José Ramírez Mora',
    idType: '01',
    idNumber: '401230456',
    commercialName: 'Taller Ramírez',
    ubicacion: {
      provincia: '4',
      canton: '01',
      distrito: '02',
      barrio: 'Barrio Fátima',
      otrasSenas: 'Del Walmart 300 m oeste',
    },
    phone: { countryCode: '506', number: '88776655' },
    emails: ['taller@ramirez.example', 'contabilidad@ramirez.example'],
  },
];

function facturaOf(c: InvoiceCase, index: number, totals: DocumentTotals): FacturaDocument {
  const emisor = EMISORES[c.emisorIndex] as Emisor;
  const consecutivo = buildConsecutivo({
    branch: '001',
    terminal: '00001',
    docType: '01',
    number: index + 1,
  });
  const medios: MedioPago[] = c.medios.map((type, k) => ({
    type,
    ...(type === '99' ? { other: 'Canje de puntos' } : {}),
    ...(c.medios.length > 1 ? { total: k === 0 ? totals.summary.totalComprobante : '0' } : {}),
  }));
  return {
    clave: buildClave({
      date: c.issuedAt,
      emisorId: emisor.idNumber,
      consecutivo,
      situacion: '1',
      securityCode: randomSecurityCode(),
    }),
    consecutivo,
    issuedAt: c.issuedAt,
    proveedorSistemas: '3101000001',
    activityCode: c.activity,
    ...(c.receptorActivity ? { receptorActivityCode: c.receptorActivity } : {}),
    emisor,
    receptor: c.receptor,
    condicionVenta: c.condicion,
    ...(c.condicion === '99' ? { condicionVentaOtros: 'Permuta de servicios' } : {}),
    ...(CONDICIONES_VENTA_CREDITO.includes(c.condicion) ? { plazoCredito: c.plazo } : {}),
    mediosPago: medios,
    lines: c.lines,
    totals,
  };
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
  });
});
