// Line and document totals of a comprobante, computed the v4.4 way (the v4.4 XSD and its Anexos) with exact
// decimal arithmetic (decimal.js, never binary floats):
//
//   MontoTotal      = Cantidad × PrecioUnitario                       (rounded to 5 decimals)
//   Descuento[k]    = an amount, or a percentage of what is left after the earlier discounts
//   SubTotal        = MontoTotal − Σ Descuento
//   other taxes     = 02-06, 12, 99 as domain/other-taxes.ts computes them (rounded)
//   BaseImponible   = SubTotal + Monto of 02, 04, 05 and 12, or the base given (IVA 07, or IVA
//                     cobrado a nivel de fábrica 01, where the XSD lets the issuer state it)
//   IVA Monto       = BaseImponible × Tarifa / 100 (01, 07), BaseImponible × FactorCalculoIVA (08)
//   MontoExoneracion= BaseImponible × TarifaExonerada / 100            (rounded)
//   ImpuestoNeto    = Σ Monto − MontoExoneracion − ImpuestoAsumidoEmisorFabrica
//   MontoTotalLinea = SubTotal + ImpuestoNeto
//   TotalIVADevuelto= Σ (IVA Monto − MontoExoneracion) of the lines marked `ivaReturned` (health
//                     services paid by card); in a sale paid partly by card (MedioPago 02 beside
//                     others) the 2026 mixed-sale formula: card amount (as given) / Σ SubTotal of
//                     those lines × their IVA, rounded once (totals-charges.ts mixedIvaReturned)
//   TotalComprobante= TotalVentaNeta + TotalImpuesto + TotalOtrosCargos − TotalIVADevuelto
//
// Every line value is rounded half-up to 5 decimals once, and every summary figure is a sum of
// those rounded line values, so the summary reconciles to the last digit with what Hacienda
// recomputes from the lines. The API's `total` is TotalComprobante rounded half-up to 2 decimals.
//
// ResumenFactura buckets: each line's MontoTotal (before discounts, so that TotalVenta −
// TotalDescuentos = Σ SubTotal) goes to services or goods (the unit, see codes.ts SERVICE_UNITS,
// or the line's explicit `kind`) and to gravado / exento / no sujeto by its IVA rate code
// (codes.ts IVA_RATES); a line without IVA (IVA cobrado a nivel de fábrica 02) is exento. An exonerated line splits MontoTotal: the share TarifaExonerada / Tarifa
// is exonerado, the rest gravado. A bucket no line touches is null and is omitted from the XML.
//
// OtrosCargos: an amount, or a percentage of TotalVentaNeta (code 06, the service charge, 10 %
// unless stated), rounded once. MedioPago: amounts checked against TotalComprobante, one payment
// may take the rest (TotalsOptions.payments).
//
// Extension points: discount codes 01-03 (regalías, bonificaciones), whose IVA is computed on MontoTotal, are refused until
// their treatment is modelled.
//
// Here: the document as a whole. Beside it: totals-types.ts (the shapes in and out),
// totals-lines.ts (one line validated and computed), totals-charges.ts (OtrosCargos and MedioPago),
// other-taxes.ts (taxes 02-06, 12, 99) and decimal-input.ts (the Decimal clone, limits, parsing).
import {
  isCodigoMoneda,
  isTipoComprobante,
  type CodigoImpuesto,
  type CodigoTarifaIVA,
  type LineKind,
  type TipoComprobante,
} from './codes.ts';
import { invoicePostingFromTotals } from './chart-of-accounts.ts';
import { DomainValidationError } from './errors.ts';
import {
  D,
  type Dec,
  ZERO,
  MAX_AMOUNT,
  MAX_LINES,
  Issues,
  parseDecimal,
  r5,
  fmt5,
  fmt5OrNull,
  fmt2,
  sum,
} from './decimal-input.ts';
import type { Amount, LineInput, TotalsOptions, DocumentTotals } from './totals-types.ts';
import { type ValidLine, validateLine, type ComputedLine, computeLine } from './totals-lines.ts';
import {
  validateOtherCharges,
  computeOtherCharges,
  resolvePayments,
  mixedIvaReturned,
} from './totals-charges.ts';

