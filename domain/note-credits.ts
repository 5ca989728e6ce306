// How the lines of a document are credited (and debited) piece by piece, so that the credit notes
// of a line never take more than the line and, together, take the whole line:
//
// - each note line remembers what it credits (LineCredit: the referenced line, its units, which
//   of the line's discounts it carries), and the document's earlier credit notes add up to what
//   they took of each line (CreditedLine);
// - a note for some units of a line computes its amounts like any line, except the amounts the
//   line states (a fixed discount, a fixed-amount tax such as a 99 "otros" of 150, a stated
//   BaseImponible, ImpuestoAsumidoEmisorFabrica): those are prorated by units, cumulatively
//   (what the units credited so far are worth, less what earlier notes took), so rounding never
//   adds up to more than the line; a prorated discount that rounds to 0 is left out;
// - the note that takes the last units of a line takes what the earlier notes left of every
//   stated amount (each discount, a fixed-amount tax, a stated base) and, at the price nearest to
//   what is left of MontoTotal, computes the rest as Hacienda recomputes it: MontoTotal =
//   Cantidad × PrecioUnitario, each tax = round(base × Tarifa, 5), MontoExoneracion =
//   round(base × TarifaExonerada, 5), each to within half a unit of the 5th decimal. Where
//   Hacienda's rule and exact sums cannot both hold, Hacienda's rule wins: the last note may
//   take a few 0.00001 less than what was left (of MontoTotal and SubTotal, with many units at a
//   price of 5 decimals, as much as Cantidad × 0.00001); that residue is not creditable, since
//   the line counts as fully credited by its units (every unit credited);
// - no note line takes more of any amount than the earlier notes left (MontoTotal, SubTotal,
//   each tax, the exoneration, the IVA net of it): where its amounts would, its price is lowered
//   to the highest one that fits (fitToLine), so every note stays one Hacienda accepts;
// - a credit by amount prorates the stated amounts by its share of the line's SubTotal; it is
//   refused once every unit of the line is credited.
import { BASE_TAX_CODES, IVA_RATES } from './codes.ts';
import type { DocumentLine } from './document-line.ts';
import { D, type Dec, ZERO, r5, fmt5 } from './decimal-input.ts';
import type { DiscountInput, LineTotals, StatedAmounts } from './totals-types.ts';

/** What a note line credits of the referenced document's line, kept with the note's line. */
export interface LineCredit {
  /** The referenced line, 1-based. */
  line: number;
  /** Its units this note line takes; null for a credit by amount. */
  units: string | null;
  /** For each discount of the note line, the referenced line's discount (0-based) it comes from. */
  discounts: number[];
}

/** What the earlier credit notes took of one line of the referenced document. */
export interface CreditedLine {
  units: Dec;
  montoTotal: Dec;
  discounts: Dec[];
  subTotal: Dec;
  base: Dec;
  /** Monto of each tax, in the line's order. */
  taxes: Dec[];
  exoneration: Dec;
  assumed: Dec;
}

const money = (v: string | null | undefined): Dec => new D(v ?? 0);
const nonNegative = (d: Dec): Dec => (d.isNegative() ? ZERO : d);

/**
 * What the earlier credit notes (`credits[i]` beside `totals[i]` for each of their lines) took of
 * each line of the document. Lines of notes recorded without a LineCredit are not counted here
 * (their amounts still count in the document's credited total).
 */
