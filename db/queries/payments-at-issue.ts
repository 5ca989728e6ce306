// The SQL of cash sales settled at issue (the use case is operations/invoice-booking.ts): what
// was paid through the API before booking, the payments at issue (one per MedioPago position:
// payments_at_issue_key allows no second one), their journal entries and lines (cash against
// receivables), the invoices' balances (marked booked in the same row update; the clients' move
// with the issue entries', db/queries/journal-bulk.ts), and, for a rejected cash sale, the
// reversal of its payments at issue, once.
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { formatId } from '../../domain/ids.ts';
import { PAYMENT_METHODS } from '../../domain/sale-terms.ts';
import type { InvoiceRow } from './invoices.ts';
import { writePaymentLines, type PaymentRow } from './payments.ts';

/**
 * What was already paid through the API on each of these invoices: in colones, and what it took
 * off the balance (the invoice's currency).
 */
export async function paidCrcByInvoice(
  trx: Knex.Transaction,
  invoiceIds: number[],
): Promise<Map<number, { paidCrc: string; applied: string }>> {
  const prior = (await trx('payments')
    .whereIn('invoice_id', invoiceIds)
    .groupBy('invoice_id')
    .select(
      'invoice_id',
      trx.raw('sum(amount_crc) as paid_crc'),
      trx.raw('sum(applied_amount) as applied'),
    )) as {
    invoiceId: string;
    paidCrc: string;
    applied: string;
  }[];
  return new Map(prior.map((p) => [Number(p.invoiceId), { paidCrc: p.paidCrc, applied: p.applied }]));
}

/** A payment at issue to record: its invoice, position in the MedioPago, method and amounts. */
export interface AtIssueRow {
  invoice: InvoiceRow;
  index: number;
  method: string;
  amount: string;
  appliedAmount: string;
  amountCrc: string;
}

export type AtIssuePaymentRow = PaymentRow & { atIssueIndex: number };

/** The payments at issue, dated at issue, in one statement. */
export async function insertAtIssuePayments(
  trx: Knex.Transaction,
  rows: AtIssueRow[],
): Promise<AtIssuePaymentRow[]> {
  return (await trx('payments')
    .insert(
      rows.map((r) => ({
        companyId: r.invoice.companyId,
        livemode: r.invoice.livemode,
        invoiceId: r.invoice.id,
        clientId: r.invoice.clientId,
        amount: r.amount,
        appliedAmount: r.appliedAmount,
        amountCrc: r.amountCrc,
        currency: r.invoice.currency,
        exchangeRate: r.invoice.exchangeRate,
        method: r.method,
        methodCode: PAYMENT_METHODS[r.method as keyof typeof PAYMENT_METHODS],
        paidAt: r.invoice.issuedAt ?? trx.fn.now(),
        reference: null,
        atIssue: true,
        atIssueIndex: r.index,
      })),
    )
    .returning('*')) as AtIssuePaymentRow[];
}

/** The journal entry of each payment at issue (its lines are the caller's), by payment id. */
export async function insertAtIssueEntries(
  trx: Knex.Transaction,
  payments: { payment: PaymentRow; invoice: InvoiceRow }[],
): Promise<{ id: number; paymentId: number }[]> {
  return (await trx('journal_entries')
    .insert(
      payments.map(({ payment: p, invoice }) => ({
        companyId: invoice.companyId,
        livemode: invoice.livemode,
        kind: 'payment',
        invoiceId: invoice.id,
        paymentId: p.id,
        description: `Pago al contado ${formatId('payment', p.id)} de la factura ${invoice.consecutivo ?? invoice.id}`,
        currency: invoice.currency,
        exchangeRate: invoice.exchangeRate,
      })),
    )
    .returning(['id', 'payment_id'])) as { id: number; paymentId: number }[];
}

/** Each settled invoice's balance and payment status, and its booking (`accounted_at`), in one statement. */
export async function settleInvoices(
  trx: Knex.Transaction,
  settled: { invoiceId: number; balanceAfter: string; paymentStatus: string }[],
): Promise<void> {
  await prepared(
    trx,
    'payments-at-issue.settle',
    `update invoices i set balance_due = v.balance, payment_status = v.status, updated_at = now(),
            accounted_at = coalesce(i.accounted_at, now())
       from (select * from unnest(?::bigint[], ?::numeric[], ?::text[]) as t(id, balance, status)) v
      where i.id = v.id`,
    [
      settled.map((s) => s.invoiceId),
      settled.map((s) => s.balanceAfter),
      settled.map((s) => s.paymentStatus),
    ],
  );
}

/**
 * A rejected cash sale: its payments at issue are reversed once, by one `payment_reversal` entry
 * (receivables against cash for each payment; the client's balance back). The payment rows stay,
 * as money records do; the invoice is `unpaid` again (its balance is zero: it does not exist for
 * Hacienda).
 */
export async function reverseAtIssuePayment(trx: Knex.Transaction, invoice: InvoiceRow): Promise<boolean> {
  const payments = (await trx('payments')
    .where({ invoiceId: invoice.id, atIssue: true })
    .orderBy('id')) as PaymentRow[];
  if (!payments.length) return false;
  const names = payments.map((p) => formatId('payment', p.id)).join(', ');
  const inserted = await trx.raw(
    `insert into journal_entries (company_id, livemode, kind, invoice_id, description, currency, exchange_rate)
     values (?, ?, 'payment_reversal', ?, ?, ?, ?)
     on conflict (invoice_id) where kind = 'payment_reversal' do nothing
     returning id`,
    [
      invoice.companyId,
      invoice.livemode,
      invoice.id,
      `Reverso ${payments.length > 1 ? 'de los pagos' : 'del pago'} al contado ${names} por rechazo ${invoice.consecutivo}`,
      invoice.currency,
      invoice.exchangeRate,
    ],
  );
  const entryId = inserted.rows[0]?.id as number | undefined;
  if (!entryId) return false;
  for (const p of payments) await writePaymentLines(trx, invoice, entryId, p.amountCrc, true);
  const total = payments.reduce((a, p) => a.plus(p.amountCrc), new Decimal(0)).toFixed(2);
  if (invoice.clientId !== null)
    await trx('clients')
      .where({ id: invoice.clientId })
      .update({ balance: trx.raw('balance + ?::numeric', [total]), updatedAt: trx.fn.now() });
  await trx('invoices')
    .where({ id: invoice.id })
    .update({ paymentStatus: 'unpaid', updatedAt: trx.fn.now() });
  return true;
}