export type * from './totals-types.ts';
export type { OtherTaxInput, SpecificTaxData } from './other-taxes.ts';

// ---------------------------------------------------------------------------------------------
// Document totals

/**
 * Computes every line and ResumenFactura figure of a document. Throws DomainValidationError
 * listing every invalid input (paths are JSON Pointers relative to `{ lines, otherCharges }`).
 */
export function computeDocumentTotals(lines: readonly LineInput[], options: TotalsOptions): DocumentTotals {
  const issues = new Issues();
  const { docType, exchangeRate } = validateHeader(issues, lines, options);
  const valid: ValidLine[] = [];
  lines.forEach((line, i) => {
    const v = validateLine(issues, line, i, docType);
    if (v) valid.push(v);
  });
  const charges = validateOtherCharges(issues, options.otherCharges ?? []);
  if (issues.list.length > 0 || !exchangeRate) throw new DomainValidationError(issues.list);

  const computed: ComputedLine[] = [];
  for (const v of valid) {
    const c = computeLine(issues, v);
    if (c) computed.push(c);
  }
  if (issues.list.length > 0) throw new DomainValidationError(issues.list);

  const lineSums = sumLines(computed);
  const { buckets } = lineSums;
  const totalGravado = bothKinds(buckets, 'gravado');
  const totalExento = bothKinds(buckets, 'exento');
  const totalExonerado = bothKinds(buckets, 'exonerado');
  const totalNoSujeto = bothKinds(buckets, 'noSujeto');
  const totalVenta = sum(
    [totalGravado, totalExento, totalExonerado, totalNoSujeto].filter((x) => x !== null),
  );
  const totalDescuentos = sum(computed.map((c) => c.discountTotal));
  const totalVentaNeta = totalVenta.minus(totalDescuentos);
  const totalImpuesto = sum(computed.map((c) => c.netTax));
  const other = computeOtherCharges(charges, totalVentaNeta);
  const totalOtrosCargos = sum(other.amounts);
  const totalAsumido = sum(computed.map((c) => c.assumed));
  const { totalIVADevuelto, mixed } = ivaReturnedOfDocument(issues, computed, options, lineSums.anyReturned);
  const totalComprobante = totalVentaNeta.plus(totalImpuesto).plus(totalOtrosCargos).minus(totalIVADevuelto);
  if (totalComprobante.gt(MAX_AMOUNT)) {
    throw new DomainValidationError([
      { path: '/lines', code: 'amount_too_large', message: 'TotalComprobante exceeds 13 integer digits' },
    ]);
  }
  const medioPago = options.payments
    ? resolvePayments(issues, options.payments, totalComprobante, mixed)
    : null;
  if (issues.list.length > 0) throw new DomainValidationError(issues.list);

  const totals: DocumentTotals = {
    lines: computed.map((c) => c.result),
    otherCharges: other.resolved,
    summary: {
      currency: options.currency,
      exchangeRate: fmt5(exchangeRate),
      ...bucketSummary(buckets),
      totalGravado: fmt5OrNull(totalGravado),
      totalExento: fmt5OrNull(totalExento),
      totalExonerado: fmt5OrNull(totalExonerado),
      totalNoSujeto: fmt5OrNull(totalNoSujeto),
      totalVenta: fmt5(totalVenta),
      totalDescuentos: lineSums.anyDiscount ? fmt5(totalDescuentos) : null,
      totalVentaNeta: fmt5(totalVentaNeta),
      totalDesgloseImpuesto: [...lineSums.breakdown.values()].map((b) => ({
        code: b.code,
        ivaRateCode: b.ivaRateCode,
        amount: fmt5(b.amount),
      })),
      totalImpuesto: fmt5(totalImpuesto),
      totalImpAsumEmisorFabrica: lineSums.anyAssumed ? fmt5(totalAsumido) : null,
      totalIVADevuelto: lineSums.anyReturned ? fmt5(totalIVADevuelto) : null,
      totalOtrosCargos: other.resolved.length > 0 ? fmt5(totalOtrosCargos) : null,
      ...(medioPago ? { medioPago } : {}),
      totalComprobante: fmt5(totalComprobante),
    },
    total: fmt2(totalComprobante),
  };
  checkColones(totals, options.currency, exchangeRate);
  return totals;
}

