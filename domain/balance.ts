// What a document still owes, computed one way for every write, route and view: its total, less
// what its credit notes took off (`credited_total`), less what its payments applied, never below
// zero. A debit note adds to what the client owes as a document of its own: it carries its own
// balance, computed the same way. A credit note owes nothing and is paid by no one: its balance is
// zero and it has no payment status of its own (`not_applicable`). Amounts keep 5 decimals, like
// TotalComprobante.
import { Decimal } from 'decimal.js';

export const PAYMENT_STATUSES = ['unpaid', 'partial', 'paid', 'not_applicable'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** The tipo of a nota de crédito. */
const CREDIT_NOTE = '03';

export interface BalanceInput {
  docType: string;
  status: string;
  total: Decimal.Value;
  creditedTotal: Decimal.Value;
  /** What payments took off the balance (their applied amounts), in the document's currency. */
  applied: Decimal.Value;
  /**
   * Every unit of every line credited (the document annulled): the rounding the last notes could
   * not take (domain/note-credits.ts) is owed by no one, so nothing is due.
   */
  annulled?: boolean;
}

export interface DocumentBalance {
  /** 5 decimals. */
  balanceDue: string;
  paymentStatus: PaymentStatus;
}

/**
 * The payment status a balance means: nothing due yet something paid is `paid`; nothing due and
 * nothing paid (credited whole before any payment, or a zero total) is `not_applicable`.
 */
export function paymentStatusOf(balanceDue: Decimal.Value, applied: Decimal.Value): PaymentStatus {
  const paid = new Decimal(applied).gt(0);
  if (new Decimal(balanceDue).gt(0)) return paid ? 'partial' : 'unpaid';
  return paid ? 'paid' : 'not_applicable';
}

/**
 * A document paid when it is issued (a cash sale, `paid_at_issue`): the buyer paid at the counter,
 * so from its first answer nothing is due on it and it is `paid` (its payments at issue are
 * recorded, with their entries, when its issue entry is booked). One owing nothing anyway (a credit
 * note, a zero total) keeps what documentBalance says.
 */
export function paidAtIssueBalance(d: BalanceInput): DocumentBalance {
  const owed = documentBalance(d);
  if (!new Decimal(owed.balanceDue).gt(0)) return owed;
  return { balanceDue: '0.00000', paymentStatus: 'paid' };
}

export function documentBalance(d: BalanceInput): DocumentBalance {
  if (d.docType === CREDIT_NOTE) return { balanceDue: '0.00000', paymentStatus: 'not_applicable' };
  // A rejected document does not exist for Hacienda: nothing is owed on it.
  if (d.status === 'rechazada') return { balanceDue: '0.00000', paymentStatus: 'unpaid' };
  if (d.annulled) return { balanceDue: '0.00000', paymentStatus: paymentStatusOf(0, d.applied) };
  const due = Decimal.max(new Decimal(d.total).minus(d.creditedTotal).minus(d.applied), 0);
  return {
    balanceDue: due.toFixed(5, Decimal.ROUND_HALF_UP),
    paymentStatus: paymentStatusOf(due, d.applied),
  };
}
