// The rules of a receptor's answer to a supplier's comprobante (MensajeReceptor, the v4.4 XSD of each document type and the
// XSD): the result picks the Mensaje code and the consecutivo series (1 → 05, 2 → 06, 3 → 07);
// DetalleMensaje is at most 160 characters and says why for a partial acceptance or a rejection;
// CondicionImpuesto, MontoTotalImpuestoAcreditar and MontoTotalDeGastoAplicable say how much of
// the IVA is credited and how much is expense. Pure: no I/O; every fault names its field.
import { Decimal } from 'decimal.js';
import type { FieldError } from './errors.ts';
import type { DocumentTypeDescriptor } from './document-types/index.ts';
import { ACEPTACION, ACEPTACION_PARCIAL, RECHAZO } from './document-types/mensajes-receptor.ts';

export const ANSWER_RESULTS = ['accepted', 'partially_accepted', 'rejected'] as const;
export type AnswerResult = (typeof ANSWER_RESULTS)[number];

const codesOf = (d: DocumentTypeDescriptor) => ({ mensaje: d.mensaje!, docType: d.code });

/** Mensaje of the MensajeReceptor and the tipo of its NumeroConsecutivoReceptor: their descriptors'. */
export const ANSWER_CODES: Record<AnswerResult, { mensaje: '1' | '2' | '3'; docType: string }> = {
  accepted: codesOf(ACEPTACION),
  partially_accepted: codesOf(ACEPTACION_PARCIAL),
  rejected: codesOf(RECHAZO),
};

/**
 * CondicionImpuesto: 01 general IVA credit, 02 partial IVA credit, 03 capital goods, 04 current
 * expense without credit, 05 proportionality.
 */
export const TAX_CONDITIONS = ['01', '02', '03', '04', '05'] as const;
export type TaxCondition = (typeof TAX_CONDITIONS)[number];

export const DETALLE_MAX = 160;
const AMOUNT = /^\d{1,13}(\.\d{1,5})?$/;

export interface AnswerInput {
  result: string;
  reason?: string;
  iva_credit?: string;
  expense?: string;
  tax_condition?: string;
  activity_code?: string;
}

/** What the received document says (from its ResumenFactura). */
export interface AnsweredTotals {
  totalTax: string;
  total: string;
}

export interface AnswerPlan {
  result: AnswerResult;
  mensaje: '1' | '2' | '3';
  /** The receptor message's type (05, 06, 07). */
  docType: string;
  reason: string | null;
  /** CondicionImpuesto, null when nothing is credited or spent (a rejection, a document without tax). */
  taxCondition: TaxCondition | null;
  /** MontoTotalImpuestoAcreditar (5 decimals), null when not written. */
  ivaCredit: string | null;
  /** MontoTotalDeGastoAplicable (5 decimals), null when not written. */
  expense: string | null;
  activityCode: string | null;
}

type Add = (path: string, code: string, message: string) => void;

/** The answer's own fields: result, reason, activity code, amounts and condition as given. */
function readAnswer(input: AnswerInput, add: Add) {
  if (!(ANSWER_RESULTS as readonly string[]).includes(input.result)) {
    add('/result', 'invalid_enum', `must be one of ${ANSWER_RESULTS.join(', ')}`);
    return null;
  }
  const result = input.result as AnswerResult;
  const reason = input.reason?.trim() ? input.reason.trim() : null;
  if (reason !== null && [...reason].length > DETALLE_MAX)
    add('/reason', 'too_long', `at most ${DETALLE_MAX} characters (DetalleMensaje)`);
  if (reason === null && result !== 'accepted')
    add('/reason', 'required', 'say why the document is not accepted in full (DetalleMensaje)');
  if (input.activity_code !== undefined && !/^\d{6}$/.test(input.activity_code))
    add('/activity_code', 'invalid_format', 'must be 6 digits (CodigoActividad)');
  const amount = (path: string, v: string | undefined): Decimal | null => {
    if (v === undefined) return null;
    if (!AMOUNT.test(v)) {
      add(path, 'invalid_format', 'must be a decimal amount with up to 5 decimals, not negative');
      return null;
    }
    return new Decimal(v);
  };
  const credit = amount('/iva_credit', input.iva_credit);
  const spent = amount('/expense', input.expense);
  const condition = input.tax_condition;
  if (condition !== undefined && !(TAX_CONDITIONS as readonly string[]).includes(condition))
    add('/tax_condition', 'invalid_enum', `must be one of ${TAX_CONDITIONS.join(', ')}`);
  return { result, reason, credit, spent, condition };
}

