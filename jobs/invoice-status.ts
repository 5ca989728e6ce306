// invoice.status: asks Hacienda for the verdict on the clave until it is final, waiting longer
// between polls (the job moves itself to delayed; Hacienda's callback promotes it at once).
// Acceptance and rejection are business outcomes: recorded with their events, never thrown.
// A rejection writes the reversing entry and lowers the client's balance in the same transaction.
// A clave Hacienda answers 404 for after receiving it is sent again, and past a bound reported
// as a processing error (jobs/lost-document.ts).
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { explainMensajeHacienda } from '../hacienda/rejection-reasons.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import { clearHaciendaMissing } from '../db/queries/submissions.ts';
import type { InvoiceJobData } from './catalogue.ts';
import type { JobContext } from './context.ts';
import { reverseInvoice, transition } from './invoice-state.ts';
import { handleMissingClave } from './lost-document.ts';
import { scheduleAcceptanceEmail } from './invoice-email.ts';

export function nextPollDelay(polls: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(polls, 20));
}

export async function pollInvoiceStatus(
  job: Job<InvoiceJobData>,
  ctx: JobContext,
  token?: string,
): Promise<string> {
  const { db } = ctx;
  // 1. State check.
  const invoice = (await db('invoices').where({ id: job.data.invoiceId }).first()) as InvoiceRow | undefined;
  if (!invoice) throw new UnrecoverableError(`invoice ${job.data.invoiceId} does not exist`);
  if (invoice.status === 'aceptada' || invoice.status === 'rechazada') return `already ${invoice.status}`;
  if (invoice.status !== 'enviada')
    throw new Error(`invoice ${invoice.id} is ${invoice.status}, not enviada yet`);

  // 2. Ask Hacienda.
  const client = await ctx.hacienda.reception(invoice.companyId, invoice.livemode);
  const s = await client.status(invoice.clave!);
  if (s.found && invoice.haciendaMissingSince) await clearHaciendaMissing(db, invoice.id);
  if (!s.found || !s.terminal) {
    // After a re-send the count starts again, so the next look comes soon.
    const resent = !s.found && (await handleMissingClave(ctx, client, invoice)) === 'resent';
    const polls = resent ? 1 : (job.data.polls ?? 0) + 1;
    if (s.found && s.state !== invoice.haciendaStatus) {
      await db('invoices').where({ id: invoice.id, status: 'enviada' }).update({ haciendaStatus: s.state });
    }
    await job.updateData({ ...job.data, polls });
    await job.moveToDelayed(
      Date.now() + nextPollDelay(polls - 1, ctx.statusPoll.baseMs, ctx.statusPoll.maxMs),
      token,
    );
    throw new DelayedError();
  }

  // 3. Record the verdict.
  const responseXml = s.responseXml ?? null;
  await db.transaction(async (trx) => {
    if (responseXml) {
      await trx('invoice_documents')
        .where({ invoiceId: invoice.id })
        .update({ responseXml, responseAt: trx.fn.now(), updatedAt: trx.fn.now() });
    }
    if (s.state === 'aceptado') {
      const accepted = await transition(
        trx,
        invoice.id,
        ['enviada'],
        'aceptada',
        { acceptedAt: trx.fn.now(), haciendaStatus: 'aceptado' },
        'invoice.accepted',
      );
      // The receptor's email, recorded with the acceptance and sent by its own job: whatever
      // becomes of it, the acceptance and its journal stand.
      if (accepted) await scheduleAcceptanceEmail(trx, accepted);
      return;
    }
    const reason = responseXml
      ? explainMensajeHacienda(responseXml)
      : {
          summary: {
            es: 'Hacienda no pudo procesar el comprobante (estado "error", sin respuesta).',
            en: 'Hacienda could not process the document (state "error", no answer).',
          },
          items: [],
          raw: null,
        };
    const row = await transition(
      trx,
      invoice.id,
      ['enviada'],
      'rechazada',
      {
        rejectedAt: trx.fn.now(),
        haciendaStatus: s.state,
        rejectionReason: JSON.stringify(reason),
        balanceDue: 0,
      },
      'invoice.rejected',
    );
    if (row) await reverseInvoice(trx, row);
  });
  return s.state;
}
