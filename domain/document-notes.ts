// Credit notes (03), debit notes (02) and replacements: what they reference and which lines they
// carry. A note names the lines of the referenced document it corrects (`line`, 1-based), each
// whole, by a quantity (`qty`, at most the line's) or by a net amount (`amount`, before tax, at
// most the line's subtotal); no lines means the whole document. The reference codes follow
// Hacienda's nota 9 (2026 set): a replacement of a rejected comprobante has the type of what it
// replaces and carries Codigo 16 (REPLACEMENT_REFERENCES below).
import { Decimal } from 'decimal.js';
import { documentTypeName } from './document-types/index.ts';
import type { CodigoReferencia, TipoDocumentoReferencia } from './codes.ts';
import type { DocumentLine } from './document-line.ts';
import type { LineTotals, OtherChargeInput, ResolvedOtherCharge } from './totals.ts';
import { D } from './decimal-input.ts';
import { lineByAmount, lineByUnits, unitsLeft, type CreditedLine, type LineCredit } from './note-credits.ts';
import { checkDecimal, checkText } from './field-rules.ts';
import type { FieldError } from './errors.ts';
import { parseClave } from './clave.ts';
import { parseDocumentDate, REFERENCE_AFTER_DOCUMENT } from './invoice-request-fields.ts';

export type NoteKind = 'credit' | 'debit';

/** The consecutivo tipo of each note. */
export const NOTE_DOC_TYPE: Record<NoteKind, '02' | '03'> = { debit: '02', credit: '03' };

/** Codes a note may carry (99 "otros" would need its own text: not offered). */
export const NOTE_CODES: Record<NoteKind, readonly CodigoReferencia[]> = {
  credit: ['01', '02', '04', '06', '09', '12', '13', '14'],
  debit: ['02', '04', '10', '14'],
};

/** Codes that annul the referenced document: only a note for the whole of it may carry them. */
export const ANNULMENT_CODES: readonly CodigoReferencia[] = ['01', '13'];

/**
 * The reference of a replacement of a comprobante Hacienda rejected, by the type the two share
 * (the v4.4 XSD and its Anexos, 2026 set): Codigo 16 "sustituye comprobante rechazado", under TipoDocIR 12
 * "sustituye factura de exportación" for an export, and 10 "comprobante electrónico rechazado por el
 * Ministerio de Hacienda" for a factura or a tiquete (since v4.4 code 10 names any comprobante; no
 * code names the replacement of a tiquete). Notes, purchases and receipts are not replaced by a new
 * sale.
 */
export const REPLACEMENT_REFERENCES: Readonly<
  Record<string, { docType: TipoDocumentoReferencia; code: CodigoReferencia }>
> = {
  '01': { docType: '10', code: '16' },
  '04': { docType: '10', code: '16' },
  '09': { docType: '12', code: '16' },
};

/**
 * Why a new document of type `newType` cannot replace a rejected one of type `oldType` (named
 * `oldId`), as the error of the field `replaces`; null when it can: a replacement has the type of
 * what it replaces.
 */
export function replacementTypeError(oldId: string, oldType: string, newType: string): FieldError | null {
  if (oldType === newType && Object.hasOwn(REPLACEMENT_REFERENCES, oldType)) return null;
  const name = documentLabel(oldType).toLowerCase();
  return {
    path: '/replaces',
    code: 'document_type_mismatch',
    message: Object.hasOwn(REPLACEMENT_REFERENCES, oldType)
      ? `${oldId} is a ${name} (${oldType}): its replacement has document_type ${oldType}`
      : `${oldId} is a ${name} (${oldType}): only a factura (01), tiquete (04) or export (09) is replaced by a new document`,
  };
}

/**
 * Document types a credit note may reference by clave (TipoDocIR: FE, ND, NC, TE, FEE), and the
 * tipo each one's consecutivo carries (positions 9-10).
 */
export const REFERENCEABLE_BY_CLAVE: Readonly<Record<string, string>> = {
  '01': '01',
  '02': '02',
  '03': '03',
  '04': '04',
  '19': '09',
};

/**
 * Our document types a note may reference (facturas, debit notes, tiquetes and facturas de
 * exportación), each with the TipoDocIR (nota 10) that names it: the FEE is 19 in the 2026 set
 * (09 there is "devolución mercadería"). Credit notes, purchases (which take 17/18 notes of
 * their own) and receipts are not referenced.
 */
