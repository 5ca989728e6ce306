// invoice.accounting: one balanced journal entry per issued invoice (receivables against
// revenue from goods, revenue from services and IVA payable), with the client's balance, in one
// transaction. The database makes it exactly once (unique invoice + kind); a rerun changes nothing.
import { UnrecoverableError, type Job } from 'bullmq';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import type { InvoiceJobData } from './catalogue.ts';
import type { JobContext } from './context.ts';
import { bookInvoice } from './invoice-state.ts';

export async function accountInvoice(job: Job<InvoiceJobData>, ctx: JobContext): Promise<string> {
  return ctx.db.transaction(async (trx) => {
    // 1. Lock the invoice row so a concurrent run waits and then sees accounted_at.
    const invoice = (await trx('invoices').where({ id: job.data.invoiceId }).forUpdate().first()) as
      InvoiceRow | undefined;
    if (!invoice) throw new UnrecoverableError(`invoice ${job.data.invoiceId} does not exist`);
    if (invoice.accountedAt) return 'already booked';
    if (invoice.status === 'borrador') throw new UnrecoverableError(`invoice ${invoice.id} is a draft`);
    if (invoice.status === 'rechazada') return 'rejected before booking';
    // 2. Book it.
    const wrote = await bookInvoice(trx, invoice);
    return wrote ? 'booked' : 'nothing to book';
  });
}
