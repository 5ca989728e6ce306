// Credit and debit notes of an issued document, recorded in one transaction: the referenced
// document is locked (concurrent notes of one document take turns), the note's lines are built
// from its lines, the note takes the next number of its own series (tipo 03 or 02) and the flow
// carries it like an invoice. A credit note reserves its total on the referenced document
// (`credited_total`, which a check constraint keeps ≤ total) and lowers its balance; when the
// credits reach the total the document is annulled. A credit note Hacienda rejects gives its
// credit back (releaseCredit in db/queries/document-credits.ts, called with the rejection's
// reversal). The SQL is db/queries/document-credits.ts; the rules are domain/document-notes.ts,
// domain/note-credits.ts and domain/note-payments.ts.
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import { computeDocumentTotals, returnedIvaShare, type DocumentTotals } from '../domain/totals.ts';
import { DomainValidationError, type FieldError } from '../domain/errors.ts';
import {
  checkNoteHeader,
  NOTE_DOC_TYPE,
  NOTE_REFERENCE_TYPE,
  noteLines,
  noteOtherCharges,
  type NoteChargeRequest,
  type DocumentReference,
  type NoteKind,
  type NoteLineRequest,
} from '../domain/document-notes.ts';
import { documentBalance } from '../domain/balance.ts';
import {
  capNoteLines,
  creditedLines,
  fullyCredited,
  LineCreditExceeded,
  type LineCredit,
} from '../domain/note-credits.ts';
import type { DocumentLine } from '../domain/document-line.ts';
import { notePayments, settledAtIssue, type NotePaymentFields } from '../domain/note-payments.ts';
import { PAYMENT_METHODS } from '../domain/sale-terms.ts';
import { tenantOnly, type Tenant } from '../db/queries/clients.ts';
import { appliedTo, earlierCredits, insertNote, reserveCredit } from '../db/queries/document-credits.ts';
import { enqueueOutbox, recordEvents } from '../db/queries/events.ts';
import {
  lockIdempotencyKey,
  saveIdempotent,
  type IdempotencyInput,
  type StoredResponse,
} from '../db/queries/idempotency.ts';
import { lockInvoice, type InvoiceRow, type PreparedInvoice } from '../db/queries/invoices.ts';

