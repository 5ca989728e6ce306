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
  totalsOf,
  type InvoiceCase,
} from './helpers/invoice-arbitraries.ts';
import { verifyManyWithXmlsec } from './helpers/xmlsec.ts';

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
