// Payments: recorded in one transaction that locks the invoice row — the payment, its journal
// entry (debit cash, credit receivables, in colones), the invoice's balance_due and
// payment_status, the client's balance, `payment.created` and, when the balance reaches zero,
// `invoice.paid`. The rules (who may be paid, how much, what is booked) are in domain/payments.ts;
// the SQL in db/queries/payments.ts.
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { money2, paymentObject } from '../db/public-objects.ts';
import { formatId } from '../domain/ids.ts';
import { invoiceReceivableCrc, planPayment, type PaymentRefusal } from '../domain/payments.ts';
import { PAYMENT_METHODS, type PaymentMethodName } from '../domain/sale-terms.ts';
import { tenantOnly, type Tenant } from '../db/queries/clients.ts';
import { recordEvents, type NewEvent } from '../db/queries/events.ts';
import {
  lockIdempotencyKey,
  saveIdempotent,
  type IdempotencyInput,
  type StoredResponse,
} from '../db/queries/idempotency.ts';
import { lockInvoice, type InvoiceRow } from '../db/queries/invoices.ts';
import type { Company } from '../db/models/index.ts';
import { applyPayment, insertPayment, paidSoFar, type PaymentRow } from '../db/queries/payments.ts';
import { assertReceiptAllowed, issueReceipt } from '../db/queries/receipts.ts';

export interface PaymentInput {
  amount: string;
  method: PaymentMethodName;
  paidAt: Date;
  reference: string | null;
  /** Issue a recibo electrónico de pago (receipts.ts) as the company that issued the invoice. */
  receiptIssuer?: Company | null;
}

export class PaymentRefused extends Error {
  constructor(readonly refusal: PaymentRefusal) {
    super(refusal.message);
    this.name = 'PaymentRefused';
  }
}

export type PaymentOutcome =
  | { kind: 'created'; payment: PaymentRow; invoice: InvoiceRow; response: StoredResponse }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'not_found' };

export async function createPayment(
  db: Knex,
  tenantIn: Tenant,
  invoiceId: number,
  input: PaymentInput,
  opts: { requestId: string | null; idempotency: IdempotencyInput | null },
): Promise<PaymentOutcome> {
  const tenant = tenantOnly(tenantIn);
  return db.transaction(async (trx) => {
    // 1. Idempotency: one request at a time per key; a finished one is replayed.
    if (opts.idempotency) {
      const replay = await lockIdempotencyKey(trx, tenant, opts.idempotency);
      if (replay) return { kind: 'replay', response: replay };
    }
    // 2. The invoice, locked: concurrent payments of one invoice take turns.
    const invoice = await lockInvoice(trx, tenant, invoiceId);
    if (!invoice) return { kind: 'not_found' };
    assertPayable(invoice, input);
    const prior = await paidSoFar(trx, invoiceId);
    const planned = planPayment({
      status: invoice.status,
      balanceDue: invoice.balanceDue,
      exchangeRate: invoice.exchangeRate,
      receivableCrc: invoiceReceivableCrc(invoice.summary, invoice.exchangeRate),
      paidCrc: prior.paidCrc,
      amount: input.amount,
    });
    if (!planned.ok) throw new PaymentRefused(planned.refusal);
    const { plan } = planned;

    // 3. The payment and its journal entry (and its receipt, when asked for).
    const payment = await insertPayment(trx, invoice, {
      amount: input.amount,
      appliedAmount: plan.applied,
      amountCrc: plan.amountCrc,
      method: input.method,
      methodCode: PAYMENT_METHODS[input.method]!,
      paidAt: input.paidAt,
      reference: input.reference,
      requestId: opts.requestId,
    });
    if (input.receiptIssuer)
      await attachReceipt(trx, tenant, input.receiptIssuer, invoice, payment, {
        amount: input.amount,
        before: prior.paid,
        settles: plan.paymentStatus === 'paid',
        requestId: opts.requestId,
      });

    // 4. Balances: the invoice's (its currency) and the client's (colones, like its issue entry).
    const updated = await applyPayment(trx, invoice, {
      balanceDue: plan.balanceAfter,
      paymentStatus: plan.paymentStatus,
      amountCrc: plan.amountCrc,
    });

    // 5. Events.
    const body = paymentObject(payment, updated);
    const events: NewEvent[] = [
      { ...tenant, type: 'payment.created', data: body, requestId: opts.requestId },
    ];
    if (plan.paymentStatus === 'paid') {
      const totalPaid = new Decimal(prior.paid).plus(input.amount);
      events.push({
        ...tenant,
        type: 'invoice.paid',
        data: invoicePaidData(invoice, payment, totalPaid.toString()),
        requestId: opts.requestId,
      });
    }
    await recordEvents(trx, events);
    const response = { status: 201, body };
    if (opts.idempotency) await saveIdempotent(trx, tenant, opts.idempotency, response);
    return { kind: 'created', payment, invoice: updated, response };
  });
}

/** The recibo electrónico de pago of the payment (receipts.ts), issued by the invoice's company. */
async function attachReceipt(
  trx: Knex.Transaction,
  tenant: Tenant,
  issuer: Company,
  invoice: InvoiceRow,
  payment: PaymentRow,
  ctx: { amount: string; before: string; settles: boolean; requestId: string | null },
): Promise<void> {
  const receipt = await issueReceipt(
    trx,
    tenant,
    issuer,
    invoice,
    { id: payment.id, amount: ctx.amount, method: payment.method },
    { before: ctx.before, settles: ctx.settles },
    ctx.requestId,
  );
  payment.receiptInvoiceId = receipt.id;
  payment.receiptClave = receipt.clave;
}

/**
 * A purchase (08) is owed to a supplier, a receipt (10) records a payment and a credit note (03)
 * is owed by nobody: none is paid here. A receipt is issued only where one is allowed.
 */
function assertPayable(invoice: InvoiceRow, input: PaymentInput): void {
  if (invoice.docType === '08' || invoice.docType === '10' || invoice.docType === '03')
    throw new PaymentRefused({
      code: 'invoice_not_payable',
      message: `A document of type ${invoice.docType} is not paid through the payments API`,
    });
  if (input.receiptIssuer) assertReceiptAllowed(invoice);
}

/** The data of `invoice.paid`: the payment that settled the invoice, and what was paid in all. */
export function invoicePaidData(
  invoice: Pick<InvoiceRow, 'id' | 'currency' | 'clientId' | 'livemode'>,
  payment: Pick<PaymentRow, 'id' | 'method' | 'paidAt'>,
  amount: string,
): Record<string, unknown> {
  return {
    invoice_id: formatId('invoice', invoice.id),
    amount: money2(amount),
    method: payment.method,
    // Additive fields beyond the reference's payload:
    currency: invoice.currency,
    payment_id: formatId('payment', payment.id),
    paid_at: new Date(payment.paidAt).toISOString(),
    client_id: invoice.clientId === null ? null : formatId('client', invoice.clientId),
    livemode: invoice.livemode,
  };
}