/** A note the rules refuse; `code` is an error-catalogue code. */
export class NoteRefused extends Error {
  constructor(
    readonly code: 'reference_not_accepted' | 'document_not_creditable' | 'credit_exceeds_total',
    message: string,
    readonly fields: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface NoteBody extends NotePaymentFields {
  reason?: unknown;
  code?: unknown;
  lines?: NoteLineRequest[];
  other_charges?: NoteChargeRequest[];
}

export type NoteOutcome =
  | { kind: 'created'; note: InvoiceRow; referenced: InvoiceRow; response: StoredResponse }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'not_found' };

interface NoteContext {
  kind: NoteKind;
  emisorId: string;
  requestId: string | null;
  idempotency: IdempotencyInput | null;
  render: (row: InvoiceRow) => Record<string, unknown>;
}

interface NoteInput extends NoteContext {
  invoiceId: number;
  body: NoteBody;
}

/** The credit notes recorded on the document before this one (lines and totals). */
type Earlier = Pick<InvoiceRow, 'lines' | 'summary'>[];

/** A note ready to record: its row's content and, for a credit note, what it credits. */
interface NotePlan {
  prepared: PreparedInvoice;
  amount: Decimal;
  lines: { credit: LineCredit }[];
  totals: DocumentTotals;
  /** What each line of the document had credited before (credit notes only). */
  credited: ReturnType<typeof creditedLines> | null;
}

export async function createNote(db: Knex, tenantIn: Tenant, input: NoteInput): Promise<NoteOutcome> {
  const tenant = tenantOnly(tenantIn);
  return db.transaction(async (trx) => {
    // 1. Idempotency: one request at a time per key; a finished one is replayed.
    if (input.idempotency) {
      const replay = await lockIdempotencyKey(trx, tenant, input.idempotency);
      if (replay) return { kind: 'replay', response: replay };
    }
    // 2. The referenced document, locked until COMMIT.
    const doc = await lockInvoice(trx, tenant, input.invoiceId);
    if (!doc) return { kind: 'not_found' };
    // 3. The note (nothing is written before it is valid).
    const earlier = input.kind === 'credit' ? await earlierCredits(trx, doc.id) : [];
    const plan = planNote(doc, earlier, input);
    // 4. The note, numbered in its own series.
    const note = await insertNote(trx, tenant, plan.prepared, input);
    // 5. The credit, reserved on the referenced document (the check constraint has the last word).
    const referenced = input.kind === 'credit' ? await creditDocument(trx, doc, earlier, plan) : doc;
    // 6. Events and the flow.
    if (referenced.annulledAt && !doc.annulledAt)
      await recordEvents(trx, [
        { ...tenant, type: 'invoice.annulled', data: input.render(referenced), requestId: input.requestId },
      ]);
    const response = await finishNote(trx, tenant, note, input);
    return { kind: 'created', note, referenced, response };
  });
}

/**
 * The note's reason, code and lines, checked. A credit note's lines take at most what the earlier
 * credit notes (not rejected) left of each line. Throws the field errors, or NoteRefused.
 */
function planNote(doc: InvoiceRow, earlier: Earlier, input: NoteInput): NotePlan {
  const errors: FieldError[] = [];
  const whole = input.body.lines === undefined;
  const header = checkNoteHeader(errors, input.kind, input.body, whole);
  const credited =
    input.kind === 'credit'
      ? creditedLines(
          doc.summary.lines,
          earlier.map((n) => ({ credits: n.lines.map((l) => l.credit), totals: n.summary.lines })),
        )
      : null;
  const built = noteLines(
    errors,
    doc.lines.map((l) => l.input),
    doc.summary.lines,
    input.body.lines,
    credited,
  );
  // A note on a tiquete sold to no one is settled at issue too (domain/note-payments.ts).
  const settled = settledAtIssue(doc);
  const stated = notePayments(errors, input.kind, settled, input.body);
  if (errors.length) throw new DomainValidationError(errors);
  const referenceType = referenceTypeOf(doc, built.overLine);
  const docType = NOTE_DOC_TYPE[input.kind];
  // Its other charges: all of them for the whole document; for a partial note the proportional
  // ones follow the lines, and fixed ones only when named (domain/document-notes.ts).
  const otherCharges = noteOtherCharges(
    errors,
    input.kind,
    doc.summary.otherCharges ?? [],
    whole,
    input.body.other_charges,
    earlier.flatMap((n) => n.summary.otherCharges ?? []),
  );
  if (errors.length) throw new DomainValidationError(errors);
  const totalsOf = noteTotals(doc, { docType, otherCharges, stated });
  const { lines, totals } = capLines(built.lines, totalsOf, doc, whole ? null : credited);
  const amount = new Decimal(totals.summary.totalComprobante);
  if (input.kind === 'credit') checkCreditLeft(doc, amount);
  const reference: DocumentReference = {
    documentId: doc.id,
    docType: referenceType,
    clave: doc.clave!,
    issuedAt: new Date(doc.issuedAt!).toISOString(),
    code: header.code,
    reason: header.reason!,
  };
  const prepared = notePrepared(doc, { settled, docType, stated, lines, totals, reference });
  return { prepared, amount, lines, totals, credited };
}

/** The document's type as a note references it; NoteRefused when no note can reference it. */
function referenceTypeOf(
  doc: InvoiceRow,
  overLine: { line: number; left: string } | null | undefined,
): DocumentReference['docType'] {
  const referenceType = NOTE_REFERENCE_TYPE[doc.docType];
  if (!referenceType)
    throw new NoteRefused(
      'document_not_creditable',
      'Only facturas, debit notes, tiquetes and facturas de exportación can be referenced by a note',
      { document_type: doc.docType },
    );
  if (doc.status !== 'aceptada' || !doc.clave || !doc.issuedAt)
    throw new NoteRefused(
      'reference_not_accepted',
      `Only a document Hacienda accepted can be referenced; this one is ${doc.status}`,
      { status: doc.status },
    );
  if (overLine)
    throw new NoteRefused(
      'credit_exceeds_total',
      `Line ${overLine.line} has ${overLine.left} units left to credit`,
      {
        line: overLine.line,
        units_left: overLine.left,
      },
    );
  return referenceType;
}

type StatedPayments = ReturnType<typeof notePayments>;

/** The totals of a note's lines, computed like the document's; errors point into the request. */
function noteTotals(
  doc: InvoiceRow,
  note: {
    docType: (typeof NOTE_DOC_TYPE)[keyof typeof NOTE_DOC_TYPE];
    otherCharges: ReturnType<typeof noteOtherCharges>;
    stated: StatedPayments;
  },
): (lines: readonly DocumentLine[]) => DocumentTotals {
  const { stated } = note;
  return (lines) => {
    try {
      return computeDocumentTotals(lines, {
        currency: doc.currency,
        exchangeRate: doc.exchangeRate,
        docType: note.docType,
        otherCharges: note.otherCharges,
        // IVA devuelto in the document's share (in a sale paid partly by card, less than the IVA).
        ivaReturnedOf: returnedIvaShare(doc.summary),
        // The MedioPago of a note that states its own payments, amounts checked against its total.
        ...(stated
          ? {
              payments: stated.map((p) => ({
                type: PAYMENT_METHODS[p.method]!,
                other: p.other,
                amount: p.amount,
              })),
            }
          : {}),
      });
    } catch (err) {
      if (!(err instanceof DomainValidationError)) throw err;
      throw new DomainValidationError(
        err.errors.map((e) => ({ ...e, path: e.path.replace(/^(\/payments\/\d+)\/type$/, '$1/method') })),
      );
    }
  };
}

/**
 * No line of a credit note takes more than the earlier notes left of it (a note of the whole
 * document fits only while nothing was credited: the total decides, checkCreditLeft).
 */
function capLines(
  built: readonly { input: DocumentLine; credit: LineCredit }[],
  totalsOf: (lines: readonly DocumentLine[]) => DocumentTotals,
  doc: InvoiceRow,
  credited: ReturnType<typeof creditedLines> | null,
): { lines: { input: DocumentLine; credit: LineCredit }[]; totals: DocumentTotals } {
  try {
    return capNoteLines(built, totalsOf, doc.summary.lines, credited);
  } catch (err) {
    if (!(err instanceof LineCreditExceeded)) throw err;
    throw new NoteRefused(
      'credit_exceeds_total',
      `Line ${err.line} has ${new Decimal(err.creditable).toFixed(2)} left to credit`,
      { line: err.line, creditable: new Decimal(err.creditable).toFixed(2) },
    );
  }
}

/** A credit note takes at most what is left to credit on the document. */
function checkCreditLeft(doc: InvoiceRow, amount: Decimal): void {
  const remaining = new Decimal(doc.total).minus(doc.creditedTotal);
  if (!amount.gt(remaining)) return;
  // Compared to the last 0.00001, as the amounts are kept; shown so the difference shows.
  const places = amount.toFixed(2) === remaining.toFixed(2) ? 5 : 2;
  throw new NoteRefused(
    'credit_exceeds_total',
    `This credit (${amount.toFixed(places)}) exceeds what is left to credit on the document (${remaining.toFixed(places)})`,
    {
      credited_total: new Decimal(doc.creditedTotal).toFixed(places),
      creditable: remaining.toFixed(places),
    },
  );
}

/** The note as an invoice to record: the document's terms, the note's lines, totals and reference. */
function notePrepared(
  doc: InvoiceRow,
  note: {
    settled: boolean;
    docType: PreparedInvoice['docType'];
    stated: StatedPayments;
    lines: { input: DocumentLine; credit: LineCredit }[];
    totals: DocumentTotals;
    reference: DocumentReference;
  },
): PreparedInvoice {
  const { stated } = note;
  // One payment method (the document's first): a note states no split of its amount, unless a
  // debit note settled at issue names its own. A note that returns IVA states the card, without
  // which no IVA is returned.
  const methods = stated
    ? stated.map((p) => p.method)
    : doc.summary.summary.totalIVADevuelto && doc.paymentMethods.includes('tarjeta')
      ? ['tarjeta']
      : doc.paymentMethods.slice(0, 1);
  const methodOther = stated
    ? (stated.find((p) => p.other !== null)?.other ?? null)
    : doc.paymentMethods[0] === 'otros'
      ? doc.paymentMethodOther
      : null;
  return {
    // A note on a document with a client settles nothing by itself: the balance it changes is
    // the client's. On a document settled at issue it is settled at issue as well: a debit note
    // is collected by its payments at issue, a credit note refunded out of cash (journal-bulk.ts).
    paidAtIssue: note.settled,
    clientId: doc.clientId,
    docType: note.docType,
    branch: doc.branch,
    terminal: doc.terminal,
    currency: doc.currency,
    exchangeRate: doc.exchangeRate,
    condition: doc.condition,
    condicionVenta: doc.condicionVenta,
    conditionOther: doc.conditionOther,
    creditDays: doc.creditDays,
    paymentMethods: methods,
    paymentMethodOther: methodOther,
    lines: note.lines.map((l) => ({
      serviceId: doc.lines[l.credit.line - 1]?.serviceId ?? null,
      input: l.input,
      credit: l.credit,
    })),
    totals: note.totals,
    externalId: null,
    metadata: {},
    emailRecipients: [],
    reference: note.reference,
  };
}

/**
 * The credit note's amount reserved on the document, with its new balance. Annulled when the
 * credits reach the total, or when every unit of every line is credited and what is left is only
 * the rounding the last notes could not take (domain/note-credits.ts).
 */
async function creditDocument(
  trx: Knex.Transaction,
  doc: InvoiceRow,
  earlier: Earlier,
  plan: NotePlan,
): Promise<InvoiceRow> {
  const creditedTotal = new Decimal(doc.creditedTotal).plus(plan.amount);
  const allLines =
    plan.credited !== null &&
    fullyCredited(
      doc.summary.lines,
      creditedLines(doc.summary.lines, [
        ...earlier.map((n) => ({ credits: n.lines.map((l) => l.credit), totals: n.summary.lines })),
        { credits: plan.lines.map((l) => l.credit), totals: plan.totals.lines },
      ]),
      new Decimal(doc.total).minus(creditedTotal),
    );
  const balance = documentBalance({
    ...doc,
    creditedTotal,
    applied: await appliedTo(trx, doc.id),
    annulled: allLines || creditedTotal.gte(doc.total),
  });
  return reserveCredit(trx, doc.id, plan.amount.toFixed(5), balance, allLines);
}

/** The note's created event, its flow and the idempotency record. */
async function finishNote(
  trx: Knex.Transaction,
  tenant: Tenant,
  note: InvoiceRow,
  ctx: NoteContext,
): Promise<StoredResponse> {
  const body = ctx.render(note);
  await recordEvents(trx, [
    {
      ...tenant,
      type: ctx.kind === 'credit' ? 'credit_note.created' : 'debit_note.created',
      data: body,
      requestId: ctx.requestId,
    },
  ]);
  await enqueueOutbox(trx, 'invoice.flow', { invoiceId: note.id }, ctx.requestId);
  const response = { status: 201, body };
  if (ctx.idempotency) await saveIdempotent(trx, tenant, ctx.idempotency, response);
  return response;
}

/**
 * A credit note of a document issued outside the service (before the company used it): the note
 * is prepared like an invoice (its client and lines from the catalogue) and references the clave
 * it was given; nothing caps its amount, since the service never saw that document.
 */
export async function createExternalCreditNote(
  db: Knex,
  tenantIn: Tenant,
  prepared: PreparedInvoice,
  ctx: Omit<NoteContext, 'kind'>,
): Promise<
  | { kind: 'created'; note: InvoiceRow; response: StoredResponse }
  | { kind: 'replay'; response: StoredResponse }
> {
  const tenant = tenantOnly(tenantIn);
  return db.transaction(async (trx) => {
    if (ctx.idempotency) {
      const replay = await lockIdempotencyKey(trx, tenant, ctx.idempotency);
      if (replay) return { kind: 'replay', response: replay };
    }
    const note = await insertNote(trx, tenant, prepared, ctx);
    const response = await finishNote(trx, tenant, note, { ...ctx, kind: 'credit' });
    return { kind: 'created', note, response };
  });
}
