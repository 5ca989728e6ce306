// The SQL of credit and debit notes (the use case is operations/credit-notes.ts): the referenced
// document locked, the credit notes recorded on it before, the note's row numbered in its own
// series, and the credit a credit note reserves on the document (`credited_total`, which a check
// constraint keeps ≤ total) or gives back when Hacienda rejects it (releaseCredit, called with
// the rejection's reversal).
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { documentBalance, type DocumentBalance } from '../../domain/balance.ts';
import type { Tenant } from './clients.ts';
import { invoiceInsertRow } from './invoice-bulk.ts';
import { reserveNumber, type InvoiceRow, type PreparedInvoice } from './invoices.ts';

/** The lines and totals of the credit notes of a document that Hacienda has not rejected. */
export async function earlierCredits(
  trx: Knex.Transaction,
  documentId: number,
): Promise<Pick<InvoiceRow, 'lines' | 'summary'>[]> {
  return (await trx('invoices')
    .where({ referencedInvoiceId: documentId, docType: '03' })
    .whereNot('status', 'rechazada')
    .select('lines', 'summary')) as Pick<InvoiceRow, 'lines' | 'summary'>[];
}

/** A note's row, numbered in its own series (the series row stays locked until COMMIT). */
export async function insertNote(
  trx: Knex.Transaction,
  tenant: Tenant,
  prepared: PreparedInvoice,
  ctx: { emisorId: string; requestId: string | null },
): Promise<InvoiceRow> {
  const number = await reserveNumber(trx, {
    ...tenant,
    docType: prepared.docType,
    branch: prepared.branch,
    terminal: prepared.terminal,
  });
  const row = invoiceInsertRow(tenant, prepared, number, new Date(), ctx.emisorId, ctx.requestId ?? '');
  // A credit note is owed by nobody (invoiceRecord): what it credits comes off the referenced document.
  const [note] = (await trx('invoices')
    .insert({ ...row, requestId: ctx.requestId })
    .returning('*')) as InvoiceRow[];
  return note!;
}

/**
 * A credit note's amount reserved on the document it references, with the document's balance
 * after it; annulled when the credits reach the total or `annulled` says so (the check constraint
 * has the last word on the total). Returns the document as it now stands.
 */
export async function reserveCredit(
  trx: Knex.Transaction,
  documentId: number,
  amount: string,
  balance: DocumentBalance,
  annulled: boolean,
): Promise<InvoiceRow> {
  const [referenced] = (await trx('invoices')
    .where({ id: documentId })
    .update({
      creditedTotal: trx.raw('credited_total + ?::numeric', [amount]),
      ...balance,
      annulledAt: trx.raw('case when credited_total + ?::numeric >= total or ?::boolean then now() end', [
        amount,
        annulled,
      ]),
      updatedAt: trx.fn.now(),
    })
    .returning('*')) as [InvoiceRow];
  return referenced;
}

/** What the payments of a document took off its balance (domain/balance.ts does the rest). */
export async function appliedTo(db: Knex, invoiceId: number): Promise<string> {
  const row = (await db('payments')
    .where({ invoiceId })
    .first(db.raw('coalesce(sum(applied_amount), 0) as applied'))) as { applied: string };
  return row.applied;
}

/** Gives back the credit a rejected credit note had reserved (once: with its rejection). */
export async function releaseCredit(trx: Knex.Transaction, note: InvoiceRow): Promise<void> {
  if (note.docType !== '03' || note.referencedInvoiceId === null) return;
  const doc = (await trx('invoices')
    .where({ id: note.referencedInvoiceId })
    .forUpdate()
    .first()) as InvoiceRow;
  const creditedTotal = new Decimal(doc.creditedTotal).minus(note.total);
  await trx('invoices')
    .where({ id: doc.id })
    .update({
      creditedTotal: creditedTotal.toFixed(5),
      ...documentBalance({ ...doc, creditedTotal, applied: await appliedTo(trx, doc.id) }),
      annulledAt: null,
      updatedAt: trx.fn.now(),
    });
}
