// invoice.submit: sends the signed bytes to Hacienda's reception API and records `enviada`.
// A repeat of the clave is "received", never a failure. Every attempt is recorded before its
// POST leaves (jobs/hacienda-send.ts), so after an unknown outcome — a 5xx, a timeout, or this
// job's worker killed mid-POST — the next attempt asks Hacienda for the clave before sending.
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { getInvoiceDocument, type InvoiceRow } from '../db/queries/invoices.ts';
import { HaciendaAuthError, HaciendaRejectedError } from '../hacienda/client/index.ts';
import type { InvoiceJobData } from './catalogue.ts';
import { MissingCredentialsError, type JobContext } from './context.ts';
import { sendInvoiceDocument, SubmissionInFlightError } from './hacienda-send.ts';
import { recordProcessingError } from './processing-error.ts';
import { reverseInvoice, transition } from './invoice-state.ts';

export async function submitInvoice(
  job: Job<InvoiceJobData>,
  ctx: JobContext,
  token?: string,
): Promise<string> {
  const { db } = ctx;
  // 1. State check.
  const invoice = (await db('invoices').where({ id: job.data.invoiceId }).first()) as InvoiceRow | undefined;
  if (!invoice) throw new UnrecoverableError(`invoice ${job.data.invoiceId} does not exist`);
  if (invoice.status !== 'pendiente') return `already ${invoice.status}`;
  const doc = await getInvoiceDocument(db, invoice.id);
  if (!doc?.signedXml) throw new Error(`invoice ${invoice.id} is not signed yet`);

  let client;
  try {
    client = await ctx.hacienda.reception(invoice.companyId, invoice.livemode);
  } catch (err) {
    if (err instanceof MissingCredentialsError) {
      await recordProcessingError(db, invoice.id, 'submit', err, true);
      throw new UnrecoverableError(err.message);
    }
    throw err;
  }

  // 2. Send, asking first when an earlier attempt (finished or not) may have reached Hacienda.
  let via: string;
  try {
    via = await sendInvoiceDocument(ctx, client, invoice, doc.signedXml, {
      reason: 'submit',
      askFirst: 'if-attempted',
    });
  } catch (err) {
    if (err instanceof SubmissionInFlightError) {
      // Another job's attempt is waiting for Hacienda: look again once its lease has run out.
      await job.moveToDelayed(Date.now() + err.retryAfterMs + 250, token);
      throw new DelayedError();
    }
    if (err instanceof HaciendaRejectedError) {
      // Refused at reception (HTTP 400, not a repeat): the document will never be processed.
      await db.transaction(async (trx) => {
        const row = await transition(
          trx,
          invoice.id,
          ['pendiente'],
          'rechazada',
          {
            rejectedAt: trx.fn.now(),
            hacienda_status: 'rechazado',
            balanceDue: 0,
            rejectionReason: JSON.stringify({
              summary: {
                es: `Hacienda no recibió el comprobante: ${err.message}`,
                en: `Hacienda refused to receive the document: ${err.message}`,
              },
              items: [],
              raw: err.message,
            }),
          },
          'invoice.rejected',
          job.data.requestId ?? null,
        );
        if (row) await reverseInvoice(trx, row);
      });
      throw new UnrecoverableError(`refused at reception: ${err.message}`);
    }
    if (err instanceof HaciendaAuthError) await recordProcessingError(db, invoice.id, 'submit', err, false);
    throw err;
  }

  // 3. Received: record `enviada` with its event.
  await db.transaction(async (trx) => {
    await transition(
      trx,
      invoice.id,
      ['pendiente'],
      'enviada',
      { submittedAt: trx.fn.now(), haciendaStatus: 'recibido', processingError: null },
      'invoice.sent',
      job.data.requestId ?? null,
    );
  });
  return `received via ${via}`;
}
