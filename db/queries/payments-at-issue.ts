// Cash sales (condición contado, `paid_at_issue`) are settled by the service: when the invoice's
// issue entry is booked (the accounting step, journal-bulk.ts, in the same transaction), one
// payment for what is still due — by the invoice's payment method, dated at issue — with its
// journal entry (cash against receivables), the invoice's balance and payment status, the
// client's balance and the `payment.created` / `invoice.paid` events, like a payment made through
// the API (payments.ts; the rules are domain/payments.ts). Exactly once: only an invoice whose
// issue entry this transaction wrote is settled (a repeat finds the entry and books nothing), and
// payments_at_issue_key allows one such payment per invoice. A rejection reverses it once.
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { money2, paymentObject } from '../public-objects.ts';
import { formatId } from '../../domain/ids.ts';
import { invoiceReceivableCrc, planPayment, type PaymentPlan } from '../../domain/payments.ts';
import { isPaymentMethod, PAYMENT_METHODS } from '../../domain/sale-terms.ts';
import { recordEvents, type EventRow } from './invoice-flow.ts';
import type { InvoiceRow } from './invoices.ts';
import { writePaymentLines, type PaymentRow } from './payments.ts';

export type AccountOf = (invoice: InvoiceRow, role: 'cash' | 'receivables') => number;

/** Settles the cash sales among invoices whose issue entries were just written. Returns how many. */
export async function settleAtIssue(
  trx: Knex.Transaction,
  booked: InvoiceRow[],
  accountOf: AccountOf,
): Promise<number> {
  const due = booked.filter((i) => i.paidAtIssue);
  if (!due.length) return 0;
  // What was already paid through the API between intake and booking is not paid twice.
  const prior = (await trx('payments')
    .whereIn(
      'invoice_id',
      due.map((i) => i.id),
    )
    .groupBy('invoice_id')
    .select('invoice_id', trx.raw('sum(amount_crc) as paid_crc'))) as {
    invoiceId: string;
    paidCrc: string;
  }[];
  const paidCrc = new Map(prior.map((p) => [Number(p.invoiceId), p.paidCrc]));
  const plans: { invoice: InvoiceRow; plan: PaymentPlan; amount: string; method: string }[] = [];
  for (const invoice of due) {
    const amount = new Decimal(invoice.balanceDue).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    if (amount.lte(0)) continue;
    const planned = planPayment({
      status: invoice.status,
      balanceDue: invoice.balanceDue,
      exchangeRate: invoice.exchangeRate,
      receivableCrc: invoiceReceivableCrc(invoice.summary, invoice.exchangeRate),
      paidCrc: paidCrc.get(invoice.id) ?? '0',
      amount: amount.toFixed(2),
    });
    if (!planned.ok) continue;
    const named = invoice.paymentMethods[0];
    const method = named && isPaymentMethod(named) ? named : 'efectivo';
    plans.push({ invoice, plan: planned.plan, amount: amount.toFixed(2), method });
  }
  if (!plans.length) return 0;

  // 1. The payments, 2. their entries and lines, 3. the invoices and clients, 4. the events.
  const payments = (await trx('payments')
    .insert(
      plans.map(({ invoice, plan, amount, method }) => ({
        companyId: invoice.companyId,
        livemode: invoice.livemode,
        invoiceId: invoice.id,
        clientId: invoice.clientId,
        amount,
        appliedAmount: plan.applied,
        amountCrc: plan.amountCrc,
        currency: invoice.currency,
        exchangeRate: invoice.exchangeRate,
        method,
        methodCode: PAYMENT_METHODS[method as keyof typeof PAYMENT_METHODS],
        paidAt: invoice.issuedAt ?? trx.fn.now(),
        reference: null,
        atIssue: true,
      })),
    )
    .returning('*')) as PaymentRow[];
  const byInvoice = new Map(plans.map((p) => [p.invoice.id, p]));
  const entries = (await trx('journal_entries')
    .insert(
      payments.map((p) => {
        const invoice = byInvoice.get(Number(p.invoiceId))!.invoice;
        return {
          companyId: invoice.companyId,
          livemode: invoice.livemode,
          kind: 'payment',
          invoiceId: invoice.id,
          paymentId: p.id,
          description: `Pago al contado ${formatId('payment', p.id)} de la factura ${invoice.consecutivo ?? invoice.id}`,
          currency: invoice.currency,
          exchangeRate: invoice.exchangeRate,
        };
      }),
    )
    .returning(['id', 'payment_id'])) as { id: number; paymentId: number }[];
  const paymentById = new Map(payments.map((p) => [Number(p.id), p]));
  await trx('journal_lines').insert(
    entries.flatMap((e) => {
      const payment = paymentById.get(Number(e.paymentId))!;
      const invoice = byInvoice.get(Number(payment.invoiceId))!.invoice;
      return [
        { entryId: e.id, accountId: accountOf(invoice, 'cash'), debit: payment.amountCrc, credit: 0 },
        { entryId: e.id, accountId: accountOf(invoice, 'receivables'), debit: 0, credit: payment.amountCrc },
      ];
    }),
  );
  const updated = (
    await trx.raw(
      `update invoices i set balance_due = v.balance, payment_status = v.status, updated_at = now()
         from (select * from unnest(?::bigint[], ?::numeric[], ?::text[]) as t(id, balance, status)) v
        where i.id = v.id
        returning i.*`,
      [
        plans.map((p) => p.invoice.id),
        plans.map((p) => p.plan.balanceAfter),
        plans.map((p) => p.plan.paymentStatus),
      ],
    )
  ).rows as Record<string, unknown>[];
  const after = new Map(
    updated.map((r) => [
      Number(r.id),
      { balanceDue: String(r.balance_due), paymentStatus: String(r.payment_status) },
    ]),
  );
  await trx.raw(
    `update clients c set balance = c.balance - v.amount, updated_at = now()
       from (select id, sum(amount) as amount
               from unnest(?::bigint[], ?::numeric[]) as t(id, amount) group by id) v
      where c.id = v.id`,
    [
      payments.flatMap((p) => (p.clientId === null ? [] : [p.clientId])),
      payments.filter((p) => p.clientId !== null).map((p) => p.amountCrc),
    ],
  );
  const events: EventRow[] = [];
  for (const p of payments) {
    const { invoice, method } = byInvoice.get(Number(p.invoiceId))!;
    const state = after.get(invoice.id)!;
    events.push({
      companyId: invoice.companyId,
      livemode: invoice.livemode,
      type: 'payment.created',
      data: paymentObject(p, state),
    });
    if (state.paymentStatus === 'paid')
      events.push({
        companyId: invoice.companyId,
        livemode: invoice.livemode,
        type: 'invoice.paid',
        data: {
          invoice_id: formatId('invoice', invoice.id),
          amount: money2(p.amount),
          method,
          currency: invoice.currency,
          payment_id: formatId('payment', p.id),
          paid_at: new Date(p.paidAt).toISOString(),
          client_id: invoice.clientId === null ? null : formatId('client', invoice.clientId),
          livemode: invoice.livemode,
        },
      });
  }
  await recordEvents(trx, events);
  return payments.length;
}

