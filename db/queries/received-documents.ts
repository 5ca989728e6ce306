// Documents received from suppliers and the MensajeReceptor that answers each (table
// received_documents, migration 20261127030000). A document is stored once per company, mode and
// clave; its answer is requested once (a guarded update from no answer), then signed, sent and
// judged by the received_document.answer job, each step a guarded update from the state before it.
import type { Knex } from 'knex';
import { enqueueOutbox, recordEvents } from './events.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import type { HaciendaWarning } from './invoices.ts';

export type AnswerStatus = 'pendiente' | 'enviada' | 'aceptada' | 'rechazada' | 'failed';

export interface ReceivedDocumentRow {
  id: number;
  companyId: number;
  livemode: boolean;
  clave: string;
  docType: string;
  consecutivo: string;
  issuedAt: Date;
  emisorIdType: string;
  emisorIdNumber: string;
  emisorName: string;
  receptorIdType: string;
  receptorIdNumber: string;
  currency: string;
  totalTax: string;
  total: string;
  signedXml: Buffer;
  requestId: string | null;
  answerResult: 'accepted' | 'partially_accepted' | 'rejected' | null;
  answerStatus: AnswerStatus | null;
  answerReason: string | null;
  answerTaxCondition: string | null;
  answerIvaCredit: string | null;
  answerExpense: string | null;
  answerActivityCode: string | null;
  answerConsecutivo: string | null;
  answerSignedXml: Buffer | null;
  answerResponseXml: Buffer | null;
  answerHaciendaStatus: string | null;
  answerRejectionReason: unknown;
  /** Hacienda's observations on the accepted answer (`[]`: none). */
  answerWarnings: HaciendaWarning[];
  answerError: { code: string; message: string } | null;
  answerRequestedAt: Date | null;
  answerSignedAt: Date | null;
  answerSubmittedAt: Date | null;
  answeredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a list and a read show: every column but the XML bytes. */
const PUBLIC_COLUMNS = [
  'id',
  'companyId',
  'livemode',
  'clave',
  'docType',
  'consecutivo',
  'issuedAt',
  'emisorIdType',
  'emisorIdNumber',
  'emisorName',
  'receptorIdType',
  'receptorIdNumber',
  'currency',
  'totalTax',
  'total',
  'answerResult',
  'answerStatus',
  'answerReason',
  'answerTaxCondition',
  'answerIvaCredit',
  'answerExpense',
  'answerActivityCode',
  'answerConsecutivo',
  'answerHaciendaStatus',
  'answerRejectionReason',
  'answerWarnings',
  'answerError',
  'answerRequestedAt',
  'answerSignedAt',
  'answerSubmittedAt',
  'answeredAt',
  'createdAt',
  'updatedAt',
];

export type PublicReceivedDocumentRow = Omit<
  ReceivedDocumentRow,
  'signedXml' | 'answerSignedXml' | 'answerResponseXml' | 'requestId'
>;

export interface ReceivedInput {
  clave: string;
  docType: string;
  consecutivo: string;
  issuedAt: Date;
  emisor: { idType: string; idNumber: string; name: string };
  receptor: { idType: string; idNumber: string };
  currency: string;
  totalTax: string;
  total: string;
  signedXml: Buffer;
}

/**
 * Stores a received document with its `received_document.created` event, or finds the one
 * already stored under its clave (`created: false`; nothing is written then).
 */
export async function storeReceivedDocument(
  db: Knex,
  tenant: Tenant,
  input: ReceivedInput,
  render: (row: PublicReceivedDocumentRow) => Record<string, unknown>,
  requestId: string | null,
): Promise<{ created: boolean; row: PublicReceivedDocumentRow; sameBytes: boolean }> {
  const t = tenantOnly(tenant);
  return db.transaction(async (trx) => {
    const inserted = (await trx('received_documents')
      .insert({
        ...t,
        clave: input.clave,
        docType: input.docType,
        consecutivo: input.consecutivo,
        issuedAt: input.issuedAt,
        emisorIdType: input.emisor.idType,
        emisorIdNumber: input.emisor.idNumber,
        emisorName: input.emisor.name,
        receptorIdType: input.receptor.idType,
        receptorIdNumber: input.receptor.idNumber,
        currency: input.currency,
        totalTax: input.totalTax,
        total: input.total,
        signedXml: input.signedXml,
        requestId,
      })
      .onConflict(['company_id', 'livemode', 'clave'])
      .ignore()
      .returning(PUBLIC_COLUMNS)) as PublicReceivedDocumentRow[];
    const row = inserted[0];
    if (row) {
      await recordEvents(trx, [
        {
          ...t,
          type: 'received_document.created',
          data: render(row),
          requestId,
        },
      ]);
      return { created: true, row, sameBytes: true };
    }
    const existing = (await trx('received_documents')
      .where({ ...t, clave: input.clave })
      .first([...PUBLIC_COLUMNS, 'signedXml'])) as PublicReceivedDocumentRow & { signedXml: Buffer };
    const { signedXml, ...rest } = existing;
    return { created: false, row: rest, sameBytes: signedXml.equals(input.signedXml) };
  });
}

export async function getReceivedDocument(
  db: Knex,
  tenant: Tenant,
  id: number,
): Promise<PublicReceivedDocumentRow | undefined> {
  return db('received_documents')
    .where({ ...tenantOnly(tenant), id })
    .first(PUBLIC_COLUMNS);
}

export interface ReceivedFilters {
  answerStatus?: string;
  unanswered?: boolean;
  startingAfter?: number;
  limit: number;
}

export async function listReceivedDocuments(
  db: Knex,
  tenant: Tenant,
  f: ReceivedFilters,
): Promise<{ rows: PublicReceivedDocumentRow[]; hasMore: boolean }> {
  const q = db('received_documents')
    .select(PUBLIC_COLUMNS)
    .where(tenantOnly(tenant))
    .orderBy('id', 'desc')
    .limit(f.limit + 1);
  if (f.answerStatus) q.where('answerStatus', f.answerStatus);
  if (f.unanswered) q.whereNull('answerStatus');
  if (f.startingAfter !== undefined) q.where('id', '<', f.startingAfter);
  const rows = (await q) as PublicReceivedDocumentRow[];
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

export interface AnswerRequest {
  result: 'accepted' | 'partially_accepted' | 'rejected';
  reason: string | null;
  taxCondition: string | null;
  ivaCredit: string | null;
  expense: string | null;
  activityCode: string | null;
}

/**
 * Records the answer to send, once: a document already answered (or being answered) is not
 * touched (`null`). The job is enqueued through the outbox in the same transaction.
 */
export async function requestAnswer(
  db: Knex,
  tenant: Tenant,
  id: number,
  a: AnswerRequest,
  requestId: string | null,
): Promise<PublicReceivedDocumentRow | null> {
  return db.transaction(async (trx) => {
    const [row] = (await trx('received_documents')
      .where({ ...tenantOnly(tenant), id })
      .whereNull('answerResult')
      .update({
        answerResult: a.result,
        answerStatus: 'pendiente',
        answerReason: a.reason,
        answerTaxCondition: a.taxCondition,
        answerIvaCredit: a.ivaCredit,
        answerExpense: a.expense,
        answerActivityCode: a.activityCode,
        answerRequestedAt: trx.fn.now(),
        updatedAt: trx.fn.now(),
      })
      .returning(PUBLIC_COLUMNS)) as PublicReceivedDocumentRow[];
    if (!row) return null;
    await enqueueOutbox(trx, 'received.answer', { receivedId: id }, requestId);
    return row;
  });
}

/** What the answer job works from. */
export async function getAnswerWork(db: Knex, id: number): Promise<ReceivedDocumentRow | undefined> {
  return db('received_documents').where({ id }).first();
}

/** The signed MensajeReceptor, stored once (the first writer wins). */
export async function storeSignedAnswer(
  trx: Knex.Transaction,
  id: number,
  consecutivo: string,
  signedXml: Buffer,
): Promise<boolean> {
  const n = await trx('received_documents')
    .where({ id, answerStatus: 'pendiente' })
    .whereNull('answerSignedXml')
    .update({
      answerConsecutivo: consecutivo,
      answerSignedXml: signedXml,
      answerSignedAt: trx.fn.now(),
      answerError: null,
      updatedAt: trx.fn.now(),
    });
  return n === 1;
}

export async function markAnswerSent(db: Knex, id: number): Promise<void> {
  await db('received_documents')
    .where({ id, answerStatus: 'pendiente' })
    .whereNotNull('answerSignedXml')
    .update({ answerStatus: 'enviada', answerSubmittedAt: db.fn.now(), updatedAt: db.fn.now() });
}

export async function noteAnswerHaciendaStatus(db: Knex, id: number, state: string): Promise<void> {
  await db('received_documents')
    .where({ id, answerStatus: 'enviada' })
    .update({ answerHaciendaStatus: state, updatedAt: db.fn.now() });
}

/** An answer that can never be signed or sent as it stands (no certificate, an expired one…). */
export async function recordAnswerFailure(
  db: Knex,
  id: number,
  error: { code: string; message: string },
): Promise<void> {
  await db('received_documents')
    .where({ id, answerStatus: 'pendiente' })
    .update({ answerStatus: 'failed', answerError: JSON.stringify(error), updatedAt: db.fn.now() });
}

/**
 * Hacienda's verdict on the answer, with `received_document.answered`, in one transaction; a
 * verdict already recorded is not recorded again (`null`).
 */
export async function recordAnswerVerdict(
  db: Knex,
  id: number,
  from: readonly AnswerStatus[],
  v: {
    status: 'aceptada' | 'rechazada';
    haciendaStatus: string;
    responseXml: Buffer | null;
    rejectionReason: unknown;
    /** Hacienda's observations on an accepted answer. */
    warnings?: readonly object[];
  },
  render: (row: PublicReceivedDocumentRow) => Record<string, unknown>,
): Promise<PublicReceivedDocumentRow | null> {
  return db.transaction(async (trx) => {
    const [row] = (await trx('received_documents')
      .where({ id })
      .whereIn('answerStatus', from)
      .update({
        answerStatus: v.status,
        answerHaciendaStatus: v.haciendaStatus,
        answerResponseXml: v.responseXml,
        answerRejectionReason: v.rejectionReason === null ? null : JSON.stringify(v.rejectionReason),
        answerWarnings: JSON.stringify(v.warnings ?? []),
        answeredAt: trx.fn.now(),
        updatedAt: trx.fn.now(),
      })
      .returning(PUBLIC_COLUMNS)) as PublicReceivedDocumentRow[];
    if (!row) return null;
    await recordEvents(trx, [
      {
        companyId: row.companyId,
        livemode: row.livemode,
        type: 'received_document.answered',
        data: render(row),
      },
    ]);
    return row;
  });
}

/** Answers requested but not final, untouched for `staleMs` (the reconciler enqueues them again). */
export async function pendingAnswersPage(
  db: Knex,
  afterId: number,
  limit: number,
  staleMs: number | null,
): Promise<{ id: number }[]> {
  const q = db('received_documents')
    .whereIn('answerStatus', ['pendiente', 'enviada'])
    .where('id', '>', afterId);
  if (staleMs !== null)
    q.where('updatedAt', '<', db.raw(`now() - (? * interval '1 millisecond')`, [staleMs]));
  const rows = (await q.orderBy('id').limit(limit).select('id')) as { id: number | string }[];
  return rows.map((r) => ({ id: Number(r.id) }));
}

/** A received document's row, locked for its answer's numbering and signing. */
export async function lockAnswerWork(
  trx: Knex.Transaction,
  id: number,
): Promise<ReceivedDocumentRow | undefined> {
  return (await trx('received_documents').where({ id }).forUpdate().first()) as
    ReceivedDocumentRow | undefined;
}
