// Guarded state changes of invoices, each written with its event in one transaction
// (`update … where id = ? and status = <from>`), and the bookkeeping that goes with them:
// the issue entry (exactly once) and the reversing entry on rejection (exactly once).
import type { Knex } from 'knex';
import { invoiceObject } from '../public-objects.ts';
import { recordEvent } from './events.ts';
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

export async function transition(
  trx: Knex.Transaction,
  invoiceId: number,
  from: InvoiceState[],
  to: InvoiceState,
  patch: Record<string, unknown>,
  event: string | null,
  requestId: string | null = null,
): Promise<InvoiceRow | null> {
  const [row] = (await trx('invoices')
    .where({ id: invoiceId })
    .whereIn('status', from)
    .update({ ...patch, status: to, updatedAt: trx.fn.now() })
    .returning('*')) as InvoiceRow[];
  if (!row) return null;
  if (event) {
    await recordEvent(trx, {
      companyId: row.companyId,
      livemode: row.livemode,
      type: event,
      data: invoiceObject(row),
      requestId,
    });
  }
  return row;
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
  const inserted = await trx.raw(
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
