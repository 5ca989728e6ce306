// Payments: recorded in one transaction that locks the invoice row — the payment, its journal
// entry (debit cash, credit receivables, in colones), the invoice's balance_due and
// payment_status, the client's balance, `payment.created` and, when the balance reaches zero,
// `invoice.paid`. The rules (who may be paid, how much, what is booked) are in domain/payments.ts.
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { money2, paymentObject } from '../public-objects.ts';
import { formatId } from '../../domain/ids.ts';
import { invoiceReceivableCrc, planPayment, type PaymentRefusal } from '../../domain/payments.ts';
import { PAYMENT_METHODS, type PaymentMethodName } from '../../domain/sale-terms.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import { recordEvents } from './events.ts';
import {
  lockIdempotencyKey,
  saveIdempotent,
  type IdempotencyInput,
  type StoredResponse,
} from './idempotency.ts';
import type { InvoiceRow } from './invoices.ts';
import type { Company } from '../models/index.ts';
import { assertReceiptAllowed, issueReceipt } from './receipts.ts';

export interface PaymentRow {
  id: number;
  companyId: number;
  livemode: boolean;
  invoiceId: number;
  /** Null for the payment at issue of a tiquete sold to no one. */
  clientId: number | null;
  amount: string;
  appliedAmount: string;
  amountCrc: string;
  currency: string;
  exchangeRate: string;
  method: string;
  methodCode: string;
  paidAt: Date;
  reference: string | null;
  /** Recorded by the service when a cash sale's issue entry was booked (payments-at-issue.ts). */
  atIssue: boolean;
  /** The recibo electrónico de pago issued for it (receipts.ts), and that receipt's clave. */
  receiptInvoiceId?: number | null;
  receiptClave?: string | null;
  requestId: string | null;
  createdAt: Date;
}

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

async function bookPayment(trx: Knex.Transaction, invoice: InvoiceRow, payment: PaymentRow): Promise<void> {
  const [entry] = await trx('journal_entries')
    .insert({
      companyId: invoice.companyId,
      livemode: invoice.livemode,
      kind: 'payment',
      invoiceId: invoice.id,
      paymentId: payment.id,
      description: `Pago ${formatId('payment', payment.id)} de la factura ${invoice.consecutivo ?? invoice.id}`,
      currency: invoice.currency,
      exchangeRate: invoice.exchangeRate,
    })
    .returning(['id']);
  await writePaymentLines(trx, invoice, (entry as { id: number }).id, payment.amountCrc);
}

/**
 * The two lines of a payment's entry, cash against receivables, or of its reversal (receivables
 * against cash), in colones.
 */
