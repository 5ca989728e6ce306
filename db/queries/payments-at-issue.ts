// Cash sales (condición contado, `paid_at_issue`) are settled by the service: when the invoice's
// issue entry is booked (the accounting step, journal-bulk.ts, in the same transaction), one
// payment per method of its MedioPago with that method's TotalMedioPago (one for what is due when
// it names a single method), dated at issue, each with its journal entry (cash against
// receivables); then the invoice's balance and payment status, the client's balance and the
// `payment.created` (each) / `invoice.paid` (once) events, like payments made through the API
// (payments.ts; the rules are domain/payments.ts, planAtIssuePayments). Exactly once: only an
// invoice whose issue entry this transaction wrote is settled (a repeat finds the entry and books
// nothing), and payments_at_issue_key allows one payment at issue per invoice and MedioPago
// position. A rejection reverses them all, once.
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { money2, paymentObject } from '../public-objects.ts';
import { formatId } from '../../domain/ids.ts';
import {
  invoiceReceivableCrc,
  planAtIssuePayments,
  type AtIssueMethod,
  type AtIssuePayment,
} from '../../domain/payments.ts';
import { isPaymentMethod, PAYMENT_METHODS } from '../../domain/sale-terms.ts';
import { recordEvents, type NewEvent } from './events.ts';
import type { InvoiceRow } from './invoices.ts';
import { writePaymentLines, type PaymentRow } from './payments.ts';

export type AccountOf = (invoice: InvoiceRow, role: 'cash' | 'receivables') => number;

/** The invoice's MedioPago as payment methods with their amounts (stored summary and names). */
function methodsOf(invoice: InvoiceRow): AtIssueMethod[] {
  const name = (i: number) => {
    const named = invoice.paymentMethods[i];
    return named && isPaymentMethod(named) ? named : 'efectivo';
  };
  const medios = invoice.summary.summary.medioPago;
  if (!medios?.length) return [{ method: name(0), total: null }];
  return medios.map((m, i) => ({ method: name(i), total: m.total }));
}

/**
 * Settles the cash sales among invoices whose issue entries were just written, and marks those
 * invoices booked (`accounted_at`) in the same row update. Returns the ids of the invoices it wrote.
 */
export async function settleAtIssue(
  trx: Knex.Transaction,
  booked: InvoiceRow[],
  accountOf: AccountOf,
): Promise<Set<number>> {
  const due = booked.filter((i) => i.paidAtIssue);
  if (!due.length) return new Set();
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
  const plans: { invoice: InvoiceRow; pay: AtIssuePayment }[] = [];
  for (const invoice of due) {
    const pays = planAtIssuePayments(
      {
        status: invoice.status,
        balanceDue: invoice.balanceDue,
        exchangeRate: invoice.exchangeRate,
        receivableCrc: invoiceReceivableCrc(invoice.summary, invoice.exchangeRate),
        paidCrc: paidCrc.get(invoice.id) ?? '0',
      },
      methodsOf(invoice),
    );
    for (const pay of pays) plans.push({ invoice, pay });
  }
  if (!plans.length) return new Set();

  // 1. The payments, 2. their entries and lines, 3. the invoices and clients, 4. the events.
  const payments = (await trx('payments')
    .insert(
      plans.map(({ invoice, pay }) => ({
        companyId: invoice.companyId,
        livemode: invoice.livemode,
        invoiceId: invoice.id,
        clientId: invoice.clientId,
        amount: pay.amount,
        appliedAmount: pay.plan.applied,
        amountCrc: pay.plan.amountCrc,
        currency: invoice.currency,
        exchangeRate: invoice.exchangeRate,
        method: pay.method,
        methodCode: PAYMENT_METHODS[pay.method as keyof typeof PAYMENT_METHODS],
        paidAt: invoice.issuedAt ?? trx.fn.now(),
        reference: null,
        atIssue: true,
        atIssueIndex: pay.index,
      })),
    )
    .returning('*')) as (PaymentRow & { atIssueIndex: number })[];
  const byPayment = new Map(plans.map((p) => [`${p.invoice.id}:${p.pay.index}`, p]));
  const planOf = (p: PaymentRow & { atIssueIndex: number }) =>
    byPayment.get(`${Number(p.invoiceId)}:${p.atIssueIndex}`)!;
  const entries = (await trx('journal_entries')
    .insert(
      payments.map((p) => {
        const invoice = planOf(p).invoice;
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
      const invoice = planOf(payment).invoice;
      return [
        { entryId: e.id, accountId: accountOf(invoice, 'cash'), debit: payment.amountCrc, credit: 0 },
        { entryId: e.id, accountId: accountOf(invoice, 'receivables'), debit: 0, credit: payment.amountCrc },
      ];
    }),
  );
  // Each invoice ends where its last payment leaves it.
  const final = new Map(plans.map((p) => [p.invoice.id, p.pay.plan]));
  await trx.raw(
    `update invoices i set balance_due = v.balance, payment_status = v.status, updated_at = now(),
            accounted_at = coalesce(i.accounted_at, now())
       from (select * from unnest(?::bigint[], ?::numeric[], ?::text[]) as t(id, balance, status)) v
      where i.id = v.id`,
    [
      [...final.keys()],
      [...final.values()].map((p) => p.balanceAfter),
      [...final.values()].map((p) => p.paymentStatus),
    ],
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
  const events: NewEvent[] = [];
  for (const p of payments) {
    const { invoice, pay } = planOf(p);
    // payment.created with the invoice as this payment leaves it; invoice.paid once, by the last.
    events.push({
      companyId: invoice.companyId,
      livemode: invoice.livemode,
      type: 'payment.created',
      data: paymentObject(p, { balanceDue: pay.plan.balanceAfter, paymentStatus: pay.plan.paymentStatus }),
    });
    if (pay.plan.paymentStatus === 'paid')
      events.push({
        companyId: invoice.companyId,
        livemode: invoice.livemode,
        type: 'invoice.paid',
        data: {
          invoice_id: formatId('invoice', invoice.id),
          amount: money2(p.amount),
          method: pay.method,
          currency: invoice.currency,
          payment_id: formatId('payment', p.id),
          paid_at: new Date(p.paidAt).toISOString(),
          client_id: invoice.clientId === null ? null : formatId('client', invoice.clientId),
          livemode: invoice.livemode,
        },
      });
  }
  await recordEvents(trx, events);
  return new Set(final.keys());
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
