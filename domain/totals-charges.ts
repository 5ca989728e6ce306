// What a document carries beside its lines: OtrosCargos (validated; an amount, or a percentage of
// TotalVentaNeta) and the MedioPago amounts checked against TotalComprobante.
import { isTipoMedioPago, isTipoOtroCargo, TIPOS_OTROS_CARGOS, type TipoOtroCargo } from './codes.ts';
import {
  D,
  type Dec,
  type Issues,
  ZERO,
  HUNDRED,
  MAX_OTHER_CHARGES,
  parseDecimal,
  textLength,
  r5,
  fmt5,
  fmt2,
  sum,
} from './decimal-input.ts';
import type { OtherChargeInput, PaymentInput, ResolvedPayment, ResolvedOtherCharge } from './totals-types.ts';

export interface ValidCharge {
  index: number;
  code: TipoOtroCargo;
  codeOther: string | null;
  detail: string;
  percent: Dec | null;
  amount: Dec | null;
  thirdParty: ResolvedOtherCharge['thirdParty'];
}

/** The service charge of restaurants (TipoDocumentoOC 06) is 10 % of the sale unless stated. */
export const SERVICE_CHARGE_PERCENT = new D(10);

export function validateOtherCharges(issues: Issues, charges: readonly OtherChargeInput[]): ValidCharge[] {
  const valid: ValidCharge[] = [];
  if (charges.length > MAX_OTHER_CHARGES) {
    issues.add('/otherCharges', 'too_many', `at most ${MAX_OTHER_CHARGES} other charges`);
  }
  charges.forEach((c, k) => {
    const p = `/otherCharges/${k}`;
    const before = issues.list.length;
    const known = typeof c.code === 'string' && isTipoOtroCargo(c.code);
    if (!known) issues.add(`${p}/code`, 'unknown_code', `unknown TipoDocumentoOC "${String(c.code)}"`);
    const codeOther = textLength(issues, `${p}/codeOther`, c.codeOther, 5, 100, c.code === '99');
    const detail =
      c.detail === undefined && known
        ? TIPOS_OTROS_CARGOS[c.code]
        : textLength(issues, `${p}/detail`, c.detail, 1, 160, true);
    let percent =
      c.percent === undefined
        ? null
        : parseDecimal(issues, `${p}/percent`, c.percent, { maxInt: 4, maxFrac: 5, sign: 'nonNegative' });
    const amount =
      c.amount === undefined
        ? null
        : parseDecimal(issues, `${p}/amount`, c.amount, { maxInt: 13, maxFrac: 5, sign: 'nonNegative' });
    if (amount === null && percent === null && c.amount === undefined && c.percent === undefined) {
      if (c.code === '06') percent = SERVICE_CHARGE_PERCENT;
      else issues.add(p, 'required', 'give amount or percent');
    }
    let thirdParty: ResolvedOtherCharge['thirdParty'] = null;
    if (c.thirdParty) {
      const name = textLength(issues, `${p}/thirdParty/name`, c.thirdParty.name, 5, 100, false);
      thirdParty = { idType: c.thirdParty.idType, idNumber: c.thirdParty.idNumber, name };
    }
    if (issues.list.length > before || detail === null) return;
    valid.push({ index: k, code: c.code, codeOther, detail, percent, amount, thirdParty });
  });
  return valid;
}

/** Amounts of the charges: as given, or their percentage of TotalVentaNeta. */
export function computeOtherCharges(
  charges: readonly ValidCharge[],
  totalVentaNeta: Dec,
): { resolved: ResolvedOtherCharge[]; amounts: Dec[] } {
  const amounts = charges.map((c) => c.amount ?? r5(totalVentaNeta.times(c.percent ?? ZERO).div(HUNDRED)));
  const resolved = charges.map((c, i) => ({
    code: c.code,
    codeOther: c.codeOther,
    detail: c.detail,
    percent: c.percent ? fmt5(c.percent) : null,
    amount: fmt5(amounts[i]!),
    thirdParty: c.thirdParty,
  }));
  return { resolved, amounts };
}