export async function writePaymentLines(
  trx: Knex.Transaction,
  invoice: Pick<InvoiceRow, 'companyId' | 'livemode'>,
  entryId: number,
  amountCrc: string,
  reversal = false,
): Promise<void> {
  const accounts = (await trx('accounts')
    .where({ companyId: invoice.companyId, livemode: invoice.livemode })
    .whereIn('role', ['cash', 'receivables'])
    .select('id', 'role')) as { id: number; role: string }[];
  const account = (role: string) => {
    const a = accounts.find((x) => x.role === role);
    if (!a) throw new Error(`company ${invoice.companyId} has no ${role} account`);
    return a.id;
  };
  const [debited, credited] = reversal ? ['receivables', 'cash'] : ['cash', 'receivables'];
  await trx('journal_lines').insert([
    { entryId, accountId: account(debited), debit: amountCrc, credit: 0 },
    { entryId, accountId: account(credited), debit: 0, credit: amountCrc },
  ]);
}

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
    const invoice = (await trx('invoices')
      .where({ ...tenant, id: invoiceId })
      .forUpdate()
      .first()) as InvoiceRow | undefined;
    if (!invoice) return { kind: 'not_found' };
    // A purchase (08) is owed to a supplier, a receipt (10) records a payment and a credit note (03)
    // is owed by nobody: none is paid here.
    if (invoice.docType === '08' || invoice.docType === '10' || invoice.docType === '03')
      throw new PaymentRefused({
        code: 'invoice_not_payable',
        message: `A document of type ${invoice.docType} is not paid through the payments API`,
      });
    if (input.receiptIssuer) assertReceiptAllowed(invoice);
    const prior = (await trx('payments')
      .where({ invoiceId })
      .select(
        trx.raw('coalesce(sum(amount_crc), 0) as paid_crc'),
        trx.raw('coalesce(sum(amount), 0) as paid'),
      )
      .first()) as { paidCrc: string; paid: string };
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

    // 3. The payment and its journal entry.
    const [payment] = (await trx('payments')
      .insert({
        ...tenant,
        invoiceId,
        clientId: invoice.clientId,
        amount: input.amount,
        appliedAmount: plan.applied,
        amountCrc: plan.amountCrc,
        currency: invoice.currency,
        exchangeRate: invoice.exchangeRate,
        method: input.method,
        methodCode: PAYMENT_METHODS[input.method],
        paidAt: input.paidAt,
        reference: input.reference,
        requestId: opts.requestId,
      })
      .returning('*')) as PaymentRow[];
    await bookPayment(trx, invoice, payment!);
    if (input.receiptIssuer) {
      const receipt = await issueReceipt(
        trx,
        tenant,
        input.receiptIssuer,
        invoice,
        { id: payment!.id, amount: input.amount, method: input.method },
        { before: prior.paid, settles: plan.paymentStatus === 'paid' },
        opts.requestId,
      );
      payment!.receiptInvoiceId = receipt.id;
      payment!.receiptClave = receipt.clave;
    }

    // 4. Balances: the invoice's (its currency) and the client's (colones, like its issue entry).
    const [updated] = (await trx('invoices')
      .where({ id: invoiceId })
      .update({ balanceDue: plan.balanceAfter, paymentStatus: plan.paymentStatus, updatedAt: trx.fn.now() })
      .returning('*')) as InvoiceRow[];
    if (invoice.clientId !== null)
      await trx('clients')
        .where({ id: invoice.clientId })
        .update({ balance: trx.raw('balance - ?::numeric', [plan.amountCrc]), updatedAt: trx.fn.now() });

    // 5. Events.
    const body = paymentObject(payment!, updated!);
    await recordEvents(trx, [{ ...tenant, type: 'payment.created', data: body, requestId: opts.requestId }]);
    if (plan.paymentStatus === 'paid') {
      const totalPaid = new Decimal(prior.paid).plus(input.amount);
      await recordEvents(trx, [
        {
          ...tenant,
          type: 'invoice.paid',
          data: {
            invoice_id: formatId('invoice', invoiceId),
            amount: money2(totalPaid.toString()),
            method: input.method,
            // Additive fields beyond the reference's payload:
            currency: invoice.currency,
            payment_id: formatId('payment', payment!.id),
            paid_at: new Date(payment!.paidAt).toISOString(),
            client_id: invoice.clientId === null ? null : formatId('client', invoice.clientId),
            livemode: invoice.livemode,
          },
          requestId: opts.requestId,
        },
      ]);
    }
    const response = { status: 201, body };
    if (opts.idempotency) await saveIdempotent(trx, tenant, opts.idempotency, response);
    return { kind: 'created', payment: payment!, invoice: updated!, response };
  });
}

export async function listPayments(db: Knex, tenant: Tenant, invoiceId: number): Promise<PaymentRow[]> {
  return db('payments as p')
    .leftJoin('invoices as r', 'r.id', 'p.receipt_invoice_id')
    .where({ 'p.company_id': tenantOnly(tenant).companyId, 'p.livemode': tenantOnly(tenant).livemode })
    .where('p.invoice_id', invoiceId)
    .orderBy('p.id', 'asc')
    .select('p.*', 'r.clave as receipt_clave');
}
