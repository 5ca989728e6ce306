// How a note on a document settled at issue is paid. A tiquete sold to no one was paid when it
// was issued and nobody owes anything on it: a debit note on it is collected at once, by the
// methods it names (`payment_method` / `payment_method_other` or `payments`, as a tiquete takes
// them) or else by the tiquete's own first method; a credit note on it is refunded at once, by
// the tiquete's method. A note on a document with a client states the document's method and takes
// no payment fields: it moves the client's balance, which the client settles through the payments
// API.
import type { FieldError } from './errors.ts';
import { checkText, TEXT_FACETS } from './field-rules.ts';
import { parsePayments, type PaymentRequest } from './invoice-request-fields.ts';
import { isPaymentMethod, PAYMENT_METHODS, type PaymentMethodName } from './sale-terms.ts';
import type { NoteKind } from './document-notes.ts';

export interface NotePaymentFields {
  payment_method?: unknown;
  payment_method_other?: unknown;
  payments?: unknown;
}

const FIELDS = ['payment_method', 'payment_method_other', 'payments'] as const;

/** A document sold to no one and paid when issued (a tiquete without a receptor). */
export function settledAtIssue(doc: { clientId: number | null; paidAtIssue?: boolean | null }): boolean {
  return doc.clientId === null && doc.paidAtIssue === true;
}

/**
 * The payments a note states, when its body names them: null when it names none (the note then
 * takes the referenced document's method). Only a debit note on a document settled at issue takes
 * them; otherwise each one given is `not_applicable`. Field errors are pushed.
 */
export function notePayments(
  errors: FieldError[],
  kind: NoteKind,
  settled: boolean,
  body: NotePaymentFields,
): PaymentRequest[] | null {
  const given = FIELDS.filter((f) => body[f] !== undefined);
  if (!given.length) return null;
  if (kind !== 'debit' || !settled) {
    for (const f of given)
      errors.push({
        path: `/${f}`,
        code: 'not_applicable',
        message:
          kind === 'debit'
            ? "a note on a document with a client states the document's payment method; the client pays it through the payments API"
            : "a credit note states the referenced document's payment method",
      });
    return null;
  }
  if (body.payments !== undefined) {
    if (body.payment_method !== undefined || body.payment_method_other !== undefined)
      errors.push({
        path: '/payments',
        code: 'conflicting_fields',
        message: 'give payments (a list) or payment_method, not both',
      });
    return parsePayments(errors, '/payments', body.payments);
  }
  const n = errors.length;
  let method: PaymentMethodName | null = null;
  if (body.payment_method !== undefined) {
    if (typeof body.payment_method !== 'string' || !isPaymentMethod(body.payment_method))
      errors.push({
        path: '/payment_method',
        code: 'invalid_value',
        message: `must be one of ${Object.keys(PAYMENT_METHODS).join(', ')}`,
      });
    else method = body.payment_method;
  }
  const other = checkText(
    errors,
    '/payment_method_other',
    body.payment_method_other,
    TEXT_FACETS.medioPagoOtros,
    method === 'otros',
  );
  if (method !== 'otros' && body.payment_method_other !== undefined)
    errors.push({
      path: '/payment_method_other',
      code: 'not_applicable',
      message: 'applies only to payment method otros (99)',
    });
  if (errors.length > n || method === null) return null;
  return [{ method, amount: null, other }];
}
