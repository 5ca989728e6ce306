// Job `received_document.answer` (queue `received-answers`): the MensajeReceptor of one received
// document, from the answer recorded by the API to Hacienda's verdict. Payload: ids only —
// { v: 1, receivedId, polls? }; job id `rcv-answer-<id>`, so the relay and the reconciler adding it
// twice start it once. Each run does what is left, in order:
//   1. Sign (when not signed yet): in one transaction, the row locked, the next number of the
//      result's series (05/06/07) is reserved, the message built, checked against the XSD and
//      signed, then stored; anything failing rolls the number back (no gap). A message that can
//      never be signed (no certificate, an expired one, a schema violation) is recorded as
//      `failed` with its code, and the job ends with UnrecoverableError.
//   2. Send (while `pendiente`): POST /recepcion with the supplier's clave, the supplier as emisor,
//      the company as receptor and consecutivoReceptor; a retried run asks Hacienda for
//      `clave-consecutivoReceptor` first (submitAndConfirm's unknown-outcome rule). Refused at
//      reception (a 4xx): recorded as `rechazada` with Hacienda's cause, with its event.
//   3. Poll GET /recepcion/{clave}-{consecutivoReceptor} until final, the job moving itself to
//      delayed between polls (doubling, as invoice.status); the verdict and
//      `received_document.answered` in one transaction. Transient failures throw and are retried.
import { DelayedError, UnrecoverableError, type Job, type JobsOptions } from 'bullmq';
import { receivedDocumentObject } from '../../db/received-document-object.ts';
import { companyIdentification, companyNumbering } from '../../db/queries/companies.ts';
import { reserveNumber } from '../../db/queries/invoices.ts';
import {
  getAnswerWork,
  lockAnswerWork,
  markAnswerSent,
  noteAnswerHaciendaStatus,
  recordAnswerFailure,
  recordAnswerVerdict,
  storeSignedAnswer,
  type ReceivedDocumentRow,
} from '../../db/queries/received-documents.ts';
import { buildConsecutivo } from '../../domain/clave.ts';
import { formatCrDateTime } from '../../domain/cr-time.ts';
import { ANSWER_CODES } from '../../domain/received-answer.ts';
import {
  HaciendaRejectedError,
  submitAndConfirm,
  type ReceptionClient,
  type SubmitDocument,
} from '../../hacienda/client/index.ts';
import { receptionKey } from '../../hacienda/client/submit-and-confirm.ts';
import { observationsOf } from '../../hacienda/observations.ts';
import { explainErrorCause, explainMensajeHacienda } from '../../hacienda/rejection-reasons.ts';
import { assertCertificateCurrent, SigningKeyError } from '../../hacienda/signing-key.ts';
import { assertValidBeforeSigning, SchemaViolationError } from '../../hacienda/xsd-compiled.ts';
import { buildMensajeReceptorXml } from '../../hacienda/xml/mensaje-receptor.ts';
import { XmlCharacterError } from '../../hacienda/xml/writer.ts';
import { DEFAULT_JOB_OPTIONS, nextPollDelay } from '../job-options.ts';
import { MissingCredentialsError, type JobContext } from '../context.ts';

export const ANSWER_QUEUE = 'received-answers';
export const ANSWER_JOB = 'received_document.answer';

export interface AnswerJobData {
  v: 1;
  receivedId: number;
  /** Status polls made so far. */
  polls?: number;
}

export const answerJobId = (receivedId: number): string => `rcv-answer-${receivedId}`;

export function answerJob(receivedId: number): { name: string; data: AnswerJobData; opts: JobsOptions } {
  return {
    name: ANSWER_JOB,
    data: { v: 1, receivedId },
    opts: { ...DEFAULT_JOB_OPTIONS, jobId: answerJobId(receivedId) },
  };
}

/** Why a message can never be signed as it stands (recorded on the document, not retried). */
function permanentCode(err: unknown): string | null {
  if (err instanceof SchemaViolationError || err instanceof XmlCharacterError) return 'schema_invalid';
  if (err instanceof SigningKeyError) return err.code;
  if (err instanceof MissingCredentialsError) return 'credentials_missing';
  return null;
}