export const NOTE_REFERENCE_TYPE: Readonly<Record<string, TipoDocumentoReferencia>> = {
  '01': '01',
  '02': '02',
  '04': '04',
  '09': '19',
};

/** The reference a document keeps (and writes as InformacionReferencia). */
export interface DocumentReference {
  /** Our own document, when it is one. */
  documentId: number | null;
  docType: TipoDocumentoReferencia;
  clave: string;
  /** ISO date-time of the referenced document. */
  issuedAt: string;
  code: CodigoReferencia;
  reason: string;
}

export interface NoteLineRequest {
  line: number;
  qty?: string | number;
  amount?: string;
}

const RAZON = { element: 'Razon', min: 3, max: 180 };

/** The note's reason and code: the default code is 01 for a whole credit note, 02 otherwise. */
export function checkNoteHeader(
  errors: FieldError[],
  kind: NoteKind,
  body: { reason?: unknown; code?: unknown },
  whole: boolean,
): { reason: string | null; code: CodigoReferencia } {
  const reason = checkText(errors, '/reason', body.reason, RAZON, true);
  let code: CodigoReferencia = kind === 'credit' && whole ? '01' : '02';
  if (body.code !== undefined) {
    if (typeof body.code !== 'string' || !NOTE_CODES[kind].includes(body.code as CodigoReferencia)) {
      errors.push({
        path: '/code',
        code: 'invalid_value',
        message: `a ${kind} note takes one of the reference codes ${NOTE_CODES[kind].join(', ')}`,
      });
    } else code = body.code as CodigoReferencia;
  }
  if (!whole && ANNULMENT_CODES.includes(code))
    errors.push({
      path: '/code',
      code: 'annulment_needs_whole_document',
      message: `code ${code} annuls the document: send no lines (the whole document)`,
    });
  return { reason, code };
}

const QTY_RULE = { intDigits: 13, fractionDigits: 3, positive: true, code: 'invalid_quantity', what: 'qty' };
const AMOUNT_RULE = {
  intDigits: 13,
  fractionDigits: 5,
  positive: true,
  code: 'invalid_amount',
  what: 'amount',
};

/** A line named with an amount: at most the line's subtotal (field errors are pushed). */
function lineOfAmount(
  errors: FieldError[],
  path: string,
  line: number,
  raw: unknown,
  src: DocumentLine,
  orig: LineTotals,
): { input: DocumentLine; credit: LineCredit } | null {
  const amount = checkDecimal(errors, `${path}/amount`, raw, AMOUNT_RULE);
  if (amount === null) return null;
  if (new Decimal(amount).gt(orig.subTotal)) {
    errors.push({
      path: `${path}/amount`,
      code: 'amount_exceeds_line',
      message: `line ${line} has a subtotal of ${new Decimal(orig.subTotal).toFixed(2)}`,
    });
    return null;
  }
  return lineByAmount(line, src, orig, new D(amount));
}

/**
 * The note's lines from the referenced document's lines (`totals`: each line as computed for that
 * document), each with what it credits (domain/note-credits.ts). `credited`: what the document's
 * earlier credit notes took of each line (a credit note), or null (a debit note). Field errors are
 * pushed; `overLine` names a line asked for more units than earlier notes left of it. The lines
 * returned are meaningful only when neither happened.
 */
