// The lines of a recibo electrónico de pago (10): the payment's share of every tax of the factura
// it settles. The factura's lines are grouped by their full tax signature — the IVA (code, rate
// code, FactorCalculoIVA, exoneration rate; none when the factory collected it) and each other
// tax (02-06, 12, 99 with its CodigoImpuestoOTRO) — and each group becomes one receipt line:
//
//   SubTotal          = the payment's share of the group's Σ SubTotal
//   other taxes       = the payment's share of the group's Σ Monto of each (stated: the REP has no
//                       quantity nor DatosImpuestoEspecifico to compute them from)
//   IVA Monto         = recomputed on the receipt, (SubTotal + Monto of 02, 04, 05, 12) × Tarifa
//                       (× FactorCalculoIVA for 08; on the share of the stated base for 07), as
//                       the REP's SubTotal is "el monto del pago … para el cálculo del IVA" (XSD);
//                       an exoneration is recomputed at its TarifaExonerada and taken off
//                       ImpuestoNeto, and so is the share of ImpuestoAsumidoEmisorFabrica.
//
// Each OtrosCargos of the factura (the REP has no OtrosCargos) is a line of its own: its share as
// SubTotal with an Impuesto 01 at CodigoTarifaIVA 11 (0 %, no sujeto) and Monto 0 — a charge
// beside the sale carries no IVA in the factura either.
//
// Shares are cumulative: with T the factura's TotalComprobante, P the payments before this one and
// A this payment, a figure x contributes r5(x × min(1, (P + A) / T)) − r5(x × min(1, P / T)) — and
// x − r5(x × min(1, P / T)) when the payment settles the factura (a payment of the balance rounded
// to centavos leaves no sub-centavo share behind) — so the receipts of a factura paid in full add up to exactly its SubTotals, other taxes and charges
// (the IVA, recomputed per receipt, to its 5-decimal rounding). The receipt's total must be A to
// the last decimal: what the rounding leaves is taken by one line whose total can reach it
// exactly — a charge, an untaxed line, else the taxed line with the largest SubTotal, else that
// line and a second line of the same taxes (a taxed line's total skips values: SubTotal + IVA
// moves by 2 units when the IVA's rounding steps up).
import type { DocumentLine } from './document-line.ts';
import { D, type Dec, ZERO, r5, fmt5 } from './decimal-input.ts';
import { computeDocumentTotals } from './totals.ts';
import type { OtherTaxInput } from './other-taxes.ts';
import type { LineTotals, ResolvedOtherCharge } from './totals-types.ts';
import { isIvaTaxCode, type CodigoMoneda } from './codes.ts';
import { RECIBO_PAGO } from './document-types/recibo-pago.ts';

export interface ReceiptSource {
  lines: readonly DocumentLine[];
  /** The factura's computed lines (SubTotal, taxes, ImpuestoAsumido), in the order of `lines`. */
  lineTotals: readonly LineTotals[];
  otherCharges: readonly ResolvedOtherCharge[];
  totalComprobante: string;
  currency: string;
  exchangeRate: string;
  /** Detalle of every line (3-200 characters), e.g. "Pago de la factura 00100001010000000042". */
  label: string;
}

interface Group {
  line: DocumentLine;
  subTotal: Dec;
  statedBase: Dec | null;
  assumed: Dec;
  taxes: Map<string, { code: OtherTaxInput['code']; codeOther: string | null; amount: Dec }>;
}

const UNIT = new D('0.00001');
const MAX_DETALLE = 200;

function signature(l: DocumentLine): string {
  const others = (l.otherTaxes ?? []).map((t) => `${t.code}:${t.codeOther ?? ''}`).sort();
  const iva =
    l.ivaCollectedAtFactory === '02'
      ? 'none'
      : [
          l.taxCode ?? '01',
          l.ivaRateCode,
          l.ivaFactor ?? '',
          l.exoneration ? new D(l.exoneration.rate).toFixed(2) : '',
        ].join('|');
  return `${iva}#${others.join(',')}`;
}