/**
 * The document-level inputs (type, currency, TipoCambio, the number of lines): their issues are
 * added to `issues`; the exchange rate is null when it is invalid.
 */
function validateHeader(
  issues: Issues,
  lines: readonly LineInput[],
  options: TotalsOptions,
): { docType: TipoComprobante; exchangeRate: Dec | null } {
  const docType = options.docType ?? '01';
  if (!isTipoComprobante(docType))
    issues.add('/docType', 'unknown_code', `unknown document type "${docType}"`);
  if (typeof options.currency !== 'string' || !isCodigoMoneda(options.currency)) {
    issues.add('/currency', 'unknown_code', `unknown CodigoMoneda "${String(options.currency)}"`);
  }
  const exchangeRate = parseDecimal(issues, '/exchangeRate', options.exchangeRate, {
    maxInt: 13,
    maxFrac: 5,
    sign: 'positive',
  });
  if (exchangeRate && options.currency === 'CRC' && !exchangeRate.eq(1)) {
    issues.add('/exchangeRate', 'out_of_range', 'TipoCambio must be 1 for CRC');
  }
  const otherChargeInputs = options.otherCharges ?? [];
  if (lines.length > MAX_LINES) issues.add('/lines', 'too_many', `at most ${MAX_LINES} lines`);
  if (lines.length === 0 && otherChargeInputs.length === 0) {
    issues.add('/lines', 'required', 'a document needs at least one line');
  }
  return { docType, exchangeRate };
}

type Bucket = 'gravado' | 'exento' | 'exonerado' | 'noSujeto';
/** ResumenFactura buckets: [services, goods] × [gravado, exento, exonerado, noSujeto]; null until touched. */
type Buckets = Record<LineKind, Record<Bucket, Dec | null>>;

interface LineSums {
  buckets: Buckets;
  /** TotalDesgloseImpuesto: the net tax per code and IVA rate, in the order first met. */
  breakdown: Map<string, { code: CodigoImpuesto; ivaRateCode: CodigoTarifaIVA | null; amount: Dec }>;
  anyAssumed: boolean;
  anyReturned: boolean;
  anyDiscount: boolean;
}

/** The computed lines gathered into the summary's buckets and tax breakdown. */
function sumLines(computed: readonly ComputedLine[]): LineSums {
  const sums: LineSums = {
    buckets: {
      services: { gravado: null, exento: null, exonerado: null, noSujeto: null },
      goods: { gravado: null, exento: null, exonerado: null, noSujeto: null },
    },
    breakdown: new Map(),
    anyAssumed: false,
    anyReturned: false,
    anyDiscount: false,
  };
  for (const c of computed) {
    const row = sums.buckets[c.result.kind];
    for (const b of ['gravado', 'exento', 'exonerado', 'noSujeto'] as const) {
      const part = c.split[b];
      if (part !== null) row[b] = (row[b] ?? ZERO).plus(part);
    }
    if (c.result.discounts.length > 0) sums.anyDiscount = true;
    if (c.assumed.gt(0)) sums.anyAssumed = true;
    if (c.ivaReturned) sums.anyReturned = true;
    for (const [k, t] of c.result.taxes.entries()) {
      const key = `${t.code}|${t.ivaRateCode ?? ''}`;
      const net = c.taxNets[k]!;
      const entry = sums.breakdown.get(key);
      if (entry) entry.amount = entry.amount.plus(net);
      else sums.breakdown.set(key, { code: t.code, ivaRateCode: t.ivaRateCode, amount: net });
    }
  }
  return sums;
}