export function creditedLines(
  original: readonly LineTotals[],
  earlier: readonly { credits: readonly (LineCredit | undefined)[]; totals: readonly LineTotals[] }[],
): CreditedLine[] {
  const out: CreditedLine[] = original.map((l) => ({
    units: ZERO,
    montoTotal: ZERO,
    discounts: l.discounts.map(() => ZERO),
    subTotal: ZERO,
    base: ZERO,
    taxes: l.taxes.map(() => ZERO),
    exoneration: ZERO,
    assumed: ZERO,
  }));
  for (const note of earlier)
    note.totals.forEach((t, i) => {
      const c = note.credits[i];
      const acc = c ? out[c.line - 1] : undefined;
      if (!c || !acc) return;
      if (c.units !== null) acc.units = acc.units.plus(c.units);
      acc.montoTotal = acc.montoTotal.plus(t.montoTotal);
      t.discounts.forEach((d, k) => {
        const at = c.discounts[k];
        if (at !== undefined && at < acc.discounts.length)
          acc.discounts[at] = acc.discounts[at]!.plus(d.amount);
      });
      acc.subTotal = acc.subTotal.plus(t.subTotal);
      acc.base = acc.base.plus(t.baseImponible);
      t.taxes.forEach((x, k) => {
        if (k < acc.taxes.length) acc.taxes[k] = acc.taxes[k]!.plus(x.amount);
      });
      acc.exoneration = acc.exoneration.plus(money(t.taxes[0]?.exoneration?.amount));
      acc.assumed = acc.assumed.plus(t.impuestoAsumidoEmisorFabrica);
    });
  return out;
}

/**
 * Whether credit notes took every line whole: all its units (or all its SubTotal), and what they
 * left of the document's total (`remaining`) is no more than the rounding residue of the lines'
 * last notes (what they left of each SubTotal and tax), which is not creditable. A fixed other
 * charge not credited keeps the document open.
 */
export function fullyCredited(
  original: readonly LineTotals[],
  credited: readonly CreditedLine[],
  remaining: Dec,
): boolean {
  let residue = ZERO;
  for (const [j, l] of original.entries()) {
    const c = credited[j];
    if (!c) return false;
    const subLeft = new D(l.subTotal).minus(c.subTotal);
    if (c.units.lt(l.quantity) && subLeft.gt(0)) return false;
    residue = residue.plus(nonNegative(subLeft));
    l.taxes.forEach(
      (t, k) => (residue = residue.plus(nonNegative(new D(t.amount).minus(c.taxes[k] ?? ZERO)))),
    );
  }
  return remaining.lte(residue);
}

/** Units of a line the earlier credit notes left. */
export function unitsLeft(src: DocumentLine, credited: CreditedLine | undefined): Dec {
  return nonNegative(new D(src.quantity).minus(credited?.units ?? ZERO));
}

/**
 * A note line for `qty` units of line `line` (1-based): `credited` is what earlier credit notes took
 * of it (null for a debit note, which adds and takes nothing). The caller has checked that `qty`
 * is at most the units left.
 */
