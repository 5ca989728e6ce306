// A clave that Hacienda received (the invoice is `enviada`) and now answers 404 for: Hacienda
// lost the document. A 404 right after a POST is normal for a moment, so nothing happens at
// first; the invoice's "missing" clock (hacienda_missing_since, in Postgres so it survives job
// retries and re-created flows) runs from the first 404 until a status check finds the clave.
//   - Missing for HACIENDA_MISSING_RESEND_MS: the same signed bytes are sent again (the same
//     clave is the same document; "ya fue recibido" counts as received), and again each time
//     that long has passed since the latest attempt.
//   - Missing for HACIENDA_MISSING_FAIL_MS: a permanent processing error on the invoice and an
//     `invoice.processing_failed` event; the status job ends (failed) and the reconciler leaves
//     the invoice alone until an operator clears the error.
import { UnrecoverableError } from 'bullmq';
import { getInvoiceDocument, type InvoiceRow } from '../../db/queries/invoices.ts';
import { countLostResends, markHaciendaMissing, msSinceLastAttempt } from '../../db/queries/submissions.ts';
import {
  HaciendaAuthError,
  HaciendaRejectedError,
  type ReceptionClient,
} from '../../hacienda/client/index.ts';
import type { JobContext } from '../context.ts';
import { sendInvoiceDocument } from './hacienda-send.ts';
import { recordProcessingError } from '../../db/queries/processing-error.ts';

export const DOCUMENT_LOST = 'hacienda_document_lost';

/** Called on a 404 for an `enviada` invoice: `resent` when the document was just sent again. */
export async function handleMissingClave(
  ctx: JobContext,
  client: ReceptionClient,
  invoice: Pick<InvoiceRow, 'id' | 'clave' | 'issuedAt' | 'supplier'>,
): Promise<'waiting' | 'resent'> {
  const { db } = ctx;
  const { missingResendMs, missingFailMs } = ctx.config.workers;
  // 1. Start (or read) the clock.
  const missingMs = await markHaciendaMissing(db, invoice.id);
  if (missingMs === null) return 'waiting'; // no longer enviada: the next poll sees why

  // 2. Past the last bound: a person has to look.
  if (missingMs >= missingFailMs) {
    const resends = await countLostResends(db, invoice.id);
    const minutes = Math.round(missingMs / 60_000);
    await giveUp(
      ctx,
      invoice,
      `Hacienda received clave ${invoice.clave} and has answered 404 for it for ${minutes} min, ` +
        `after ${resends} re-send${resends === 1 ? '' : 's'} of the same document`,
    );
  }

  // 3. Between the bounds: send the same document again, at most once per resend period.
  if (missingMs < missingResendMs) return 'waiting';
  const sinceLast = await msSinceLastAttempt(db, invoice.id);
  if (sinceLast !== null && sinceLast < missingResendMs) return 'waiting';
  const doc = await getInvoiceDocument(db, invoice.id);
  if (!doc?.signedXml) throw new UnrecoverableError(`invoice ${invoice.id} is enviada without signed bytes`);
  try {
    const via = await sendInvoiceDocument(ctx, client, invoice, doc.signedXml, {
      reason: 'lost',
      askFirst: 'never', // the 404 was just seen
    });
    ctx.log.warn({ invoiceId: invoice.id, missingMs, via }, 'Hacienda lost a received document; sent again');
    return 'resent';
  } catch (err) {
    if (err instanceof HaciendaRejectedError)
      await giveUp(ctx, invoice, `Hacienda lost clave ${invoice.clave} and refused it again: ${err.message}`);
    if (err instanceof HaciendaAuthError) throw err;
    // Another sender is at it, or the outcome is unknown or Hacienda unavailable (recorded): the
    // next poll tells whether it arrived.
    return 'waiting';
  }
}

async function giveUp(ctx: JobContext, invoice: Pick<InvoiceRow, 'id'>, message: string): Promise<never> {
  await recordProcessingError(ctx.db, invoice.id, 'status', new Error(message), true, DOCUMENT_LOST);
  ctx.log.error({ invoiceId: invoice.id }, message);
  throw new UnrecoverableError(message);
}