export function noteLines(
  errors: FieldError[],
  original: readonly DocumentLine[],
  totals: readonly LineTotals[],
  requested: readonly NoteLineRequest[] | undefined,
  credited: readonly CreditedLine[] | null,
): { lines: { input: DocumentLine; credit: LineCredit }[]; overLine: { line: number; left: string } | null } {
  let overLine: { line: number; left: string } | null = null;
  if (requested === undefined)
    return {
      lines: original.map((l, i) => ({
        input: { ...l },
        credit: { line: i + 1, units: l.quantity, discounts: l.discounts?.map((_, k) => k) ?? [] },
      })),
      overLine,
    };
  if (!requested.length) {
    errors.push({ path: '/lines', code: 'too_short', message: 'name at least one line, or omit lines' });
    return { lines: [], overLine };
  }
  const seen = new Set<number>();
  const out: { input: DocumentLine; credit: LineCredit }[] = [];
  requested.forEach((r, i) => {
    const path = `/lines/${i}`;
    const src = Number.isInteger(r.line) ? original[r.line - 1] : undefined;
    const orig = totals[r.line - 1];
    if (!src || !orig || r.line < 1) {
      errors.push({
        path: `${path}/line`,
        code: 'unknown_line',
        message: `the referenced document has lines 1 to ${original.length}`,
      });
      return;
    }
    if (seen.has(r.line)) {
      errors.push({ path: `${path}/line`, code: 'duplicate_line', message: `line ${r.line} is named twice` });
      return;
    }
    seen.add(r.line);
    if (r.qty !== undefined && r.amount !== undefined) {
      errors.push({ path, code: 'ambiguous_line', message: 'give qty or amount, not both' });
      return;
    }
    const taken = credited ? credited[r.line - 1] : undefined;
    if (r.amount !== undefined) {
      const byAmount = lineOfAmount(errors, path, r.line, r.amount, src, orig);
      if (byAmount) out.push(byAmount);
      return;
    }
    let qty = new D(src.quantity);
    if (r.qty !== undefined) {
      const given = checkDecimal(errors, `${path}/qty`, r.qty, QTY_RULE);
      if (given === null) return;
      if (new Decimal(given).gt(src.quantity)) {
        errors.push({
          path: `${path}/qty`,
          code: 'quantity_exceeds_line',
          message: `line ${r.line} has quantity ${new Decimal(src.quantity).toString()}`,
        });
        return;
      }
      qty = new D(given);
    } else if (taken) qty = unitsLeft(src, taken);
    // A credit takes at most the units earlier credit notes left of the line (a line named
    // without qty: all of them).
    const left = unitsLeft(src, taken);
    if (credited && (qty.gt(left) || qty.isZero())) {
      overLine ??= { line: r.line, left: left.toString() };
      return;
    }
    out.push(lineByUnits(r.line, src, orig, qty, credited ? (taken ?? null) : null));
  });
  return { lines: out, overLine };
}

/** A fixed other charge of the referenced document a partial note carries (`charge`, 1-based). */
export interface NoteChargeRequest {
  charge: number;
  /** Up to the charge's amount (what earlier credit notes left of it); absent: all of that. */
  amount?: string;
}

/** The same charge in another document: same code, text and third party. */
const chargeKey = (c: ResolvedOtherCharge) =>
  [c.code, c.codeOther ?? '', c.detail, c.thirdParty?.idNumber ?? ''].join('|');

/** A recorded charge as the totals take it again (its amount, or only its percentage). */
export function chargeInput(c: ResolvedOtherCharge, amount: string | null): OtherChargeInput {
  return {
    code: c.code,
    ...(c.codeOther ? { codeOther: c.codeOther } : {}),
    detail: c.detail,
    ...(c.percent ? { percent: c.percent } : {}),
    ...(amount !== null ? { amount } : {}),
    ...(c.thirdParty
      ? {
          thirdParty: {
            idType: c.thirdParty.idType,
            idNumber: c.thirdParty.idNumber,
            ...(c.thirdParty.name ? { name: c.thirdParty.name } : {}),
          },
        }
      : {}),
  };
}

/**
 * The other charges (OtrosCargos) a note carries. A note of the whole document carries them all as
 * recorded. A partial note carries each proportional charge (one stated as a percentage of the net
 * sale, PorcentajeOC: the 10 % service charge) at its percentage of the note's own net sale, so it
 * follows the lines credited; a fixed charge (an amount, such as a third party's or a stamp) only
 * when `requested` names it (`charge`, 1-based, whole or up to `amount`). For a credit note
 * `earlier` are the charges of the document's earlier credit notes (not rejected): a fixed charge
 * is never credited beyond its amount. Field errors are pushed.
 */