/**
 * The IVA returned in a sale paid partly by card (2026 mixed-sale formula, the v4.4 XSD and its Anexos):
 * IVA devuelto = monto pagado con tarjeta / venta neta × monto del impuesto, where the venta neta and
 * the impuesto are those of the lines whose IVA is returned (Σ SubTotal, Σ IVA) and the card amount
 * is the sum of the `tarjeta` payments as given in the request (it cannot be derived from
 * TotalComprobante, which itself depends on the IVA returned). A card amount above that venta neta
 * returns the whole IVA. Rounded half-up to 5 decimals once. Null (with an issue) when a card
 * payment states no amount.
 */
export function mixedIvaReturned(
  issues: Issues,
  payments: readonly PaymentInput[],
  ventaNeta: Dec,
  iva: Dec,
): Dec | null {
  let card = ZERO;
  let missing = false;
  payments.forEach((pay, k) => {
    if (pay.type !== '02') return;
    if (pay.amount === undefined || pay.amount === null) {
      issues.add(
        `/payments/${k}/amount`,
        'iva_returned_card_amount_required',
        'a sale paid partly by card returns the IVA in proportion to the card amount: give the amount paid by card',
      );
      missing = true;
      return;
    }
    const a = parseDecimal(issues, `/payments/${k}/amount`, pay.amount, {
      maxInt: 13,
      maxFrac: 5,
      sign: 'positive',
    });
    if (a) card = card.plus(a);
    else missing = true;
  });
  if (missing) return null;
  if (ventaNeta.lte(0) || card.gte(ventaNeta)) return iva;
  return r5(card.times(iva).div(ventaNeta));
}

/** MedioPago amounts: given ones checked, one missing amount takes the rest (see TotalsOptions). */
export function resolvePayments(
  issues: Issues,
  payments: readonly PaymentInput[],
  totalComprobante: Dec,
  keepCardAmounts = false,
): ResolvedPayment[] {
  if (payments.length > 4) issues.add('/payments', 'too_many', 'at most 4 payment methods (MedioPago)');
  const amounts: (Dec | null)[] = payments.map((pay, k) => {
    if (typeof pay.type !== 'string' || !isTipoMedioPago(pay.type))
      issues.add(`/payments/${k}/type`, 'unknown_code', `unknown TipoMedioPago "${String(pay.type)}"`);
    if (pay.type === '99' && textLength(issues, `/payments/${k}/other`, pay.other, 3, 100, true) === null)
      return null;
    if (pay.amount === undefined || pay.amount === null) return null;
    return parseDecimal(issues, `/payments/${k}/amount`, pay.amount, {
      maxInt: 13,
      maxFrac: 5,
      sign: 'positive',
    });
  });
  const open = payments.flatMap((pay, k) => (pay.amount === undefined || pay.amount === null ? [k] : []));
  if (issues.list.length > 0) return [];
  const out = (totals: (Dec | null)[]) =>
    payments.map((pay, k) => ({
      type: pay.type,
      other: pay.type === '99' ? (pay.other ?? null) : null,
      total: totals[k] ? fmt5(totals[k]) : null,
    }));
  if (payments.length === 1 && open.length === 1) return out([null]);
  if (open.length > 1) {
    issues.add('/payments', 'payment_amount_required', 'every payment but at most one gives its amount');
    return [];
  }
  const given = sum(amounts.filter((a): a is Dec => a !== null));
  const apiTotal = totalComprobante.toDecimalPlaces(2, D.ROUND_HALF_UP);
  if (open.length === 1) {
    const rest = totalComprobante.minus(given);
    if (rest.lte(0)) {
      issues.add(
        '/payments',
        'payments_exceed_total',
        `the amounts given reach the total ${fmt2(totalComprobante)}`,
      );
      return [];
    }
    amounts[open[0]!] = rest;
    return out(amounts);
  }
  if (given.eq(totalComprobante)) return out(amounts);
  if (given.eq(apiTotal)) {
    // A mixed sale with IVA devuelto keeps its card amounts as given (the IVA returned depends on
    // them): the fraction of a centavo goes to the last payment of another kind.
    const last = keepCardAmounts ? payments.findLastIndex((p) => p.type !== '02') : amounts.length - 1;
    const adjusted = amounts[last]!.plus(totalComprobante.minus(apiTotal));
    if (adjusted.gt(0)) {
      amounts[last] = adjusted;
      return out(amounts);
    }
  }
  issues.add(
    '/payments',
    'payments_mismatch',
    `the payments add up to ${fmt2(given)}, the invoice total is ${fmt2(totalComprobante)}`,
  );
  return [];
}