export function lineByUnits(
  line: number,
  src: DocumentLine,
  orig: LineTotals,
  qty: Dec,
  credited: CreditedLine | null,
): { input: DocumentLine; credit: LineCredit } {
  const total = new D(src.quantity);
  const before = credited?.units ?? ZERO;
  const upTo = before.plus(qty);
  const nothingBefore =
    !credited || (credited.units.isZero() && credited.montoTotal.isZero() && credited.subTotal.isZero());
  const all = src.discounts?.map((_, k) => k) ?? [];
  if (nothingBefore && qty.eq(total))
    return { input: { ...src }, credit: { line, units: qty.toFixed(3), discounts: all } };
  const last = credited !== null && upTo.eq(total);
  // A stated amount's share: what `upTo` units are worth, less what earlier notes took of it.
  const share = (amount: string | Dec, taken: Dec): Dec =>
    last
      ? nonNegative(new D(amount).minus(taken))
      : nonNegative(r5(new D(amount).times(upTo).div(total)).minus(taken));

  const discounts: DiscountInput[] = [];
  const from: number[] = [];
  (src.discounts ?? []).forEach((d, k) => {
    const taken = credited?.discounts[k] ?? ZERO;
    // Every discount is credited as its share of the amount it came to on the line (a percentage
    // too: its share never adds up, through rounding, to more than the line's discount).
    const kept: DiscountInput = {
      ...withoutPercent(d),
      amount: fmt5(share(orig.discounts[k]?.amount ?? '0', taken)),
    };
    // A prorated discount that rounds to nothing is left out.
    if (kept.amount !== undefined && new D(kept.amount).isZero()) return;
    discounts.push(kept);
    from.push(k);
  });

  if (!last) fitDiscounts(r5(qty.times(src.unitPrice)), discounts, from);
  if (!last && credited) evenSubTotal(src, qty, discounts, from, orig, credited);

  const offset = orig.taxes.length - (src.otherTaxes?.length ?? 0);
  const taxes: (string | null)[] = orig.taxes.map((t, k) => {
    const taken = credited?.taxes[k] ?? ZERO;
    const other = k >= offset ? src.otherTaxes?.[k - offset] : undefined;
    // A fixed-amount tax (99 with an amount) is prorated by units like the rest of the line (the
    // last units: what is left of it). A tax Hacienda recomputes is computed, never stated.
    return other?.amount !== undefined ? fmt5(share(last ? t.amount : other.amount, taken)) : null;
  });
  const stated: StatedAmounts = taxes.some((t) => t !== null) ? { taxes } : {};
  const price = last
    ? priceFor(src.unitPrice, qty, nonNegative(new D(orig.montoTotal).minus(credited.montoTotal)))
    : null;
  if (price !== null) fitDiscounts(r5(qty.times(price)), discounts, from);
  const { discounts: _d, stated: _s, ...rest } = src;
  const input: DocumentLine = {
    ...rest,
    quantity: qty.toFixed(3),
    ...(price !== null ? { unitPrice: price } : {}),
    ...(discounts.length ? { discounts } : {}),
    ...(src.taxableBase !== undefined
      ? { taxableBase: fmt5(share(last ? orig.baseImponible : src.taxableBase, credited?.base ?? ZERO)) }
      : {}),
    ...(src.assumedTax !== undefined
      ? {
          assumedTax: fmt5(
            share(last ? orig.impuestoAsumidoEmisorFabrica : src.assumedTax, credited?.assumed ?? ZERO),
          ),
        }
      : {}),
    ...(Object.keys(stated).length ? { stated } : {}),
  };
  return { input, credit: { line, units: qty.toFixed(3), discounts: from } };
}

/**
 * A note that leaves units of a line for later keeps its SubTotal to as many decimals as its rates
 * allow (3 for a rate in whole percent, 2 for 0.50 %), moving the fraction into its last fixed
 * discount (a share of the line's discount either way, and never more than what is left of it):
 * then its IVA, other rates and exoneration are exact to 5 decimals, with no rounding of their
 * own, and the note that takes the last units, whose amounts are what is left, stays within the
 * rounding of a product (Monto = SubTotal × Tarifa) as Hacienda checks it. Lines whose IVA base
 * is not their SubTotal (taxes in the base, a stated base, a factor) are left as computed.
 */
function evenSubTotal(
  src: DocumentLine,
  qty: Dec,
  discounts: DiscountInput[],
  from: number[],
  orig: LineTotals,
  credited: CreditedLine,
): void {
  const k = discounts.length - 1;
  const d = discounts[k];
  if (!d || d.amount === undefined || discounts.some((x) => x.amount === undefined)) return;
  if (src.taxableBase !== undefined || src.ivaFactor !== undefined) return;
  if ((src.otherTaxes ?? []).some((t) => BASE_TAX_CODES.has(t.code))) return;
  const rates = [
    IVA_RATES[src.ivaRateCode]?.rate ?? '0',
    ...(src.otherTaxes ?? []).map((t) => t.rate ?? '0'),
    src.exoneration?.rate ?? '0',
  ];
  const places = 3 - Math.max(...rates.map((r) => new D(r).decimalPlaces()));
  if (places < 0) return;
  const sub = r5(qty.times(src.unitPrice)).minus(discounts.reduce((a, x) => a.plus(x.amount!), ZERO));
  const fraction = sub.minus(sub.toDecimalPlaces(places, D.ROUND_DOWN));
  const at = from[k]!;
  const left = new D(orig.discounts[at]?.amount ?? 0).minus(credited.discounts[at] ?? ZERO);
  const amount = new D(d.amount).plus(fraction);
  if (fraction.isZero() || amount.gt(left)) return;
  discounts[k] = { ...d, amount: fmt5(amount) };
}

