// Failures that stop an invoice's flow are written on the invoice (`processing_error`) so that
// integrators and operators see why it is stuck, not only in the queue. A permanent one (the
// flow will not go on by itself: no certificate, a document that cannot be built, a clave that
// Hacienda keeps losing) is also an `invoice.processing_failed` event, written in the same
// transaction, once per failure: a later permanent error on an invoice that already carries one
// changes nothing until an operator clears it.
import type { Knex } from 'knex';
import { invoiceObject } from '../public-objects.ts';
import { recordEvents } from './events.ts';
import type { InvoiceRow } from './invoices.ts';

export const PROCESSING_FAILED_EVENT = 'invoice.processing_failed';

/**
 * SQL: the invoice's flow waits for a person (a permanent processing error). A booking that failed
 * for good (step `accounting`) stops only the booking: the document is with Hacienda, whose
 * verdict is still awaited and recorded.
 */
export const FLOW_STOPPED_SQL = `coalesce((processing_error->>'permanent')::boolean, false)
  and processing_error->>'step' is distinct from 'accounting'`;

/** A recorded processing error that waits for a person (the flow does not go on by itself). */
export function isPermanentError(error: Record<string, unknown> | string | null): boolean {
  if (!error) return false;
  const e = typeof error === 'string' ? (JSON.parse(error) as Record<string, unknown>) : error;
  return e.permanent === true;
}

export async function recordProcessingError(
  db: Knex,
  invoiceId: number,
  step: string,
  err: unknown,
  permanent: boolean,
  code?: string,
): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  const error = JSON.stringify({
    step,
    ...(code ? { code } : {}),
    message,
    permanent,
    at: new Date().toISOString(),
  });
  if (!permanent) {
    await db('invoices').where({ id: invoiceId }).update({ processingError: error, updatedAt: db.fn.now() });
    return;
  }
  await db.transaction(async (trx) => {
    const [row] = (await trx('invoices')
      .where({ id: invoiceId })
      .whereRaw(`not coalesce((processing_error->>'permanent')::boolean, false)`)
      .update({ processingError: error, updatedAt: trx.fn.now() })
      .returning('*')) as InvoiceRow[];
    if (!row) return;
    await recordEvents(trx, [
      {
        companyId: row.companyId,
        livemode: row.livemode,
        type: PROCESSING_FAILED_EVENT,
        data: invoiceObject(row),
      },
    ]);
  });
}