export function noteOtherCharges(
  errors: FieldError[],
  kind: NoteKind,
  recorded: readonly ResolvedOtherCharge[],
  whole: boolean,
  requested: readonly NoteChargeRequest[] | undefined,
  earlier: readonly ResolvedOtherCharge[] = [],
): OtherChargeInput[] {
  if (whole) {
    if (requested !== undefined)
      errors.push({
        path: '/other_charges',
        code: 'not_applicable',
        message: 'a note of the whole document carries all its other charges: name lines to choose them',
      });
    return recorded.map((c) => chargeInput(c, c.amount));
  }
  const out = recorded.filter((c) => c.percent !== null).map((c) => chargeInput(c, null));
  const taken = new Map<string, Decimal>();
  for (const c of kind === 'credit' ? earlier : [])
    if (c.percent === null)
      taken.set(chargeKey(c), (taken.get(chargeKey(c)) ?? new Decimal(0)).plus(c.amount));
  const seen = new Set<number>();
  (requested ?? []).forEach((r, i) => {
    const path = `/other_charges/${i}`;
    const src = Number.isInteger(r.charge) && r.charge >= 1 ? recorded[r.charge - 1] : undefined;
    if (!src) {
      errors.push({
        path: `${path}/charge`,
        code: 'unknown_charge',
        message: recorded.length
          ? `the referenced document has other charges 1 to ${recorded.length}`
          : 'the referenced document has no other charges',
      });
      return;
    }
    if (seen.has(r.charge)) {
      errors.push({
        path: `${path}/charge`,
        code: 'duplicate_charge',
        message: `charge ${r.charge} is named twice`,
      });
      return;
    }
    seen.add(r.charge);
    if (src.percent !== null) {
      errors.push({
        path: `${path}/charge`,
        code: 'charge_follows_lines',
        message: `charge ${r.charge} is ${new Decimal(src.percent).toString()} % of the net sale: it follows the lines the note names`,
      });
      return;
    }
    const left = new Decimal(src.amount).minus(taken.get(chargeKey(src)) ?? 0);
    let amount = left;
    if (r.amount !== undefined) {
      const given = checkDecimal(errors, `${path}/amount`, r.amount, AMOUNT_RULE);
      if (given === null) return;
      amount = new Decimal(given);
    }
    if (amount.gt(left) || left.lte(0)) {
      errors.push({
        path: r.amount !== undefined ? `${path}/amount` : `${path}/charge`,
        code: 'amount_exceeds_charge',
        message: `charge ${r.charge} has ${Decimal.max(left, 0).toFixed(2)} left to credit`,
      });
      return;
    }
    taken.set(chargeKey(src), (taken.get(chargeKey(src)) ?? new Decimal(0)).plus(amount));
    out.push(chargeInput(src, amount.toFixed(5)));
  });
  return out;
}

/** How a journal entry names the document it books: its tipo de comprobante (Anexos nota 3). */
export function documentLabel(docType: string): string {
  return documentTypeName(docType);
}

/**
 * The reference of a credit note of a document issued elsewhere: its clave (well formed, of the
 * type named), its type (default 01) and its issue date (a real day, not after the note). Errors are pushed.
 */
export function checkExternalReference(
  errors: FieldError[],
  ref: { clave?: unknown; document_type?: unknown; issue_date?: unknown },
  now: Date,
): { docType: TipoDocumentoReferencia; clave: string; issuedAt: string } | null {
  const n = errors.length;
  const docType = ref.document_type ?? '01';
  if (typeof docType !== 'string' || !(docType in REFERENCEABLE_BY_CLAVE))
    errors.push({
      path: '/reference/document_type',
      code: 'invalid_value',
      message: `one of ${Object.keys(REFERENCEABLE_BY_CLAVE).join(', ')}`,
    });
  let clave = '';
  try {
    clave = String(ref.clave);
    const parts = parseClave(clave);
    const tipo = REFERENCEABLE_BY_CLAVE[docType as string];
    if (tipo && parts.consecutivo.slice(8, 10) !== tipo)
      errors.push({
        path: '/reference/clave',
        code: 'mismatch',
        message: `a document of type ${docType as string} has tipo ${tipo} in its consecutivo`,
      });
  } catch (err) {
    errors.push({
      path: '/reference/clave',
      code: 'invalid_clave',
      message: err instanceof Error ? err.message : 'not a clave',
    });
  }
  const issued = parseDocumentDate(
    errors,
    '/reference/issue_date',
    ref.issue_date,
    now,
    REFERENCE_AFTER_DOCUMENT,
  );
  if (errors.length > n || !issued) return null;
  return { docType: docType as TipoDocumentoReferencia, clave, issuedAt: issued.toISOString() };
}