/** The factura's lines grouped by how they are taxed, with their SubTotals, bases and taxes summed. */
function taxGroups(src: ReceiptSource): Map<string, Group> {
  const groups = new Map<string, Group>();
  src.lines.forEach((l, i) => {
    const t = src.lineTotals[i];
    if (!t) return;
    const key = signature(l);
    let g = groups.get(key);
    if (!g) {
      g = { line: l, subTotal: ZERO, statedBase: null, assumed: ZERO, taxes: new Map() };
      groups.set(key, g);
    }
    g.subTotal = g.subTotal.plus(t.subTotal);
    // Only IVA 07 states its base on the receipt; a base stated for IVA cobrado a nivel de
    // fábrica 01 is not kept (the REP's IVA is then computed on its SubTotal).
    if ((l.taxCode ?? '01') === '07') g.statedBase = (g.statedBase ?? ZERO).plus(t.baseImponible);
    g.assumed = g.assumed.plus(t.impuestoAsumidoEmisorFabrica);
    for (const tax of t.taxes) {
      if (isIvaTaxCode(tax.code)) continue;
      const k = `${tax.code}:${tax.codeOther ?? ''}`;
      const entry = g.taxes.get(k);
      if (entry) entry.amount = entry.amount.plus(tax.amount);
      else
        g.taxes.set(k, {
          code: tax.code as OtherTaxInput['code'],
          codeOther: tax.codeOther ?? null,
          amount: new D(tax.amount),
        });
    }
  });
  return groups;
}

type Share = (x: Dec) => Dec;
type Evaluate = (line: DocumentLine) => ReturnType<typeof computeDocumentTotals>['lines'][number];

/** The receipt line of one group: the payment's share of its SubTotal, base, taxes and assumed tax. */
function groupLine(g: Group, src: ReceiptSource, share: Share, evaluate: Evaluate): DocumentLine {
  const l = g.line;
  const line: DocumentLine = {
    cabys: l.cabys,
    description: src.label,
    unit: l.unit,
    ...(l.kind ? { kind: l.kind } : {}),
    quantity: '1',
    unitPrice: fmt5(share(g.subTotal)),
    taxCode: l.taxCode ?? '01',
    ivaRateCode: l.ivaRateCode,
    ...(l.ivaFactor ? { ivaFactor: l.ivaFactor } : {}),
    ...(g.statedBase ? { taxableBase: fmt5(share(g.statedBase)) } : {}),
    ...(l.ivaCollectedAtFactory === '02' ? { ivaCollectedAtFactory: '02' as const } : {}),
    ...(g.taxes.size > 0
      ? {
          otherTaxes: [...g.taxes.values()].map((t) => ({
            code: t.code,
            ...(t.codeOther ? { codeOther: t.codeOther } : {}),
            amount: fmt5(share(t.amount)),
          })),
        }
      : {}),
    ...(l.exoneration ? { exoneration: l.exoneration } : {}),
  };
  const assumed = share(g.assumed);
  if (assumed.gt(0)) {
    // Never more than the receipt line's own tax (the shares round apart).
    const t = evaluate(line);
    const tax = t.taxes.reduce((s, x) => s.plus(x.amount).minus(x.exoneration?.amount ?? 0), ZERO);
    line.assumedTax = fmt5(D.min(assumed, tax));
  }
  return line;
}

/**
 * The receipt's lines for a payment of `amount` after `paidBefore` (both in the factura's
 * currency); `settles`: the payment leaves nothing of the factura to pay.
 */
