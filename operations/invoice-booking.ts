// Booking a chunk of invoices (the accounting step), in the caller's transaction, which holds the
// invoices locked: the issue entries (exactly once each: unique invoice + kind), their lines, the
// invoices' `accounted_at`, a few multi-row statements whatever the chunk's size
// (db/queries/journal-bulk.ts). Cash sales (condición contado, `paid_at_issue`) among the invoices
// just booked are settled by the service in the same transaction: one payment per method of its
// MedioPago with that method's TotalMedioPago (one for what is due when it names a single method),
// dated at issue, each with its journal entry (cash against receivables); then the invoice's
// balance and payment status and the `payment.created` (each) / `invoice.paid` (once) events, like
// payments made through the API (operations/payments.ts; the rules are domain/payments.ts,
// planAtIssuePayments; the SQL db/queries/payments-at-issue.ts). The clients' balances move last,
// once each, by what the entries and the payments add up to: a cash sale's client owes what it owed.
// Exactly once: only an invoice whose issue entry this transaction wrote is settled (a repeat
// finds the entry and books nothing), and payments_at_issue_key allows one payment at issue per
// invoice and MedioPago position. A rejection reverses them all, once (reverseAtIssuePayment).
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { paymentObject } from '../db/public-objects.ts';
import { documentPosting, receivableChange, type PostingLine } from '../domain/chart-of-accounts.ts';
import { documentBalance } from '../domain/balance.ts';
import { settledAtIssue } from '../domain/note-payments.ts';
import {
  invoiceReceivableCrc,
  planAtIssuePayments,
  type AtIssueMethod,
  type AtIssuePayment,
} from '../domain/payments.ts';
import { isPaymentMethod } from '../domain/sale-terms.ts';
import { recordEvents, type NewEvent } from '../db/queries/events.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import {
  accountsByRole,
  addToClientBalances,
  insertIssueEntries,
  insertJournalLines,
  markAccounted,
  type ClientOwes,
  type JournalLine,
} from '../db/queries/journal-bulk.ts';
import {
  insertAtIssueEntries,
  insertAtIssuePayments,
  paidCrcByInvoice,
  settleInvoices,
  type AtIssuePaymentRow,
} from '../db/queries/payments-at-issue.ts';
import { invoicePaidData } from './payments.ts';

/** The id of an invoice's company account of a role. */
type AccountOf = (invoice: InvoiceRow, role: PostingLine['role']) => number;

/** Books the invoices not booked yet; returns how many issue entries it wrote. */
export async function bookInvoices(trx: Knex.Transaction, invoices: InvoiceRow[]): Promise<number> {
  if (!invoices.length) return 0;
  const postings = new Map(
    invoices.map((i) => [
      i.id,
      documentPosting(i.docType, i.summary, i.exchangeRate, i.condicionVenta, settledAtIssue(i)),
    ]),
  );
  const toBook = invoices.filter((i) => postings.get(i.id)!.length > 0);
  const marked = new Set<number>();
  const owed: ClientOwes[] = [];
  let booked = 0;
  if (toBook.length) {
    const written = await insertIssueEntries(trx, toBook);
    booked = written.length;
    if (written.length) {
      const byId = new Map(toBook.map((i) => [i.id, i]));
      const entries = written.map((w) => ({ entryId: w.entryId, invoice: byId.get(w.invoiceId)! }));
      const accountOf = await accountsOf(
        trx,
        entries.map((e) => e.invoice),
      );
      owed.push(...(await writeIssueLines(trx, entries, postings, accountOf)));
      const settled = await settleAtIssue(
        trx,
        entries.map((e) => e.invoice),
        accountOf,
      );
      for (const id of settled.invoiceIds) marked.add(id);
      owed.push(...settled.paid);
    }
  }
  await addToClientBalances(trx, owed);
  // The settled cash sales were marked with their settlement (one update of each row).
  await markAccounted(
    trx,
    invoices.map((i) => i.id).filter((id) => !marked.has(id)),
  );
  return booked;
}

/** The accounts of the invoices' companies, by role; a missing account is a broken company. */
async function accountsOf(trx: Knex.Transaction, invoices: InvoiceRow[]): Promise<AccountOf> {
  const account = await accountsByRole(trx, [...new Set(invoices.map((i) => i.companyId))]);
  return (invoice, role) => {
    const id = account.get(`${invoice.companyId}:${invoice.livemode}:${role}`);
    if (!id) throw new Error(`company ${invoice.companyId} has no ${role} account`);
    return id;
  };
}

/** The lines of the issue entries just written; returns what the clients owe more by them. */
async function writeIssueLines(
  trx: Knex.Transaction,
  entries: { entryId: number; invoice: InvoiceRow }[],
  postings: Map<number, PostingLine[]>,
  accountOf: AccountOf,
): Promise<ClientOwes[]> {
  const lines: JournalLine[] = [];
  const owed: ClientOwes[] = [];
  for (const { entryId, invoice } of entries) {
    const posting = postings.get(invoice.id)!;
    for (const l of posting)
      lines.push({ entryId, accountId: accountOf(invoice, l.role), debit: l.debit, credit: l.credit });
    // A tiquete sold to no one (settled at issue), a note on one (settled at issue too: a debit
    // note by its payments at issue below, a credit note out of cash) and a purchase (its
    // supplier is on the row) have no client balance to move.
    if (invoice.clientId !== null)
      owed.push({ clientId: Number(invoice.clientId), amount: receivableChange(invoice.docType, posting) });
  }
  await insertJournalLines(trx, lines);
  return owed;
}

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
 * invoices booked (`accounted_at`) in the same row update. Returns the ids of the invoices it
 * wrote, and what their clients owe less by the payments (a payment with no client moves none).
 */
