// Sending an invoice's signed document to Hacienda, with its bookkeeping. Used by invoice.submit
// (the first sending and its retries) and by invoice.status (sending again after Hacienda lost
// the document). The same clave and the same signed bytes every time: a repeat is answered "ya
// fue recibido", which counts as received, whereas a new clave could be accepted twice.
//   1. The attempt is recorded and committed before anything is asked or sent, with a lease on the invoice
//      (SUBMISSION_LEASE_MS, renewed every third of it while the call lasts). An unfinished
//      attempt with a live lease means another sender is waiting for Hacienda right now (a flow
//      re-created after Redis lost its data, say): nothing is sent and SubmissionInFlightError
//      says how long to wait; its caller tries again after that.
//   2. When asked to and an earlier attempt exists (its outcome may be unknown, or its worker
//      died mid-POST), the clave's status comes first; found means received, nothing is sent.
//      Asked under the lease, so no other sender's POST can be in flight meanwhile.
//   3. The POST (with submitAndConfirm's own poll-before-resend after a 5xx or timeout).
//   4. The attempt is finished with what came of it; errors are rethrown for the caller to end.
import type { Knex } from 'knex';
import { formatCrDateTime } from '../../domain/cr-time.ts';
import { submissionIdentifications } from '../../db/queries/invoice-flow.ts';
import type { InvoiceRow } from '../../db/queries/invoices.ts';
import {
  beginSubmissions,
  finishSubmissions,
  renewSubmissionLeases,
  type SubmissionEnd,
  type SubmissionReason,
} from '../../db/queries/submissions.ts';
import {
  HaciendaAuthError,
  HaciendaRejectedError,
  HaciendaUnknownOutcomeError,
  submitAndConfirm,
  type Confirmed,
  type ReceptionClient,
  type SubmitDocument,
} from '../../hacienda/client/index.ts';
import { callbackQuery, type CallbackTarget } from './callback-token.ts';
import type { JobContext } from '../context.ts';

/**
 * How long an attempt's lease runs without renewal. A dead sender holds the invoice this long at
 * most; a live one renews it every third of it, so a slow database only has to answer within that.
 */
export const SUBMISSION_LEASE_MS = 15_000;

/** Another sender's attempt on this invoice is in flight; try again after `retryAfterMs`. */
export class SubmissionInFlightError extends Error {
  constructor(
    readonly invoiceId: number,
    readonly retryAfterMs: number,
  ) {
    super(`invoice ${invoiceId}: another submission is in flight (lease runs ${retryAfterMs} ms more)`);
    this.name = 'SubmissionInFlightError';
  }
}

/** What sending a document needs of its invoice (its bytes come apart). */
export type SendableInvoice = Pick<InvoiceRow, 'id' | 'clave' | 'issuedAt' | 'supplier'>;

export interface SendOptions {
  reason: SubmissionReason;
  /**
   * `if-attempted`: ask Hacienda for the clave before sending when an earlier attempt exists (it
   * may have reached Hacienda); `never`: the caller has just seen Hacienda answer 404 for it.
   */
  askFirst: 'if-attempted' | 'never';
}

/**
 * The reception request of an issued, signed invoice: its identifications those of the signed XML
 * (the parties kept with it), or of the company's and the client's rows for a document signed
 * before they were kept (db/queries/invoice-flow.ts, one query).
 */
export async function buildSubmission(
  db: Knex,
  ctx: Pick<JobContext, 'config'>,
  invoice: SendableInvoice,
  signedXml: Buffer,
): Promise<SubmitDocument> {
  const { emisor, receptor } = await submissionIdentifications(db, invoice);
  return submissionOf(ctx.config, invoice, emisor, receptor, signedXml);
}

type Identification = { idType: string; idNumber: string };

/**
 * The reception request of an issued, signed invoice, from what the caller loaded; `wake`: the
 * status job Hacienda's callback should wake (named in the callback URL).
 */
export function submissionOf(
  config: Pick<JobContext['config'], 'publicUrl' | 'secretsKey'>,
  invoice: Pick<InvoiceRow, 'clave' | 'issuedAt'>,
  emisor: Identification,
  receptor: Identification | null,
  signedXml: Buffer,
  wake?: CallbackTarget,
): SubmitDocument {
  const clave = invoice.clave!;
  return {
    clave,
    fecha: formatCrDateTime(new Date(invoice.issuedAt!)),
    emisor: { tipoIdentificacion: emisor.idType, numeroIdentificacion: emisor.idNumber },
    ...(receptor
      ? { receptor: { tipoIdentificacion: receptor.idType, numeroIdentificacion: receptor.idNumber } }
      : {}),
    callbackUrl: `${config.publicUrl}/hacienda/callback?${callbackQuery(config.secretsKey, clave, wake)}`,
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
  invoice: SendableInvoice,
  signedXml: Buffer,
  options: SendOptions,
): Promise<Confirmed['via']> {
  const { db } = ctx;
  const start = { invoiceId: invoice.id, clave: invoice.clave!, reason: options.reason };
  // 1. Recorded before anything leaves, unless another sender holds the invoice.
  const begun = (await beginSubmissions(db, [start], SUBMISSION_LEASE_MS)).get(invoice.id)!;
  if ('busyMs' in begun) throw new SubmissionInFlightError(invoice.id, begun.busyMs);
  const attemptId = begun.id;
  const renewal = setInterval(() => {
    renewSubmissionLeases(db, [attemptId], SUBMISSION_LEASE_MS).catch(() => {
      // A missed renewal shortens the lease; the next one (or the answer) settles it.
    });
  }, SUBMISSION_LEASE_MS / 3);
  renewal.unref();
  let confirmed: Confirmed;
  try {
    // 2. Look before sending again.
    if (
      options.askFirst === 'if-attempted' &&
      begun.attemptedBefore &&
      (await client.status(start.clave)).found
    ) {
      await finishSubmissions(db, [
        { id: attemptId, outcome: 'received', httpStatus: 200, detail: 'status' },
      ]);
      return 'status';
    }
    // 3–4. Send and write down what came of it.
    confirmed = await submitAndConfirm(client, await buildSubmission(db, ctx, invoice, signedXml));
  } catch (err) {
    await finishSubmissions(db, [{ id: attemptId, ...submissionFailure(err) }]);
    throw err;
  } finally {
    clearInterval(renewal);
  }
  await finishSubmissions(db, [
    {
      id: attemptId,
      outcome: confirmed.via === 'duplicate' ? 'duplicate' : 'received',
      httpStatus: confirmed.via === 'duplicate' ? 400 : confirmed.via === 'post' ? 202 : 200,
      detail: `${confirmed.via}; ${confirmed.attempts} POST${confirmed.attempts === 1 ? '' : 's'}`,
    },
  ]);
  return confirmed.via;
}