/** A bucket over services and goods together: null when neither was touched. */
function bothKinds(buckets: Buckets, b: Bucket): Dec | null {
  const s = buckets.services[b];
  const g = buckets.goods[b];
  return s === null && g === null ? null : (s ?? ZERO).plus(g ?? ZERO);
}

/** The per-kind bucket figures of ResumenFactura. */
function bucketSummary(buckets: Buckets) {
  return {
    totalServGravados: fmt5OrNull(buckets.services.gravado),
    totalServExentos: fmt5OrNull(buckets.services.exento),
    totalServExonerado: fmt5OrNull(buckets.services.exonerado),
    totalServNoSujeto: fmt5OrNull(buckets.services.noSujeto),
    totalMercanciasGravadas: fmt5OrNull(buckets.goods.gravado),
    totalMercanciasExentas: fmt5OrNull(buckets.goods.exento),
    totalMercExonerada: fmt5OrNull(buckets.goods.exonerado),
    totalMercNoSujeta: fmt5OrNull(buckets.goods.noSujeto),
  };
}

/**
 * TotalIVADevuelto: the whole IVA of the returned lines when every payment is by card (or none is
 * stated); in a sale paid partly by card (`mixed`), the share the card amount pays
 * (mixedIvaReturned); in a note, the referenced document's share. Throws on any issue so far.
 */
function ivaReturnedOfDocument(
  issues: Issues,
  computed: readonly ComputedLine[],
  options: TotalsOptions,
  anyReturned: boolean,
): { totalIVADevuelto: Dec; mixed: boolean } {
  const returnedIva = sum(computed.map((c) => c.ivaReturned ?? ZERO));
  const payments = options.payments ?? [];
  const mixed = anyReturned && payments.some((p) => p.type === '02') && payments.some((p) => p.type !== '02');
  if (anyReturned && payments.length > 0 && !payments.some((p) => p.type === '02'))
    issues.add(
      '/payments',
      'iva_returned_needs_card',
      'the IVA of a health service is returned only when it is paid, at least in part, by card (tarjeta)',
    );
  const returnedVentaNeta = sum(
    computed.filter((c) => c.ivaReturned).map((c) => c.montoTotal.minus(c.discountTotal)),
  );
  const totalIVADevuelto = options.ivaReturnedOf
    ? noteIvaReturned(returnedIva, options.ivaReturnedOf)
    : mixed
      ? mixedIvaReturned(issues, payments, returnedVentaNeta, returnedIva)
      : returnedIva;
  if (issues.list.length > 0 || totalIVADevuelto === null) throw new DomainValidationError(issues.list);
  return { totalIVADevuelto, mixed };
}

/**
 * The document's entry is booked in colones (its amounts × TipoCambio) into columns of the same
 * shape as its amounts (MAX_AMOUNT): a document whose entry would not fit there is refused now,
 * before it is numbered, never left to fail its booking after Hacienda has it. The largest figure
 * of an entry is the sum of its credits (receivable plus the tax the issuer assumes).
 */
function checkColones(totals: DocumentTotals, currency: string, exchangeRate: Dec): void {
  if (entryBound(totals) * exchangeRate.toNumber() < ENTRY_BOUND_LIMIT) return;
  const posting = invoicePostingFromTotals(totals, fmt5(exchangeRate));
  const credits = posting.reduce((a, l) => a.plus(l.credit), ZERO);
  const largest = posting.reduce((a, l) => D.max(a, l.debit, l.credit), credits);
  if (largest.lte(MAX_AMOUNT)) return;
  const amount = largest.toFixed(2);
  throw new DomainValidationError([
    {
      path: currency === 'CRC' ? '/lines' : '/exchangeRate',
      code: 'amount_too_large',
      message:
        `el asiento en colones (montos × TipoCambio) supera 13 dígitos enteros: ₡${amount} / ` +
        `the entry in colones (amounts × TipoCambio) exceeds 13 integer digits: ₡${amount}`,
    },
  ]);
}

