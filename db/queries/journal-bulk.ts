// The issue entries of a chunk of invoices in five statements whatever its size: the entries
// (exactly once each: unique invoice + kind), their lines, the clients' balances, the invoices'
// `accounted_at`; the cash sales among the invoices just booked are settled by their payment at
// issue (payments-at-issue.ts), which marks them booked in the same row update, in the same
// transaction. The caller's transaction holds the invoices locked.
import type { Knex } from 'knex';
import { documentPosting, receivableChange } from '../../domain/chart-of-accounts.ts';
import { documentLabel } from '../../domain/document-notes.ts';
import { settledAtIssue } from '../../domain/note-payments.ts';
import type { InvoiceRow } from './invoices.ts';
import { settleAtIssue } from './payments-at-issue.ts';

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
  let booked = 0;
  if (toBook.length) {
    const entries = (await trx.raw(
      `insert into journal_entries (company_id, livemode, kind, invoice_id, description, currency, exchange_rate)
       select * from unnest(?::bigint[], ?::boolean[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::numeric[])
       on conflict (invoice_id, kind) where kind in ('invoice', 'invoice_reversal') do nothing
       returning id, invoice_id`,
      [
        toBook.map((i) => i.companyId),
        toBook.map((i) => i.livemode),
        toBook.map(() => 'invoice'),
        toBook.map((i) => i.id),
        toBook.map((i) => `${documentLabel(i.docType)} ${i.consecutivo ?? i.id}`),
        toBook.map((i) => i.currency),
        toBook.map((i) => i.exchangeRate),
      ],
    )) as { rows: { id: string; invoice_id: string }[] };
    const written = entries.rows.map((r) => ({ entryId: Number(r.id), invoiceId: Number(r.invoice_id) }));
    booked = written.length;
    if (written.length) {
      const byId = new Map(toBook.map((i) => [i.id, i]));
      const tenants = [...new Set(written.map((w) => byId.get(w.invoiceId)!.companyId))];
      const accounts = (await trx('accounts')
        .whereIn('company_id', tenants)
        .select('id', 'role', 'company_id', 'livemode')) as {
        id: number;
        role: string;
        companyId: number;
        livemode: boolean;
      }[];
      const account = new Map(accounts.map((a) => [`${a.companyId}:${a.livemode}:${a.role}`, a.id]));
      const lines: { entryId: number; accountId: number; debit: string; credit: string }[] = [];
      const owed = new Map<number, string[]>();
      for (const w of written) {
        const invoice = byId.get(w.invoiceId)!;
        const posting = postings.get(w.invoiceId)!;
        for (const l of posting) {
          const accountId = account.get(`${invoice.companyId}:${invoice.livemode}:${l.role}`);
          if (!accountId) throw new Error(`company ${invoice.companyId} has no ${l.role} account`);
          lines.push({ entryId: w.entryId, accountId, debit: l.debit, credit: l.credit });
        }
        // A tiquete sold to no one (settled at issue), a note on one (settled at issue too: a debit
        // note by its payments at issue below, a credit note out of cash) and a purchase (its
        // supplier is on the row) have no client balance to move.
        if (invoice.clientId !== null)
          owed.set(invoice.clientId, [
            ...(owed.get(invoice.clientId) ?? []),
            receivableChange(invoice.docType, posting),
          ]);
      }
      await trx('journal_lines').insert(lines);
      const clientIds = [...owed.keys()].sort((a, b) => a - b);
      await trx.raw(
        `update clients c set balance = c.balance + v.amount, updated_at = now()
           from (select id, sum(amount) as amount
                   from unnest(?::bigint[], ?::numeric[]) as t(id, amount) group by id) v
          where c.id = v.id`,
        [clientIds.flatMap((id) => owed.get(id)!.map(() => id)), clientIds.flatMap((id) => owed.get(id)!)],
      );
      for (const id of await settleAtIssue(
        trx,
        written.map((w) => byId.get(w.invoiceId)!),
        (invoice, role) => {
          const id = account.get(`${invoice.companyId}:${invoice.livemode}:${role}`);
          if (!id) throw new Error(`company ${invoice.companyId} has no ${role} account`);
          return id;
        },
      ))
        marked.add(id);
    }
  }
  // The settled cash sales were marked with their settlement (one update of each row).
  const unmarked = invoices.map((i) => i.id).filter((id) => !marked.has(id));
  if (unmarked.length)
    await trx('invoices')
      .whereIn('id', unmarked)
      .whereNull('accounted_at')
      .update({ accountedAt: trx.fn.now() });
  return booked;
}