/** Discounts that rounding took beyond the note line's MontoTotal give back the excess, last first. */
function fitDiscounts(montoTotal: Dec, discounts: DiscountInput[], from: number[]): void {
  let excess = discounts.reduce((a, x) => a.plus(x.amount ?? 0), ZERO).minus(montoTotal);
  for (let k = discounts.length - 1; k >= 0 && excess.gt(0); k--) {
    const amount = new D(discounts[k]!.amount ?? 0);
    const back = D.min(amount, excess);
    excess = excess.minus(back);
    if (back.eq(amount)) {
      discounts.splice(k, 1);
      from.splice(k, 1);
    } else discounts[k] = { ...discounts[k]!, amount: fmt5(amount.minus(back)) };
  }
}

/** A stated discount of the last units: the remaining amount, whatever the line's discount was. */
function withoutPercent(d: DiscountInput): DiscountInput {
  const { percent: _p, ...rest } = d;
  return rest;
}

/** The unit price whose product with `qty` comes nearest to `montoTotal` (the line's, when exact). */
function priceFor(unitPrice: string, qty: Dec, montoTotal: Dec): string {
  if (r5(qty.times(unitPrice)).eq(montoTotal)) return unitPrice;
  return fmt5(r5(new D(montoTotal).div(qty)));
}

/**
 * A note line crediting (or debiting) `amount` of line `line`'s SubTotal: one unit at that price,
 * without the line's discounts; its stated amounts (fixed taxes, stated base, assumed tax) in the
 * share `amount` is of the SubTotal.
 */
export function lineByAmount(
  line: number,
  src: DocumentLine,
  orig: LineTotals,
  amount: Dec,
): { input: DocumentLine; credit: LineCredit } {
  const sub = new D(orig.subTotal);
  const ratio = sub.isZero() ? ZERO : amount.div(sub);
  const part = (v: string) => fmt5(r5(new D(v).times(ratio)));
  const offset = orig.taxes.length - (src.otherTaxes?.length ?? 0);
  const taxes = orig.taxes.map((_, k) => {
    const other = k >= offset ? src.otherTaxes?.[k - offset] : undefined;
    return other?.amount !== undefined ? part(other.amount) : null;
  });
  const { discounts: _d, stated: _s, ...rest } = src;
  const input: DocumentLine = {
    ...rest,
    quantity: '1',
    unitPrice: fmt5(amount),
    ...(src.taxableBase !== undefined ? { taxableBase: part(src.taxableBase) } : {}),
    ...(src.assumedTax !== undefined ? { assumedTax: part(src.assumedTax) } : {}),
    ...(taxes.some((t) => t !== null) ? { stated: { taxes } } : {}),
  };
  return { input, credit: { line, units: null, discounts: [] } };
}

/**
 * A credit note line checked against what the earlier notes left of its line (`note`: the line's
 * computed totals). Taking more of the SubTotal than is left refuses the note (`exceeds`); a tax,
 * an exoneration or a MontoTotal that rounding would take beyond what is left is stated at what is
 * left (`input`, to compute again). Null: nothing to change.
 */
