// invoice.accounting over a chunk: one balanced journal entry per issued invoice (receivables
// against revenue from goods, revenue from services and IVA payable), with the clients'
// balances, for the whole chunk in one transaction. The database makes each entry exactly once
// (unique invoice + kind); a rerun finds `accounted_at` set and changes nothing. An invoice that
// cannot be booked (its entry does not fit the ledger's columns, a check refuses it) fails alone
// (jobs/invoice-flow/isolate.ts): its permanent processing error (step `accounting`) and its
// `invoice.processing_failed` event say so, and the rest of the chunk is booked and goes on.
// Hacienda's verdict on it is still awaited and recorded; its booking waits for a person.
import type { Job } from 'bullmq';
import { lockInvoices } from '../../db/queries/invoice-flow.ts';
import type { InvoiceRow } from '../../db/queries/invoices.ts';
import { bookInvoices } from '../../operations/invoice-booking.ts';
import { isPermanentError, recordProcessingError } from '../../db/queries/processing-error.ts';
import type { ChunkJobData } from './queues.ts';
import type { JobContext } from '../context.ts';
import { memberError, writeIsolating } from './isolate.ts';

/**
 * Only documents Hacienda received are booked: one refused at reception, or that never left (its
 * processing error waits for a person), has nothing to book; one whose booking failed for good
 * waits for a person too.
 */
const isDue = (i: InvoiceRow) =>
  !i.accountedAt &&
  (i.status === 'enviada' || i.status === 'aceptada') &&
  !isPermanentError(i.processingError);

export async function accountChunk(job: Job<ChunkJobData>, ctx: JobContext): Promise<string> {
  let due = 0;
  let booked = 0;
  const failures = await writeIsolating(job.data.invoiceIds, async (ids) => {
    const done = await ctx.db.transaction(async (trx) => {
      // 1. Lock the invoices so a concurrent run waits and then sees accounted_at.
      const invoices = (await lockInvoices(trx, [...ids])).filter(isDue);
      // 2. Book them.
      return { due: invoices.length, booked: invoices.length ? await bookInvoices(trx, invoices) : 0 };
    });
    due += done.due;
    booked += done.booked;
  });
  // 3. Each invoice that could not be booked on its own: its permanent processing error and event.
  for (const f of failures)
    await recordProcessingError(ctx.db, f.member, 'accounting', memberError(f.err), true, 'booking_failed');
  if (!due && !failures.length) return 'already booked';
  const failed = failures.length ? `, ${failures.length} failed for good` : '';
  return `booked ${booked} of ${due + failures.length}${failed}`;
}
