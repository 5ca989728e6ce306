// invoice.accounting over a chunk: one balanced journal entry per issued invoice (receivables
// against revenue from goods, revenue from services and IVA payable), with the clients'
// balances, for the whole chunk in one transaction. The database makes each entry exactly once
// (unique invoice + kind); a rerun finds `accounted_at` set and changes nothing.
import type { Job } from 'bullmq';
import { lockInvoices } from '../db/queries/invoice-flow.ts';
import { bookInvoices } from '../db/queries/journal-bulk.ts';
import { chunkInvoiceIds, type StepJobData } from './catalogue.ts';
import type { JobContext } from './context.ts';

export async function accountChunk(job: Job<StepJobData>, ctx: JobContext): Promise<string> {
  return ctx.db.transaction(async (trx) => {
    // 1. Lock the chunk's invoices so a concurrent run waits and then sees accounted_at.
    const invoices = await lockInvoices(trx, chunkInvoiceIds(job.data));
    // Only documents Hacienda received are booked: one refused at reception, or that never
    // left (its processing error waits for a person), has nothing to book.
    const due = invoices.filter((i) => !i.accountedAt && (i.status === 'enviada' || i.status === 'aceptada'));
    if (!due.length) return 'already booked';
    // 2. Book them.
    const booked = await bookInvoices(trx, due);
    return `booked ${booked} of ${due.length}`;
  });
}