export function receiptLines(
  src: ReceiptSource,
  amount: string,
  paidBefore: string,
  settles: boolean,
): DocumentLine[] {
  const total = new D(src.totalComprobante);
  const cap = (x: Dec) => (total.lte(0) || x.gte(total) ? new D(1) : x.div(total));
  const c0 = cap(new D(paidBefore));
  const c1 = settles ? new D(1) : cap(new D(paidBefore).plus(amount));
  const share: Share = (x) => r5(x.times(c1)).minus(r5(x.times(c0)));

  // Computed under the recibo electrónico de pago's rules (its descriptor).
  const opts = {
    currency: src.currency as CodigoMoneda,
    exchangeRate: src.exchangeRate,
    docType: RECIBO_PAGO.rules,
  };
  const evaluate: Evaluate = (line) => computeDocumentTotals([line], opts).lines[0]!;
  const taxed = [...taxGroups(src).values()].map((g) => groupLine(g, src, share, evaluate));
  const cabys = src.lines[0]?.cabys ?? '0'.repeat(13);
  const charges: DocumentLine[] = src.otherCharges.map((c) => ({
    cabys,
    description: `${src.label}: ${c.detail}`.slice(0, MAX_DETALLE),
    unit: 'Os',
    kind: 'services',
    quantity: '1',
    unitPrice: fmt5(share(new D(c.amount))),
    taxCode: '01',
    ivaRateCode: '11',
  }));
  const lines = [...taxed, ...charges];
  absorbRemainder(lines, new D(amount), evaluate);
  return lines;
}

/** Moves the lines' SubTotals by the few units of rounding so that their totals add up to `target`. */
function absorbRemainder(
  lines: DocumentLine[],
  target: Dec,
  evaluate: (l: DocumentLine) => LineTotals,
): void {
  const totalOf = (l: DocumentLine) => new D(evaluate(l).montoTotalLinea);
  const sumTotals = () => lines.reduce((s, l) => s.plus(totalOf(l)), ZERO);
  const delta = target.minus(sumTotals());
  if (delta.isZero()) return;
  // A line reaches `d` more exactly with some SubTotal near S + d / slope, or not at all.
  const reach = (i: number, d: Dec): string | null => {
    const l = lines[i]!;
    const s = new D(l.unitPrice);
    const now = totalOf(l);
    const at = (x: Dec) => totalOf({ ...l, unitPrice: fmt5(x) });
    const slope = at(s.plus(1)).minus(now);
    const guess = slope.isZero() ? s : r5(s.plus(d.div(slope)));
    for (const j of [0, -1, 1, -2, 2, -3, 3]) {
      const x = guess.plus(UNIT.times(j));
      if (x.lt(0)) continue;
      if (at(x).minus(now).eq(d)) return fmt5(x);
    }
    return null;
  };
  // Charges first (no tax: always exact), then the lines by SubTotal, largest first.
  const order = lines
    .map((l, i) => ({ i, charge: l.ivaRateCode === '11' && l.unit === 'Os', s: new D(l.unitPrice) }))
    .sort((a, b) => (a.charge !== b.charge ? (a.charge ? -1 : 1) : b.s.cmp(a.s)))
    .map((o) => o.i);
  for (const i of order) {
    const x = reach(i, delta);
    if (x !== null) {
      lines[i] = { ...lines[i]!, unitPrice: x };
      return;
    }
  }
  // Two lines share it: a few units on one, the rest on another.
  const tryPair = (): boolean => {
    for (const i of order)
      for (const j of order) {
        if (i === j) continue;
        for (const k of [1, -1, 2, -2, 3, -3]) {
          const e = UNIT.times(k);
          const xi = reach(i, delta.minus(e));
          const xj = xi === null ? null : reach(j, e);
          if (xi !== null && xj !== null) {
            lines[i] = { ...lines[i]!, unitPrice: xi };
            lines[j] = { ...lines[j]!, unitPrice: xj };
            return true;
          }
        }
      }
    return false;
  };
  if (tryPair()) return;
  // One taxed line alone cannot: a second line of its IVA (its other taxes stay on the first)
  // takes a few units of its SubTotal.
  const first = lines[order[0]!]!;
  const { otherTaxes: _o, assumedTax: _a, taxableBase: _b, ...plain } = first;
  lines.push({ ...plain, unitPrice: fmt5(ZERO) });
  order.push(lines.length - 1);
  if (tryPair()) return;
  lines.pop();
  throw new Error(`receipt lines cannot add up to ${fmt5(target)}`);
}