async function settleAtIssue(
  trx: Knex.Transaction,
  booked: InvoiceRow[],
  accountOf: AccountOf,
): Promise<{ invoiceIds: Set<number>; paid: ClientOwes[] }> {
  const none = { invoiceIds: new Set<number>(), paid: [] };
  const due = booked.filter((i) => i.paidAtIssue);
  if (!due.length) return none;
  // What was already paid through the API between intake and booking is not paid twice.
  const paid = await paidCrcByInvoice(
    trx,
    due.map((i) => i.id),
  );
  const plans: { invoice: InvoiceRow; pay: AtIssuePayment }[] = [];
  for (const invoice of due) {
    const prior = paid.get(invoice.id) ?? { paidCrc: '0', applied: '0' };
    const pays = planAtIssuePayments(
      {
        status: invoice.status,
        // What the payments at issue settle: the invoice's balance before them (its row says 0
        // and `paid` from intake: domain/balance.ts, paidAtIssueBalance).
        balanceDue: documentBalance({
          docType: invoice.docType,
          status: invoice.status,
          total: invoice.total,
          creditedTotal: invoice.creditedTotal,
          applied: prior.applied,
          annulled: invoice.annulledAt !== null,
        }).balanceDue,
        exchangeRate: invoice.exchangeRate,
        receivableCrc: invoiceReceivableCrc(invoice.summary, invoice.exchangeRate),
        paidCrc: prior.paidCrc,
      },
      methodsOf(invoice),
    );
    for (const pay of pays) plans.push({ invoice, pay });
  }
  if (!plans.length) return none;

  // 1. The payments, 2. their entries and lines, 3. the invoices, 4. the events (the clients'
  // balances move with the issue entries', in bookInvoices).
  const payments = await insertAtIssuePayments(
    trx,
    plans.map(({ invoice, pay }) => ({
      invoice,
      index: pay.index,
      method: pay.method,
      amount: pay.amount,
      appliedAmount: pay.plan.applied,
      amountCrc: pay.plan.amountCrc,
    })),
  );
  const byPayment = new Map(plans.map((p) => [`${p.invoice.id}:${p.pay.index}`, p]));
  const planOf = (p: AtIssuePaymentRow) => byPayment.get(`${Number(p.invoiceId)}:${p.atIssueIndex}`)!;
  await bookAtIssuePayments(trx, payments, planOf, accountOf);
  // Each invoice ends where its last payment leaves it.
  const final = new Map(plans.map((p) => [p.invoice.id, p.pay.plan]));
  await settleInvoices(
    trx,
    [...final].map(([invoiceId, plan]) => ({ invoiceId, ...plan })),
  );
  await recordEvents(trx, atIssueEvents(payments, planOf));
  return {
    invoiceIds: new Set(final.keys()),
    paid: payments.flatMap((p) =>
      p.clientId === null
        ? []
        : [{ clientId: Number(p.clientId), amount: new Decimal(p.amountCrc).neg().toFixed() }],
    ),
  };
}

type PlanOf = (p: AtIssuePaymentRow) => { invoice: InvoiceRow; pay: AtIssuePayment };

/** The journal entry of each payment at issue, with its two lines (cash against receivables). */
async function bookAtIssuePayments(
  trx: Knex.Transaction,
  payments: AtIssuePaymentRow[],
  planOf: PlanOf,
  accountOf: AccountOf,
): Promise<void> {
  const entries = await insertAtIssueEntries(
    trx,
    payments.map((payment) => ({ payment, invoice: planOf(payment).invoice })),
  );
  const paymentById = new Map(payments.map((p) => [Number(p.id), p]));
  await insertJournalLines(
    trx,
    entries.flatMap((e) => {
      const payment = paymentById.get(Number(e.paymentId))!;
      const invoice = planOf(payment).invoice;
      return [
        { entryId: e.id, accountId: accountOf(invoice, 'cash'), debit: payment.amountCrc, credit: 0 },
        { entryId: e.id, accountId: accountOf(invoice, 'receivables'), debit: 0, credit: payment.amountCrc },
      ];
    }),
  );
}

/** payment.created with the invoice as each payment leaves it; invoice.paid once, by the last. */
function atIssueEvents(payments: AtIssuePaymentRow[], planOf: PlanOf): NewEvent[] {
  const events: NewEvent[] = [];
  for (const p of payments) {
    const { invoice, pay } = planOf(p);
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
        data: invoicePaidData(invoice, { id: p.id, method: pay.method, paidAt: p.paidAt }, p.amount),
      });
  }
  return events;
}
