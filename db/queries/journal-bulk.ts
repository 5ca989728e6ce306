// The SQL of booking a chunk of invoices (the use case is operations/invoice-booking.ts), each a
// multi-row statement whatever the chunk's size: the issue entries (exactly once each: unique
// invoice + kind), their lines, the clients' balances (what each moves by, net), the invoices'
// `accounted_at`. The caller's transaction holds the invoices locked.
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { documentLabel } from '../../domain/document-notes.ts';
import type { InvoiceRow } from './invoices.ts';

/** The issue entries of the invoices that have none yet; which ones were written. */
export async function insertIssueEntries(
  trx: Knex.Transaction,
  invoices: InvoiceRow[],
): Promise<{ entryId: number; invoiceId: number }[]> {
  const entries = (await prepared(
    trx,
    'journal-bulk.issue-entries',
    `insert into journal_entries (company_id, livemode, kind, invoice_id, description, currency, exchange_rate)
     select * from unnest(?::bigint[], ?::boolean[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::numeric[])
     on conflict (invoice_id, kind) where kind in ('invoice', 'invoice_reversal') do nothing
     returning id, invoice_id`,
    [
      invoices.map((i) => i.companyId),
      invoices.map((i) => i.livemode),
      invoices.map(() => 'invoice'),
      invoices.map((i) => i.id),
      invoices.map((i) => `${documentLabel(i.docType)} ${i.consecutivo ?? i.id}`),
      invoices.map((i) => i.currency),
      invoices.map((i) => i.exchangeRate),
    ],
  )) as { rows: { id: string; invoice_id: string }[] };
  return entries.rows.map((r) => ({ entryId: Number(r.id), invoiceId: Number(r.invoice_id) }));
}

/** The accounts of these companies (both modes), by `companyId:livemode:role`. */
export async function accountsByRole(
  trx: Knex.Transaction,
  companyIds: number[],
): Promise<Map<string, number>> {
  const accounts = (await trx('accounts')
    .whereIn('company_id', companyIds)
    .select('id', 'role', 'company_id', 'livemode')) as {
    id: number;
    role: string;
    companyId: number;
    livemode: boolean;
  }[];
  return new Map(accounts.map((a) => [`${a.companyId}:${a.livemode}:${a.role}`, a.id]));
}

export interface JournalLine {
  entryId: number;
  accountId: number;
  debit: string | number;
  credit: string | number;
}

/** Lines of several entries, in one statement. */
export async function insertJournalLines(trx: Knex.Transaction, lines: JournalLine[]): Promise<void> {
  if (lines.length) await trx('journal_lines').insert(lines);
}

/** What a client owes more (a negative amount: less). */
export type ClientOwes = { clientId: number; amount: string };

/**
 * What each client owes more (or less: a negative amount), several amounts per client: one update
 * of each client whose amounts do not cancel out (a cash sale's receivable and its payments at
 * issue leave the balance where it was, and its row unlocked), in the order of the clients' ids.
 */
export async function addToClientBalances(trx: Knex.Transaction, owed: ClientOwes[]): Promise<void> {
  const net = new Map<number, Decimal>();
  for (const o of owed) net.set(o.clientId, (net.get(o.clientId) ?? new Decimal(0)).plus(o.amount));
  const moved = [...net].filter(([, amount]) => !amount.isZero()).sort(([a], [b]) => a - b);
  if (!moved.length) return;
  await prepared(
    trx,
    'journal-bulk.client-balances',
    `update clients c set balance = c.balance + v.amount, updated_at = now()
       from unnest(?::bigint[], ?::numeric[]) as v(id, amount)
      where c.id = v.id`,
    [moved.map(([id]) => id), moved.map(([, amount]) => amount.toFixed())],
  );
}

/** The invoices are booked (those marked already keep their time). */
export async function markAccounted(trx: Knex.Transaction, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await trx('invoices').whereIn('id', ids).whereNull('accounted_at').update({ accountedAt: trx.fn.now() });
}
