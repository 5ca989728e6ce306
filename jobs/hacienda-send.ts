// Sending an invoice's signed document to Hacienda, with its bookkeeping. Used by invoice.submit
// (the first sending and its retries) and by invoice.status (sending again after Hacienda lost
// the document). The same clave and the same signed bytes every time: a repeat is answered "ya
// fue recibido", which counts as received, whereas a new clave could be accepted twice.
//   1. When asked to (an earlier attempt exists: its outcome may be unknown, or its worker died
//      mid-POST), the clave's status comes first; found means received, nothing is sent.
//   2. The attempt is recorded and committed before the POST leaves.
//   3. The POST (with submitAndConfirm's own poll-before-resend after a 5xx or timeout).
//   4. The attempt is finished with what came of it; errors are rethrown for the caller to end.
import type { Knex } from 'knex';
import { formatCrDateTime } from '../domain/cr-time.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import {
  beginSubmissions,
  finishSubmission,
  recordSettledSubmission,
  type SubmissionEnd,
  type SubmissionReason,
} from '../db/queries/submissions.ts';
import {
  HaciendaAuthError,
  HaciendaRejectedError,
  HaciendaUnknownOutcomeError,
  submitAndConfirm,
  type Confirmed,
  type ReceptionClient,
  type SubmitDocument,
} from '../hacienda/client/index.ts';
import { callbackToken } from './callback-token.ts';
import type { JobContext } from './context.ts';

export interface SendOptions {
  reason: SubmissionReason;
  /** Ask Hacienda for the clave before sending (an earlier attempt may have reached it). */
  askFirst: boolean;
}

/** The reception request of an issued, signed invoice. */
export async function buildSubmission(
  db: Knex,
  ctx: Pick<JobContext, 'config'>,
  invoice: InvoiceRow,
  signedXml: Buffer,
): Promise<SubmitDocument> {
  const company = await db('companies').where({ id: invoice.companyId }).first('id_type', 'id_number');
  const receptor = await db('clients').where({ id: invoice.clientId }).first('id_type', 'id_number');
  const clave = invoice.clave!;
  return {
    clave,
    fecha: formatCrDateTime(new Date(invoice.issuedAt!)),
    emisor: { tipoIdentificacion: company.idType, numeroIdentificacion: company.idNumber },
    receptor: { tipoIdentificacion: receptor.idType, numeroIdentificacion: receptor.idNumber },
    callbackUrl: `${ctx.config.publicUrl}/hacienda/callback?t=${callbackToken(ctx.config.secretsKey, clave)}`,
    comprobanteXml: signedXml.toString('base64'),
  };
}

/** How an attempt that threw is written down. */
export function submissionFailure(err: unknown): SubmissionEnd {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof HaciendaRejectedError)
    return { outcome: 'refused', httpStatus: err.status, detail: message };
  if (err instanceof HaciendaAuthError)
    return { outcome: 'auth_failed', httpStatus: err.status, detail: message };
  if (err instanceof HaciendaUnknownOutcomeError)
    return { outcome: 'unknown', httpStatus: err.status, detail: message };
  return { outcome: 'unavailable', httpStatus: null, detail: message };
}

/** Sends (or finds) the invoice's document at Hacienda; how receipt was established. */
export async function sendInvoiceDocument(
  ctx: Pick<JobContext, 'db' | 'config'>,
  client: ReceptionClient,
  invoice: InvoiceRow,
  signedXml: Buffer,
  options: SendOptions,
): Promise<Confirmed['via']> {
  const { db } = ctx;
  const start = { invoiceId: invoice.id, clave: invoice.clave!, reason: options.reason };
  // 1. Look before sending again.
  if (options.askFirst && (await client.status(start.clave)).found) {
    await recordSettledSubmission(db, start, { outcome: 'received', httpStatus: 200, detail: 'status' });
    return 'status';
  }
  // 2. Recorded before anything leaves.
  const submission = await buildSubmission(db, ctx, invoice, signedXml);
  const [attemptId] = await beginSubmissions(db, [start]);
  // 3–4. Send and write down what came of it.
  let confirmed: Confirmed;
  try {
    confirmed = await submitAndConfirm(client, submission);
  } catch (err) {
    await finishSubmission(db, attemptId!, submissionFailure(err));
    throw err;
  }
  await finishSubmission(db, attemptId!, {
    outcome: confirmed.via === 'duplicate' ? 'duplicate' : 'received',
    httpStatus: confirmed.via === 'duplicate' ? 400 : confirmed.via === 'post' ? 202 : 200,
    detail: `${confirmed.via}; ${confirmed.attempts} POST${confirmed.attempts === 1 ? '' : 's'}`,
  });
  return confirmed.via;
}