/**
 * A rejected cash sale: its payment at issue is reversed once (receivables against cash, the
 * client's balance back), beside the reversal of its issue entry. The payment row stays, as money
 * records do; the invoice is `unpaid` again (its balance is zero: it does not exist for Hacienda).
 */
export async function reverseAtIssuePayment(trx: Knex.Transaction, invoice: InvoiceRow): Promise<boolean> {
  const payment = (await trx('payments').where({ invoiceId: invoice.id, atIssue: true }).first()) as
    PaymentRow | undefined;
  if (!payment) return false;
  const inserted = await trx.raw(
    `insert into journal_entries (company_id, livemode, kind, invoice_id, description, currency, exchange_rate)
     values (?, ?, 'payment_reversal', ?, ?, ?, ?)
     on conflict (invoice_id) where kind = 'payment_reversal' do nothing
     returning id`,
    [
      invoice.companyId,
      invoice.livemode,
      invoice.id,
      `Reverso del pago al contado ${formatId('payment', payment.id)} por rechazo ${invoice.consecutivo}`,
      invoice.currency,
      invoice.exchangeRate,
    ],
  );
  const entryId = inserted.rows[0]?.id as number | undefined;
  if (!entryId) return false;
  await writePaymentLines(trx, invoice, entryId, payment.amountCrc, true);
  if (invoice.clientId !== null)
    await trx('clients')
      .where({ id: invoice.clientId })
      .update({ balance: trx.raw('balance + ?::numeric', [payment.amountCrc]), updatedAt: trx.fn.now() });
  await trx('invoices')
    .where({ id: invoice.id })
    .update({ paymentStatus: 'unpaid', updatedAt: trx.fn.now() });
  return true;
}