export async function answerReceivedDocument(
  job: Job<AnswerJobData>,
  ctx: JobContext,
  token?: string,
): Promise<string> {
  const id = job.data.receivedId;
  let row = await getAnswerWork(ctx.db, id);
  if (!row || row.answerStatus === null) throw new UnrecoverableError(`received document ${id}: no answer`);
  if (row.answerStatus === 'aceptada' || row.answerStatus === 'rechazada' || row.answerStatus === 'failed')
    return `already ${row.answerStatus}`;

  // 1. Sign.
  if (!row.answerSignedXml) {
    try {
      await signAnswer(ctx, row);
    } catch (err) {
      const code = permanentCode(err);
      if (code === null) throw err;
      const message = err instanceof Error ? err.message : String(err);
      await recordAnswerFailure(ctx.db, id, { code, message });
      throw new UnrecoverableError(message);
    }
    row = (await getAnswerWork(ctx.db, id))!;
  }

  // 2. Send.
  let client: ReceptionClient;
  try {
    client = await ctx.hacienda.reception(row.companyId, row.livemode);
  } catch (err) {
    if (!(err instanceof MissingCredentialsError)) throw err;
    await recordAnswerFailure(ctx.db, id, { code: 'credentials_missing', message: err.message });
    throw new UnrecoverableError(err.message);
  }
  const doc = await submission(ctx, row);
  if (row.answerStatus === 'pendiente' && !(await sendAnswer(ctx, row, client, doc, job.attemptsMade > 0)))
    return 'refused at reception';

  // 3. Hacienda's verdict.
  const s = await ctx.haciendaCalls.run(() => client.status(receptionKey(doc)), row.companyId);
  if (!s.found || !s.terminal) {
    if (s.found && s.state !== row.answerHaciendaStatus) await noteAnswerHaciendaStatus(ctx.db, id, s.state);
    const polls = (job.data.polls ?? 0) + 1;
    await job.updateData({ ...job.data, polls });
    await job.moveToDelayed(
      Date.now() + nextPollDelay(polls - 1, ctx.statusPoll.baseMs, ctx.statusPoll.maxMs),
      token,
    );
    throw new DelayedError();
  }
  const accepted = s.state === 'aceptado';
  const responseXml = s.responseXml ?? null;
  await recordAnswerVerdict(
    ctx.db,
    id,
    ['pendiente', 'enviada'],
    {
      status: accepted ? 'aceptada' : 'rechazada',
      haciendaStatus: s.state,
      responseXml: responseXml === null ? null : Buffer.from(responseXml, 'utf8'),
      rejectionReason: accepted || responseXml === null ? null : explainMensajeHacienda(responseXml),
      warnings: accepted && responseXml !== null ? observationsOf(responseXml) : [],
    },
    receivedDocumentObject,
  );
  return s.state;
}

/**
 * Step 2: the POST (a retried run asks Hacienda first), then `pendiente → enviada`. Refused at
 * reception: Hacienda's word on this message, recorded as its verdict (false).
 */
async function sendAnswer(
  ctx: JobContext,
  row: ReceivedDocumentRow,
  client: ReceptionClient,
  doc: SubmitDocument,
  retried: boolean,
): Promise<boolean> {
  try {
    await ctx.haciendaCalls.run(() => submitAndConfirm(client, doc, { pollFirst: retried }), row.companyId);
  } catch (err) {
    if (!(err instanceof HaciendaRejectedError)) throw err;
    const reason = explainErrorCause(err.errorCause, err.status);
    await recordAnswerVerdict(
      ctx.db,
      row.id,
      ['pendiente'],
      { status: 'rechazada', haciendaStatus: 'rechazado', responseXml: null, rejectionReason: reason },
      receivedDocumentObject,
    );
    return false;
  }
  await markAnswerSent(ctx.db, row.id);
  return true;
}

/** Step 1: number, build, check, sign and store in one transaction (the number back on failure). */
async function signAnswer(ctx: JobContext, row: ReceivedDocumentRow): Promise<void> {
  const signer = await ctx.hacienda.signer(row.companyId, row.livemode);
  const now = ctx.now();
  assertCertificateCurrent(signer.certificate, now);
  await ctx.db.transaction(async (trx) => {
    const locked = await lockAnswerWork(trx, row.id);
    if (!locked || locked.answerStatus !== 'pendiente' || locked.answerSignedXml) return;
    const company = await companyNumbering(trx, row.companyId);
    const { mensaje, docType } = ANSWER_CODES[locked.answerResult!];
    const number = await reserveNumber(trx, {
      companyId: row.companyId,
      livemode: row.livemode,
      docType,
      branch: company.defaultBranch,
      terminal: company.defaultTerminal,
    });
    const consecutivo = buildConsecutivo({
      branch: company.defaultBranch,
      terminal: company.defaultTerminal,
      docType,
      number,
    });
    const xml = buildMensajeReceptorXml({
      clave: locked.clave,
      emisorIdNumber: locked.emisorIdNumber,
      issuedAt: now,
      mensaje,
      detalle: locked.answerReason,
      totalTax: Number(locked.totalTax) > 0 ? locked.totalTax : null,
      activityCode: locked.answerActivityCode,
      taxCondition: locked.answerTaxCondition,
      ivaCredit: locked.answerIvaCredit,
      expense: locked.answerExpense,
      total: locked.total,
      receptorIdNumber: company.idNumber,
      consecutivo,
    });
    await assertValidBeforeSigning('MensajeReceptor', xml, ctx.config.xsdDir);
    const signed = await signer.sign(xml, { signingTime: now });
    await storeSignedAnswer(trx, row.id, consecutivo, Buffer.from(signed, 'utf8'));
  });
}

/** The reception request of a signed answer: the supplier's clave, us as receptor. */
async function submission(ctx: JobContext, row: ReceivedDocumentRow): Promise<SubmitDocument> {
  const company = await companyIdentification(ctx.db, row.companyId);
  return {
    clave: row.clave,
    fecha: formatCrDateTime(new Date(row.answerSignedAt!)),
    emisor: { tipoIdentificacion: row.emisorIdType, numeroIdentificacion: row.emisorIdNumber },
    receptor: { tipoIdentificacion: company.idType, numeroIdentificacion: company.idNumber },
    consecutivoReceptor: row.answerConsecutivo!,
    comprobanteXml: row.answerSignedXml!.toString('base64'),
  };
}
