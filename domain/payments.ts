// Payments against an invoice: which invoices may be paid, how much a payment takes off the
// balance, and what it books in colones. Pure rules; operations/payments.ts applies them inside
// the transaction that locks the invoice.
//
// Amounts are 2-decimal strings in the invoice currency; balance_due keeps the 5 decimals of
// TotalComprobante. A payment equal to the balance rounded to centavos settles the invoice and
// also clears the sub-centavo remainder (482762.99999 is settled by 482763.00). Anything above
// that rounded balance is an overpayment.
//
// Colones: each payment books amount × exchange rate in centavos (2 decimals, half-up, like the
// whole ledger), except the settling one, which books exactly what is left of the invoice's
// receivable, so an invoice paid in full leaves receivables at zero whatever the rate.
import { Decimal } from 'decimal.js';
import type { DocumentTotals } from './totals.ts';
import { invoicePostingFromTotals, receivableAmount, toCentavos } from './chart-of-accounts.ts';
import { PAYMENT_METHODS, type PaymentMethodName } from './sale-terms.ts';

/**
 * Invoices that may be paid: issued ones (pendiente, enviada, aceptada). A draft has no
 * consecutivo yet and a rejected invoice does not exist for Hacienda (its balance is zero).
 */
export const PAYABLE_STATUSES = ['pendiente', 'enviada', 'aceptada'] as const;

/** Methods a payment may name (TipoMedioPago), including recaudado_terceros. */
export const PAYMENT_METHOD_NAMES = Object.keys(PAYMENT_METHODS) as PaymentMethodName[];

/** Accepted clock skew for `paid_at` in the future. */
export const PAID_AT_SKEW_MS = 60_000;

export type PaymentRefusal =
  | { code: 'invoice_not_payable'; message: string }
  | { code: 'invoice_already_paid'; message: string }
  | { code: 'payment_exceeds_balance'; message: string; balanceDue: string };

export interface PaymentPlan {
  /** Taken off balance_due (5 decimals). */
  applied: string;
  /** Colones booked: cash debit and receivables credit (centavos, 2 decimals). */
  amountCrc: string;
  balanceAfter: string;
  paymentStatus: 'partial' | 'paid';
}

export interface PaymentInput {
  status: string;
  balanceDue: string;
  exchangeRate: string;
  /** The invoice's whole receivable in colones (what its issue entry debits). */
  receivableCrc: string;
  /** Colones already booked by earlier payments of this invoice. */
  paidCrc: string;
  amount: string;
}

const fmt5 = (d: Decimal) => d.toFixed(5, Decimal.ROUND_HALF_UP);

export function planPayment(
  p: PaymentInput,
): { ok: true; plan: PaymentPlan } | { ok: false; refusal: PaymentRefusal } {
  if (!(PAYABLE_STATUSES as readonly string[]).includes(p.status)) {
    const why = p.status === 'borrador' ? 'a draft must be issued first' : 'Hacienda rejected it';
    return {
      ok: false,
      refusal: {
        code: 'invoice_not_payable',
        message: `An invoice in status ${p.status} cannot be paid: ${why}`,
      },
    };
  }
  const balance = new Decimal(p.balanceDue);
  const balance2 = balance.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  const amount = new Decimal(p.amount);
  if (balance2.lte(0)) {
    return {
      ok: false,
      refusal: { code: 'invoice_already_paid', message: 'The invoice is already paid in full' },
    };
  }
  if (amount.gt(balance2)) {
    return {
      ok: false,
      refusal: {
        code: 'payment_exceeds_balance',
        message: `The amount ${amount.toFixed(2)} exceeds the balance due ${balance2.toFixed(2)}`,
        balanceDue: balance2.toFixed(2),
      },
    };
  }
  const settles = amount.eq(balance2);
  const applied = settles ? balance : amount;
  const amountCrc = settles
    ? new Decimal(p.receivableCrc).minus(p.paidCrc)
    : new Decimal(toCentavos(amount.times(p.exchangeRate)));
  const after = balance.minus(applied);
  return {
    ok: true,
    plan: {
      applied: fmt5(applied),
      // A rate rounding edge can never make the booked amount non-positive.
      amountCrc: toCentavos(Decimal.max(amountCrc, new Decimal('0.01'))),
      balanceAfter: fmt5(after),
      paymentStatus: after.isZero() ? 'paid' : 'partial',
    },
  };
}

/**
 * The colones receivable of an invoice, computed exactly as its issue entry is
 * (operations/invoice-booking.ts bookInvoices): the document's total converted to colones, in centavos.
 */
export function invoiceReceivableCrc(totals: DocumentTotals, exchangeRate: string): string {
  return receivableAmount(invoicePostingFromTotals(totals, exchangeRate));
}

/** One method of a cash sale's MedioPago: its name and TotalMedioPago (null when not stated). */
export interface AtIssueMethod {
  method: string;
  /** TotalMedioPago in the invoice currency (5 decimals), or null. */
  total: string | null;
}

export interface AtIssuePayment {
  /** Position in the invoice's MedioPago (0-based). */
  index: number;
  method: string;
  /** 2 decimals, invoice currency. */
  amount: string;
  plan: PaymentPlan;
}

/**
 * The payments that settle a cash sale at issue: one per MedioPago with its TotalMedioPago (in
 * centavos), or one for the whole balance when the sale names a single method. What was paid
 * through the API before the booking comes off the last methods: each method in order takes its
 * amount while the balance lasts and the last takes what remains, so the payments add up to the
 * balance exactly and the last one settles it (it books what is left of the receivable in colones).
 */
export function planAtIssuePayments(
  invoice: Omit<PaymentInput, 'amount'>,
  methods: readonly AtIssueMethod[],
): AtIssuePayment[] {
  const due = new Decimal(invoice.balanceDue).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  if (due.lte(0) || !methods.length) return [];
  const split = methods.length > 1 && methods.every((m) => m.total !== null);
  const shares: { index: number; method: string; amount: Decimal }[] = [];
  let left = due;
  methods.forEach((m, index) => {
    if (!split && index > 0) return;
    const last = !split || index === methods.length - 1;
    const wanted = last ? left : new Decimal(m.total!).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    const amount = Decimal.min(wanted, left);
    if (amount.lte(0)) return;
    shares.push({ index, method: m.method, amount });
    left = left.minus(amount);
  });
  const out: AtIssuePayment[] = [];
  let state = { balanceDue: invoice.balanceDue, paidCrc: invoice.paidCrc, status: invoice.status };
  for (const share of shares) {
    const planned = planPayment({ ...invoice, ...state, amount: share.amount.toFixed(2) });
    if (!planned.ok) break;
    out.push({
      index: share.index,
      method: share.method,
      amount: share.amount.toFixed(2),
      plan: planned.plan,
    });
    state = {
      ...state,
      balanceDue: planned.plan.balanceAfter,
      paidCrc: new Decimal(state.paidCrc).plus(planned.plan.amountCrc).toFixed(2),
    };
  }
  return out;
}