export function capToLine(
  input: DocumentLine,
  byUnits: boolean,
  orig: LineTotals,
  credited: CreditedLine,
  note: LineTotals,
): { exceeds: string } | { input: DocumentLine } | null {
  const subLeft = new D(orig.subTotal).minus(credited.subTotal);
  const montoLeft = new D(orig.montoTotal).minus(credited.montoTotal);
  // Once every unit is credited, what rounding left of the line is not creditable by amount.
  if (!byUnits && credited.units.gte(orig.quantity)) return { exceeds: fmt5(ZERO) };
  if (!byUnits && new D(note.subTotal).gt(subLeft)) return { exceeds: fmt5(nonNegative(subLeft)) };
  const stated: StatedAmounts = { ...input.stated };
  let changed = false;
  let discounts = input.discounts;
  // Rounding of units takes at most what is left of MontoTotal and of SubTotal: the MontoTotal
  // is stated lower, the discounts at what they came to.
  const over = D.max(new D(note.montoTotal).minus(montoLeft), new D(note.subTotal).minus(subLeft));
  if (over.gt(0)) {
    stated.montoTotal = fmt5(nonNegative(new D(note.montoTotal).minus(over)));
    discounts = input.discounts?.map((d, k) =>
      d.amount !== undefined || new D(note.discounts[k]!.amount).isZero()
        ? d
        : { ...withoutPercent(d), amount: note.discounts[k]!.amount },
    );
    changed = true;
  }
  const taxes = orig.taxes.map((t, k) => {
    const left = nonNegative(new D(t.amount).minus(credited.taxes[k] ?? ZERO));
    const given = input.stated?.taxes?.[k] ?? null;
    if (new D(note.taxes[k]?.amount ?? 0).gt(left)) {
      changed = true;
      return fmt5(left);
    }
    return given;
  });
  if (taxes.some((t) => t !== null)) stated.taxes = taxes;
  if (input.exoneration) {
    // The exoneration, and the IVA net of it, never beyond what is left of either.
    const exLeft = nonNegative(money(orig.taxes[0]?.exoneration?.amount).minus(credited.exoneration));
    const ivaLeft = new D(orig.taxes[0]?.amount ?? 0).minus(credited.taxes[0] ?? ZERO);
    const iva = new D(taxes[0] ?? note.taxes[0]?.amount ?? 0);
    let ex = D.min(money(note.taxes[0]?.exoneration?.amount), exLeft);
    const netLeft = ivaLeft.minus(exLeft);
    if (iva.minus(ex).gt(netLeft)) ex = D.min(exLeft, iva.minus(netLeft));
    if (!ex.eq(money(note.taxes[0]?.exoneration?.amount))) {
      stated.exoneration = fmt5(nonNegative(ex));
      changed = true;
    }
  }
  return changed ? { input: { ...input, ...(discounts ? { discounts } : {}), stated } } : null;
}

/** A credit note line asks for more of a line's SubTotal than the earlier notes left of it. */
export class LineCreditExceeded extends Error {
  constructor(
    readonly line: number,
    readonly creditable: string,
  ) {
    super(`line ${line} has ${creditable} left to credit`);
  }
}

/**
 * The totals of a credit note's lines (`compute`), each line capped to what the earlier notes left
 * of its line (capToLine; computed again when a cap applies). `credited` null: nothing to cap (a
 * debit note, or a note of the whole document). Throws LineCreditExceeded.
 */