/**
 * What an acceptance (in full or in part) credits, under which condition, and the expense;
 * faults are added. `credit`, `spent`, `condition`: as the answer gave them.
 */
function creditAndExpense(
  result: AnswerResult,
  given: { credit: Decimal | null; spent: Decimal | null; condition: string | undefined },
  doc: AnsweredTotals,
  add: Add,
) {
  const { credit, spent, condition } = given;
  const tax = new Decimal(doc.totalTax);
  const total = new Decimal(doc.total);
  const ivaCredit = credit ?? (condition === '04' || tax.isZero() ? new Decimal(0) : tax);
  if (credit === null && result === 'partially_accepted' && condition !== '04' && !tax.isZero())
    add('/iva_credit', 'required', 'a partial acceptance says how much IVA it credits');
  if (ivaCredit.gt(tax))
    add('/iva_credit', 'out_of_range', `at most the document's total tax (${tax.toFixed(5)})`);
  const taxCondition: TaxCondition | null =
    (condition as TaxCondition | undefined) ??
    (tax.isZero() ? null : ivaCredit.isZero() ? '04' : ivaCredit.eq(tax) ? '01' : '02');
  if (taxCondition === '04' && !ivaCredit.isZero())
    add('/iva_credit', 'not_allowed', 'tax_condition 04 (current expense) credits no IVA');
  if (taxCondition === '01' && !ivaCredit.eq(tax))
    add('/iva_credit', 'out_of_range', `tax_condition 01 credits the whole IVA (${tax.toFixed(5)})`);
  if (taxCondition === '02' && (ivaCredit.isZero() || ivaCredit.gte(tax)))
    add(
      '/iva_credit',
      'out_of_range',
      'tax_condition 02 credits part of the IVA: more than 0, less than all',
    );
  const expense = spent ?? Decimal.max(0, total.minus(ivaCredit));
  if (expense.gt(total))
    add('/expense', 'out_of_range', `at most the document's total (${total.toFixed(5)})`);
  else if (expense.plus(ivaCredit).gt(total))
    add('/expense', 'out_of_range', "expense and credited IVA together exceed the document's total");
  return {
    taxCondition,
    ivaCredit: taxCondition === null ? null : ivaCredit.toFixed(5),
    expense: expense.toFixed(5),
  };
}

/**
 * Checks an answer against the document it answers and fills in what was left out: an
 * acceptance credits the whole IVA (01) and spends the rest of the total; a partial acceptance
 * credits what it says (02); a rejection credits and spends nothing.
 */
export function planAnswer(
  input: AnswerInput,
  doc: AnsweredTotals,
): { ok: true; plan: AnswerPlan } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const add: Add = (path, code, message) => errors.push({ path, code, message });
  const given = readAnswer(input, add);
  if (!given || errors.length) return { ok: false, errors };
  const { result, reason } = given;
  const base = { result, ...ANSWER_CODES[result], reason, activityCode: input.activity_code ?? null };
  if (result === 'rejected') {
    for (const [path, v] of [
      ['/iva_credit', input.iva_credit],
      ['/expense', input.expense],
      ['/tax_condition', input.tax_condition],
    ] as const)
      if (v !== undefined) add(path, 'not_allowed', 'a rejected document credits and spends nothing');
    if (errors.length) return { ok: false, errors };
    return { ok: true, plan: { ...base, taxCondition: null, ivaCredit: null, expense: null } };
  }
  const figures = creditAndExpense(result, given, doc, add);
  if (errors.length) return { ok: false, errors };
  return { ok: true, plan: { ...base, ...figures } };
}