/**
 * A quick bound, before TipoCambio, on the figures of the document's entry: T, the sum of the
 * absolute values of everything invoicePostingFromTotals reads. Each part of the entry is a sum of
 * those values with either sign (the other taxes can count three times: in their own credit, off
 * the IVA, and through their line's net tax), so no figure of the entry, nor the sum of its
 * credits, exceeds 4 × T × TipoCambio plus a few centavos of rounding. A document with
 * T × TipoCambio under an eighth of MAX_AMOUNT therefore fits, and only one near the limit pays for
 * the exact entry. Plain doubles are enough for a bound this loose (relative error about 1e-16);
 * anything not finite takes the exact path.
 */
export function entryBound(totals: DocumentTotals): number {
  let bound = abs(totals.summary.totalImpuesto) + abs(totals.summary.totalOtrosCargos);
  bound += abs(totals.summary.totalIVADevuelto);
  for (const l of totals.lines) {
    bound += abs(l.subTotal) + abs(l.impuestoNeto) + abs(l.impuestoAsumidoEmisorFabrica);
    for (const t of l.taxes) bound += abs(t.amount);
  }
  for (const c of totals.otherCharges) bound += abs(c.amount);
  return bound;
}
/** |a| as a double, 0 for an absent figure (entryBound). */
function abs(a: Amount | null | undefined): number {
  return a ? Math.abs(Number(a)) : 0;
}
const ENTRY_BOUND_LIMIT = MAX_AMOUNT.toNumber() / 8;

/**
 * What a note on this document needs to return IVA in the same share (TotalsOptions.ivaReturnedOf):
 * its TotalIVADevuelto and the IVA of its returned lines; undefined when it returned none.
 */
export function returnedIvaShare(
  t: Pick<DocumentTotals, 'lines' | 'summary'>,
): { returned: Amount; iva: Amount } | undefined {
  if (!t.summary.totalIVADevuelto) return undefined;
  return {
    returned: t.summary.totalIVADevuelto,
    iva: fmt5(sum(t.lines.map((l) => new D(l.ivaReturned ?? 0)))),
  };
}

/**
 * The IVA each line returns, as the document returns it: all of a returned line's IVA when the whole
 * IVA of those lines is returned, else (a sale paid partly by card, a note returning such a sale's
 * share) each line's part of TotalIVADevuelto in proportion to its IVA, with cumulative rounding so
 * the parts add up to TotalIVADevuelto exactly. Null for a line that returns none.
 */
export function ivaReturnedByLine(t: Pick<DocumentTotals, 'lines' | 'summary'>): (Amount | null)[] {
  const total = t.summary.totalIVADevuelto;
  const own = t.lines.map((l) => (l.ivaReturned ? new D(l.ivaReturned) : null));
  const iva = sum(own.filter((x): x is Dec => x !== null));
  if (!total || new D(total).eq(iva) || iva.isZero()) return own.map((x) => (x === null ? null : fmt5(x)));
  let cum = ZERO;
  let given = ZERO;
  return own.map((x) => {
    if (x === null) return null;
    cum = cum.plus(x);
    const upTo = r5(cum.times(total).div(iva));
    const part = upTo.minus(given);
    given = upTo;
    return fmt5(part);
  });
}

/** A note's IVA devuelto: the referenced document's share of the IVA, applied to the note's lines. */
function noteIvaReturned(iva: Dec, of: { returned: string; iva: string }): Dec {
  const docIva = new D(of.iva);
  if (iva.eq(docIva)) return new D(of.returned);
  return docIva.isZero() ? ZERO : r5(iva.times(of.returned).div(docIva));
}

/** Validates a money string (≥ 0, ≤ 13 integer digits, ≤ 5 decimals) and writes it with 5 decimals. */
export function formatAmount(value: string, path = ''): Amount {
  const issues = new Issues();
  const d = parseDecimal(issues, path, value, { maxInt: 13, maxFrac: 5, sign: 'nonNegative' });
  if (!d) throw new DomainValidationError(issues.list);
  return fmt5(d);
}

/** An amount in the document currency converted to colones with TipoCambio, rounded to 5 decimals. */
export function toColones(amount: string, exchangeRate: string): Amount {
  return fmt5(r5(new D(amount).times(exchangeRate)));
}