export function capNoteLines<T>(
  lines: readonly { input: DocumentLine; credit: LineCredit }[],
  compute: (inputs: readonly DocumentLine[]) => T & { lines: readonly LineTotals[] },
  original: readonly LineTotals[],
  credited: readonly CreditedLine[] | null,
): { lines: { input: DocumentLine; credit: LineCredit }[]; totals: T & { lines: readonly LineTotals[] } } {
  const first = compute(lines.map((l) => l.input));
  if (!credited) return { lines: [...lines], totals: first };
  let changed = false;
  const out = [...lines];
  let totals = first;
  lines.forEach((l, i) => {
    const orig = original[l.credit.line - 1];
    const taken = credited[l.credit.line - 1];
    const note = totals.lines[i];
    if (!orig || !taken || !note) return;
    const cap = capToLine(l.input, l.credit.units !== null, orig, taken, note);
    if (cap && 'exceeds' in cap) throw new LineCreditExceeded(l.credit.line, cap.exceeds);
    if (!overLine(note, orig, taken)) return;
    const lineTotals = (input: DocumentLine): LineTotals | null => {
      try {
        return compute(out.map((x, j) => (j === i ? input : x.input))).lines[i] ?? null;
      } catch {
        return null;
      }
    };
    const fitted = fitToLine(l.input, orig, taken, lineTotals);
    if (fitted) {
      const discounts = fitted.kept.map((k) => l.credit.discounts[k]!);
      out[i] = { input: fitted.input, credit: { ...l.credit, discounts } };
    } else if (cap) out[i] = { ...l, input: cap.input };
    else return;
    changed = true;
    totals = compute(out.map((x) => x.input));
  });
  return { lines: out, totals: changed ? totals : first };
}

/** What the earlier notes left of each amount of a line. */
function leftOf(orig: LineTotals, credited: CreditedLine) {
  const taxes = orig.taxes.map((t, k) => new D(t.amount).minus(credited.taxes[k] ?? ZERO));
  const exoneration = money(orig.taxes[0]?.exoneration?.amount).minus(credited.exoneration);
  return {
    montoTotal: new D(orig.montoTotal).minus(credited.montoTotal),
    subTotal: new D(orig.subTotal).minus(credited.subTotal),
    taxes,
    exoneration,
    net: (taxes[0] ?? ZERO).minus(exoneration),
  };
}

/** Whether a note line takes more of any amount of its line than the earlier notes left. */
function overLine(note: LineTotals, orig: LineTotals, credited: CreditedLine): boolean {
  const left = leftOf(orig, credited);
  const exoneration = money(note.taxes[0]?.exoneration?.amount);
  return (
    new D(note.montoTotal).gt(left.montoTotal) ||
    new D(note.subTotal).gt(left.subTotal) ||
    note.taxes.some((t, k) => k < left.taxes.length && new D(t.amount).gt(left.taxes[k]!)) ||
    (orig.taxes[0]?.exoneration !== undefined && exoneration.gt(nonNegative(left.exoneration))) ||
    new D(note.taxes[0]?.amount ?? 0).minus(exoneration).gt(left.net)
  );
}

/**
 * A note line whose computed amounts would take more than the earlier notes left of its line
 * (through rounding, by a few 0.00001): the same line at the highest unit price (to 0.00001)
 * whose amounts, computed as Hacienda recomputes them, all fit. Its discounts give back what
 * exceeds its MontoTotal. Null when no price fits (the line is then capped by capToLine) or the
 * line's SubTotal asked is above what is left (refused there).
 */
function fitToLine(
  input: DocumentLine,
  orig: LineTotals,
  credited: CreditedLine,
  lineTotals: (input: DocumentLine) => LineTotals | null,
): { input: DocumentLine; kept: number[] } | null {
  const qty = new D(input.quantity);
  const at = (units: Dec) => {
    const price = units.div(100_000);
    const discounts = (input.discounts ?? []).map((d) => ({ ...d }));
    const kept = discounts.map((_, k) => k);
    fitDiscounts(r5(qty.times(price)), discounts, kept);
    const { discounts: _d, ...rest } = input;
    const line: DocumentLine = {
      ...rest,
      unitPrice: fmt5(price),
      ...(discounts.length ? { discounts } : {}),
    };
    return { input: line, kept };
  };
  const fits = (units: Dec): boolean => {
    const t = lineTotals(at(units).input);
    return t !== null && !overLine(t, orig, credited);
  };
  if (!fits(ZERO)) return null;
  let lo = ZERO;
  let hi = new D(input.unitPrice).times(100_000).floor();
  while (hi.minus(lo).gt(1)) {
    const mid = lo.plus(hi).div(2).floor();
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return at(lo);
}
