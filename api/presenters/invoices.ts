// The invoice and the payment as the API answers them: the same objects their webhook events
// carry (built by db/public-objects.ts, in the transaction that records the event), typed here by
// their response schemas (InvoiceObject, PaymentObject), so a route returns a checked object.
import type { Static } from 'typebox';
import type { InvoiceRow, PublicInvoiceRow } from '../../db/queries/invoices.ts';
import {
  invoiceObject as invoicePayload,
  paymentObject as paymentPayload,
  type PaymentFields,
} from '../../db/public-objects.ts';
import type { InvoiceObject } from '../schemas/invoices.ts';
import type { PaymentObject } from '../schemas/payments.ts';

// The invoice's `totals`: the stored summary (domain names) under snake_case names, also for an
// object written before they were (an event's data, an answer kept for its Idempotency-Key).
export { summaryObject, withPublicTotals } from '../../db/public-objects.ts';

export type InvoiceJson = Static<typeof InvoiceObject>;
export type PaymentJson = Static<typeof PaymentObject>;

/** The API's invoice object. `lang` picks the language of `rejection_reason.message`. */
export function invoiceObject(row: PublicInvoiceRow, lang: 'es' | 'en' = 'es'): InvoiceJson {
  return invoicePayload(row, lang);
}

/** A payment, with the invoice's balance and payment status right after it. */
export function paymentObject(
  p: PaymentFields,
  invoice: Pick<InvoiceRow, 'balanceDue' | 'paymentStatus'>,
): PaymentJson {
  return paymentPayload(p, invoice);
}
