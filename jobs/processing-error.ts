// Failures that stop an invoice's flow are written on the invoice (`processing_error`) so that
// integrators and operators see why it is stuck, not only in the queue.
import type { Knex } from 'knex';

export async function recordProcessingError(
  db: Knex,
  invoiceId: number,
  step: string,
  err: unknown,
  permanent: boolean,
): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  await db('invoices')
    .where({ id: invoiceId })
    .update({
      processingError: JSON.stringify({ step, message, permanent, at: new Date().toISOString() }),
      updatedAt: db.fn.now(),
    });
}
