// Guarded state changes of invoices, written with their events in the caller's transaction
// (`update … where id in (…) and status in (<from>)`, whatever the number of invoices), and the
// bookkeeping of a rejection: the reversing entry, exactly once.
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';
import { invoiceObject } from '../public-objects.ts';
import { recordEvents } from './events.ts';
import { releaseCredit } from './document-credits.ts';
import type { InvoiceRow } from './invoices.ts';
import { reverseAtIssuePayment } from './payments-at-issue.ts';
import {
  documentPosting,
  receivableChange,
  reversal,
  type PostingLine,
} from '../../domain/chart-of-accounts.ts';
import { documentLabel } from '../../domain/document-notes.ts';
import { settledAtIssue } from '../../domain/note-payments.ts';
import type { InvoiceState } from '../../domain/invoice-states.ts';
import type { EventKind } from '../../domain/webhook-events.ts';

/**
 * What a state change writes besides the status, named like the invoice's fields. A time is
 * `'now'`: the transaction's clock. INVOICE_PATCH_COLUMNS maps each to its column.
 */
export interface InvoicePatch {
  submittedAt?: 'now';
  acceptedAt?: 'now';
  rejectedAt?: 'now';
  /** Hacienda's own word for the document (`recibido`, `aceptado`, `rechazado`, `error`). */
  haciendaStatus?: string;
  /** Why Hacienda rejected it (stored as JSON). */
  rejectionReason?: object;
  /** Hacienda's observations on the accepted document (stored as JSON). */
  warnings?: readonly object[];
  /** Cleared: whatever held the flow up is over. */
  processingError?: null;
  /** What is still owed (a rejected document: nothing). */
  balanceDue?: number | string;
  /**
   * `unpaid_if_paid_at_issue` (a rejection): a document that said `paid` because it was paid at
   * issue is paid by no one any more (its payments at issue, if booked, are reversed with it).
   */
  paymentStatus?: 'unpaid_if_paid_at_issue';
}

/** The column of each patch field: the one place where the patch meets the table. */
const INVOICE_PATCH_COLUMNS: Record<keyof InvoicePatch, string> = {
  submittedAt: 'submitted_at',
  acceptedAt: 'accepted_at',
  rejectedAt: 'rejected_at',
  haciendaStatus: 'hacienda_status',
  rejectionReason: 'rejection_reason',
  warnings: 'warnings',
  processingError: 'processing_error',
  balanceDue: 'balance_due',
  paymentStatus: 'payment_status',
};

/** The update of a patch, by column. */
function patchColumns(trx: Knex.Transaction, patch: InvoicePatch): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch) as [keyof InvoicePatch, unknown][]) {
    if (value === undefined) continue;
    out[INVOICE_PATCH_COLUMNS[field]] =
      value === 'now'
        ? trx.fn.now()
        : value === 'unpaid_if_paid_at_issue'
          ? trx.raw(
              `case when paid_at_issue and payment_status = 'paid' then 'unpaid' else payment_status end`,
            )
          : field === 'rejectionReason' || field === 'warnings'
            ? JSON.stringify(value)
            : value;
  }
  return out;
}

/**
 * Moves every invoice of `ids` that is in one of `from` to `to` with the same patch (a guarded
 * update: of two racing attempts one finds nothing to move), each with its event (tagged with the
 * request that created the invoice when `withRequestId`). Returns the rows moved, by id.
 */
export async function transition(
  trx: Knex.Transaction,
  ids: readonly number[],
  from: InvoiceState[],
  to: InvoiceState,
  patch: InvoicePatch,
  event: EventKind | null,
  withRequestId = false,
): Promise<InvoiceRow[]> {
  if (!ids.length) return [];
  const rows = (await trx('invoices')
    .whereIn('id', ids)
    .whereIn('status', from)
    .update({ ...patchColumns(trx, patch), status: to, updatedAt: trx.fn.now() })
    .returning('*')) as InvoiceRow[];
  rows.sort((a, b) => a.id - b.id);
  if (event) {
    await recordEvents(
      trx,
      rows.map((row) => ({
        companyId: row.companyId,
        livemode: row.livemode,
        type: event,
        data: invoiceObject(row),
        requestId: withRequestId ? row.requestId : null,
      })),
    );
  }
  return rows;
}

function postingFor(invoice: InvoiceRow): PostingLine[] {
  return documentPosting(
    invoice.docType,
    invoice.summary,
    invoice.exchangeRate,
    invoice.condicionVenta,
    settledAtIssue(invoice),
  );
}

async function writeEntry(
  trx: Knex.Transaction,
  invoice: InvoiceRow,
  kind: 'invoice' | 'invoice_reversal',
  lines: PostingLine[],
  description: string,
): Promise<boolean> {
  const inserted = await prepared(
    trx,
    'invoice-state.write-entry',
    `insert into journal_entries (company_id, livemode, kind, invoice_id, description, currency, exchange_rate)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (invoice_id, kind) where kind in ('invoice', 'invoice_reversal') do nothing
     returning id`,
    [
      invoice.companyId,
      invoice.livemode,
      kind,
      invoice.id,
      description,
      invoice.currency,
      invoice.exchangeRate,
    ],
  );
  const entryId = inserted.rows[0]?.id as number | undefined;
  if (!entryId) return false;
  const accounts = await trx('accounts')
    .where({ companyId: invoice.companyId, livemode: invoice.livemode })
    .select('id', 'role');
  const byRole = new Map(accounts.map((a: { id: number; role: string }) => [a.role, a.id]));
  await trx('journal_lines').insert(
    lines.map((l) => {
      const accountId = byRole.get(l.role);
      if (!accountId) throw new Error(`company ${invoice.companyId} has no ${l.role} account`);
      return { entryId, accountId, debit: l.debit, credit: l.credit };
    }),
  );
  return true;
}

/**
 * Reverses the issue entry once, if there is one, line by line as it was booked; the client owes
 * that much less. A cash sale's payment at issue is reversed with it (payments-at-issue.ts).
 */
export async function reverseInvoice(trx: Knex.Transaction, invoice: InvoiceRow): Promise<boolean> {
  // A rejected credit note gives back the credit it had reserved on the document it referenced.
  await releaseCredit(trx, invoice);
  const original = await trx('journal_entries').where({ invoiceId: invoice.id, kind: 'invoice' }).first('id');
  if (!original) return false;
  // Exactly what was booked (accounts and amounts), whatever rule would book it today.
  const booked = (await trx('journal_lines as l')
    .join('accounts as a', 'a.id', 'l.account_id')
    .where('l.entry_id', original.id)
    .orderBy('l.id')
    .select('a.role', 'l.debit', 'l.credit')) as {
    role: PostingLine['role'];
    debit: string;
    credit: string;
  }[];
  const lines: PostingLine[] = booked.length
    ? booked.map((l) => ({ role: l.role, debit: String(l.debit), credit: String(l.credit) }))
    : postingFor(invoice);
  const wrote = await writeEntry(
    trx,
    invoice,
    'invoice_reversal',
    reversal(lines),
    `Reverso por rechazo ${documentLabel(invoice.docType)} ${invoice.consecutivo}`,
  );
  if (wrote && invoice.clientId !== null) {
    await trx('clients')
      .where({ id: invoice.clientId })
      .update({
        balance: trx.raw('balance - ?::numeric', [receivableChange(invoice.docType, lines)]),
        updatedAt: trx.fn.now(),
      });
  }
  await reverseAtIssuePayment(trx, invoice);
  return wrote;
}
