// invoice.submit: sends the signed bytes to Hacienda's reception API and records `enviada`.
// A repeat of the clave is "received", never a failure. After an unknown outcome (5xx,
// timeout) the same clave is polled before anything is sent again, here and across retries.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Knex } from 'knex';
import { getInvoiceDocument, type InvoiceRow } from '../db/queries/invoices.ts';
import { formatCrDateTime } from '../domain/cr-time.ts';
import {
  HaciendaAuthError,
  HaciendaRejectedError,
  HaciendaUnknownOutcomeError,
  submitAndConfirm,
  type SubmitDocument,
} from '../hacienda/client/index.ts';
import type { InvoiceJobData } from './catalogue.ts';
import { MissingCredentialsError, type JobContext } from './context.ts';
import { recordProcessingError } from './processing-error.ts';
import { callbackToken } from './callback-token.ts';
import { reverseInvoice, transition } from './invoice-state.ts';

async function logSubmission(
  db: Knex,
  invoice: InvoiceRow,
  outcome: string,
  status: number | null,
  detail: string | null,
) {
  await db('hacienda_submissions').insert({
    invoiceId: invoice.id,
    clave: invoice.clave,
    outcome,
    httpStatus: status,
    detail,
  });
}

export async function submitInvoice(job: Job<InvoiceJobData>, ctx: JobContext): Promise<string> {
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

  // 2. An earlier attempt whose outcome is unknown: ask before sending again.
  const earlier = await db('hacienda_submissions').where({ invoiceId: invoice.id }).first('id');
  let via: string | null = null;
  if (earlier) {
    const s = await client.status(invoice.clave!);
    if (s.found) via = 'status';
  }

  // 3. Send (the same clave and bytes every time).
  if (!via) {
    const company = await db('companies').where({ id: invoice.companyId }).first('id_type', 'id_number');
    const receptor = await db('clients').where({ id: invoice.clientId }).first('id_type', 'id_number');
    const submission: SubmitDocument = {
      clave: invoice.clave!,
      fecha: formatCrDateTime(new Date(invoice.issuedAt!)),
      emisor: { tipoIdentificacion: company.idType, numeroIdentificacion: company.idNumber },
      receptor: { tipoIdentificacion: receptor.idType, numeroIdentificacion: receptor.idNumber },
      callbackUrl: `${ctx.config.publicUrl}/hacienda/callback?t=${callbackToken(ctx.config.secretsKey, invoice.clave!)}`,
      comprobanteXml: doc.signedXml.toString('base64'),
    };
    try {
      const confirmed = await submitAndConfirm(client, submission);
      via = confirmed.via;
    } catch (err) {
      if (err instanceof HaciendaRejectedError) {
        // Refused at reception (HTTP 400, not a repeat): the document will never be processed.
        await logSubmission(db, invoice, 'refused', 400, err.message);
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
      if (err instanceof HaciendaAuthError) {
        await logSubmission(db, invoice, 'auth_failed', 401, err.message);
        await recordProcessingError(db, invoice.id, 'submit', err, false);
        throw err;
      }
      const unknown = err instanceof HaciendaUnknownOutcomeError;
      await logSubmission(db, invoice, unknown ? 'unknown' : 'unavailable', null, (err as Error).message);
      throw err;
    }
  }

  // 4. Received: record `enviada` with its event.
  await logSubmission(db, invoice, via === 'duplicate' ? 'duplicate' : 'received', 202, via);
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
