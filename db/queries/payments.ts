// The SQL of payments (the use case is operations/payments.ts): what an invoice was paid so far,
// the payment row, its journal entry (debit cash, credit receivables, in colones), the invoice's
// balance_due and payment_status and the client's balance after it, and the payments of an
// invoice. The rules (who may be paid, how much, what is booked) are in domain/payments.ts.
import type { Knex } from 'knex';
import { formatId } from '../../domain/ids.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import type { InvoiceRow } from './invoices.ts';

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
  /** Recorded by the service when a cash sale's issue entry was booked (operations/invoice-booking.ts). */
  atIssue: boolean;
  /** The recibo electrónico de pago issued for it (receipts.ts), and that receipt's clave. */
  receiptInvoiceId?: number | null;
  receiptClave?: string | null;
  requestId: string | null;
  createdAt: Date;
}

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

/** What the invoice's payments came to so far: in colones and in its own currency. */
export async function paidSoFar(
  trx: Knex.Transaction,
  invoiceId: number,
): Promise<{ paidCrc: string; paid: string }> {
  return (await trx('payments')
    .where({ invoiceId })
    .select(trx.raw('coalesce(sum(amount_crc), 0) as paid_crc'), trx.raw('coalesce(sum(amount), 0) as paid'))
    .first()) as { paidCrc: string; paid: string };
}

/** A payment of the invoice, with its journal entry. */
export async function insertPayment(
  trx: Knex.Transaction,
  invoice: InvoiceRow,
  payment: Omit<
    PaymentRow,
    | 'id'
    | 'companyId'
    | 'livemode'
    | 'invoiceId'
    | 'clientId'
    | 'currency'
    | 'exchangeRate'
    | 'atIssue'
    | 'createdAt'
  >,
): Promise<PaymentRow> {
  const [row] = (await trx('payments')
    .insert({
      companyId: invoice.companyId,
      livemode: invoice.livemode,
      invoiceId: invoice.id,
      clientId: invoice.clientId,
      currency: invoice.currency,
      exchangeRate: invoice.exchangeRate,
      ...payment,
    })
    .returning('*')) as PaymentRow[];
  await bookPayment(trx, invoice, row!);
  return row!;
}

/**
 * The invoice's balance after a payment (its currency) and its client's (colones, like its issue
 * entry). Returns the invoice as it now stands.
 */
export async function applyPayment(
  trx: Knex.Transaction,
  invoice: InvoiceRow,
  after: { balanceDue: string; paymentStatus: string; amountCrc: string },
): Promise<InvoiceRow> {
  const [updated] = (await trx('invoices')
    .where({ id: invoice.id })
    .update({ balanceDue: after.balanceDue, paymentStatus: after.paymentStatus, updatedAt: trx.fn.now() })
    .returning('*')) as InvoiceRow[];
  if (invoice.clientId !== null)
    await trx('clients')
      .where({ id: invoice.clientId })
      .update({ balance: trx.raw('balance - ?::numeric', [after.amountCrc]), updatedAt: trx.fn.now() });
  return updated!;
}

export async function listPayments(db: Knex, tenant: Tenant, invoiceId: number): Promise<PaymentRow[]> {
  return db('payments as p')
    .leftJoin('invoices as r', 'r.id', 'p.receipt_invoice_id')
    .where({ 'p.company_id': tenantOnly(tenant).companyId, 'p.livemode': tenantOnly(tenant).livemode })
    .where('p.invoice_id', invoiceId)
    .orderBy('p.id', 'asc')
    .select('p.*', 'r.clave as receipt_clave');
}
