// The fields of a create-invoice body that describe a real sale beyond quantity and price: line
// discounts with their codes (Descuento), the receptor's exoneration of a line (Exoneracion),
// document-level other charges (OtrosCargos), several payment methods with their amounts
// (MedioPago), and the taxes of a line beside its IVA (Impuesto 02-06, 12, 99; IVA 07 and 08,
// IVACobradoFabrica, ImpuestoAsumidoEmisorFabrica, the IVA returned on health services). Each parser checks types, codes and XSD facets and collects field errors; the
// arithmetic (amounts computed from percentages, payment remainders, the IVA an exoneration
// removes) is domain/totals.ts's. Nested objects take snake_case keys in either request shape and
// their camelCase spelling too (one of the two per field), like the body's optional fields.
import {
  CODIGOS_DESCUENTO,
  INSTITUCIONES_EXONERACION,
  TIPOS_DOCUMENTO_EXONERACION,
  TIPOS_OTROS_CARGOS,
  type CodigoDescuento,
  type InstitucionExoneracion,
  type TipoDocumentoExoneracion,
  type TipoOtroCargo,
} from './codes.ts';
import { formatCrDateTime } from './cr-time.ts';
import type { FieldError } from './errors.ts';
import { isIvaTaxCode, type IvaTaxCode } from './codes.ts';
import { MAX_OTHER_TAXES, validateOtherTaxes, type OtherTaxInput } from './other-taxes.ts';
import { checkDecimal, checkText, TEXT_FACETS } from './field-rules.ts';
import { resolveIdentification, type IdentificationType } from './identification.ts';
import { isPaymentMethod, PAYMENT_METHODS, type PaymentMethodName } from './sale-terms.ts';

export interface DiscountRequest {
  amount?: string;
  percent?: string;
  code: CodigoDescuento;
  codeOther?: string;
  nature?: string;
}

/** An exoneration as stored with the line: the date as an ISO string (JSON-safe). */
export interface ExonerationRequest {
  docType: TipoDocumentoExoneracion;
  docTypeOther?: string;
  number: string;
  article?: string;
  inciso?: string;
  institution: InstitucionExoneracion;
  institutionOther?: string;
  issuedAt: string;
  rate: string;
}

export interface OtherChargeRequest {
  code: TipoOtroCargo;
  codeOther?: string;
  detail?: string;
  percent?: string;
  amount?: string;
  thirdParty?: { idType: IdentificationType; idNumber: string; name: string };
}

export interface PaymentRequest {
  method: PaymentMethodName;
  /** TotalMedioPago; null: the rest of the total (at most one payment without an amount). */
  amount: string | null;
  /** MedioPagoOtros, only with method otros (99). */
  other: string | null;
}

type Obj = Record<string, unknown>;

const MONEY = { intDigits: 13, fractionDigits: 5, positive: true, code: 'invalid_amount', what: 'amount' };
const PERCENT = { intDigits: 3, fractionDigits: 5, positive: true, code: 'invalid_percent', what: 'percent' };
/** TarifaExonerada: decimal 4,2. */
const RATE = { intDigits: 2, fractionDigits: 2, positive: true, code: 'invalid_rate', what: 'rate' };

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * Reads a nested object whose keys are `fields` (snake_case) or their camelCase spellings; an
 * unknown key or both spellings of one field is an error. Returns the values under snake keys.
 */
function readObject(
  errors: FieldError[],
  base: string,
  raw: unknown,
  fields: readonly string[],
  what: string,
) {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push({ path: base, code: 'invalid_type', message: 'must be an object' });
    return null;
  }
  const o = raw as Obj;
  const known = new Map(fields.flatMap((f) => [[f, f] as const, [camel(f), f] as const]));
  const out: Obj = {};
  const keyOf: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    const f = known.get(k);
    if (!f) {
      errors.push({ path: `${base}/${k}`, code: 'unknown_field', message: `is not a field of ${what}` });
      continue;
    }
    if (f in out) {
      errors.push({
        path: `${base}/${k}`,
        code: 'conflicting_fields',
        message: `give ${f} or ${camel(f)}, not both: they are one field`,
      });
      continue;
    }
    out[f] = v;
    keyOf[f] = k;
  }
  return { values: out, path: (f: string) => `${base}/${keyOf[f] ?? f}` };
}

function code<T extends string>(
  errors: FieldError[],
  path: string,
  value: unknown,
  list: Record<T, string>,
  what: string,
): T | null {
  if (typeof value !== 'string' || !Object.hasOwn(list, value)) {
    errors.push({
      path,
      code: value === undefined ? 'required' : 'unknown_code',
      message:
        value === undefined
          ? `is required (${what}: ${Object.keys(list).join(', ')})`
          : `unknown ${what} "${String(value)}"; one of ${Object.keys(list).join(', ')}`,
    });
    return null;
  }
  return value as T;
}

const DISCOUNT_FIELDS = ['amount', 'percent', 'code', 'code_other', 'nature'] as const;

/** One Descuento: exactly one of amount or percent; code (default 07 comercial), 99 needs code_other. */
export function parseDiscount(errors: FieldError[], base: string, raw: unknown): DiscountRequest | undefined {
  const r = readObject(errors, base, raw, DISCOUNT_FIELDS, 'a discount');
  if (!r) return undefined;
  const o = r.values;
  if ((o.amount === undefined) === (o.percent === undefined))
    errors.push({ path: base, code: 'invalid_discount', message: 'give exactly one of amount or percent' });
  const c = code<CodigoDescuento>(
    errors,
    r.path('code'),
    o.code ?? '07',
    CODIGOS_DESCUENTO,
    'CodigoDescuento',
  );
  if (c === null) return undefined;
  const discount: DiscountRequest = { code: c };
  for (const k of ['amount', 'percent'] as const) {
    if (o[k] === undefined) continue;
    if (typeof o[k] !== 'string')
      errors.push({ path: r.path(k), code: 'invalid_type', message: 'must be a decimal string' });
    else discount[k] = o[k];
  }
  const other = checkText(
    errors,
    r.path('code_other'),
    o.code_other,
    TEXT_FACETS.codigoDescuentoOtro,
    c === '99',
  );
  if (other !== null) discount.codeOther = other;
  const nature = checkText(errors, r.path('nature'), o.nature, TEXT_FACETS.naturalezaDescuento);
  if (nature !== null) discount.nature = nature;
  return discount;
}

/** A line's `discounts` (up to 5, Descuento 0..5). */
export function parseDiscounts(errors: FieldError[], base: string, raw: unknown): DiscountRequest[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > 5) {
    errors.push({ path: base, code: 'invalid_value', message: 'must be a list of 1 to 5 discounts' });
    return [];
  }
  const out: DiscountRequest[] = [];
  raw.forEach((d, k) => {
    const parsed = parseDiscount(errors, `${base}/${k}`, d);
    if (parsed) out.push(parsed);
  });
  return out;
}

const EXONERATION_FIELDS = [
  'doc_type',
  'doc_type_other',
  'number',
  'article',
  'inciso',
  'institution',
  'institution_other',
  'issued_at',
  'rate',
] as const;

/** FechaEmisionEX: a date (`2026-01-15`, Costa Rica midnight) or a date-time with its offset. */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The date part names a real day: Date would roll 2026-02-30 over to March 2 (and 24:00 to the
 * next day) instead of refusing it.
 */
function isCalendarDay(value: string): boolean {
  const [y, m, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return m >= 1 && m <= 12 && day >= 1 && day <= daysInMonth && !/T24:/.test(value);
}

/** FechaEmisionEX is written in Costa Rica time with a four-digit year (1000-9999). */
function writableDate(when: Date): boolean {
  try {
    formatCrDateTime(when);
    return true;
  } catch {
    return false;
  }
}

/** What to say when a date lies after the document being issued. */
export interface AfterDocument {
  code: string;
  message: string;
}

/** A referenced document dated after the note, purchase or replacement that names it. */
export const REFERENCE_AFTER_DOCUMENT: AfterDocument = {
  code: 'invalid_date',
  message:
    'la fecha de emisión del documento de referencia es posterior a la del comprobante, que se ' +
    'fecha al numerarlo (the referenced document is dated after this document, which is dated ' +
    'when it is numbered)',
};

/**
 * A date a request carries into the XML (FechaEmisionEX, a referenced document's FechaEmision):
 * a date (`2026-01-15`, Costa Rica midnight) or a date-time with its offset, naming a real day,
 * with a year xs:dateTime is written with here (1000-9999, Costa Rica time), not after `now`
 * (the document is dated when it is numbered, never earlier). Pushes the error and returns null.
 */
export function parseDocumentDate(
  errors: FieldError[],
  path: string,
  d: unknown,
  now: Date,
  after: AfterDocument,
): Date | null {
  if (typeof d !== 'string' || !(DATE_ONLY.test(d) || DATE_TIME.test(d))) {
    errors.push({
      path,
      code: d === undefined ? 'required' : 'invalid_date',
      message: 'a date (2026-01-15) or a date-time with offset (2026-01-15T09:00:00-06:00)',
    });
    return null;
  }
  const when = new Date(DATE_ONLY.test(d) ? `${d}T00:00:00-06:00` : d);
  if (Number.isNaN(when.getTime()) || !isCalendarDay(d))
    errors.push({
      path,
      code: 'invalid_date',
      message: 'no es una fecha del calendario (is not a calendar date)',
    });
  else if (!writableDate(when))
    errors.push({
      path,
      code: 'invalid_date',
      message: 'el año debe estar entre 1000 y 9999 (the year must be 1000 to 9999, Costa Rica time)',
    });
  else if (when.getTime() > now.getTime()) errors.push({ path, code: after.code, message: after.message });
  else return when;
  return null;
}

/**
 * `now`: the moment the request is judged. The document is dated when it is numbered, never
 * earlier, so an exoneration issued after `now` would be dated after the document (Hacienda -50).
 */
export function parseExoneration(
  errors: FieldError[],
  base: string,
  raw: unknown,
  now: Date = new Date(),
): ExonerationRequest | undefined {
  const before = errors.length;
  const r = readObject(errors, base, raw, EXONERATION_FIELDS, 'an exoneration');
  if (!r) return undefined;
  const o = r.values;
  const docType = code<TipoDocumentoExoneracion>(
    errors,
    r.path('doc_type'),
    o.doc_type,
    TIPOS_DOCUMENTO_EXONERACION,
    'TipoDocumentoEX1',
  );
  const docTypeOther = checkText(
    errors,
    r.path('doc_type_other'),
    o.doc_type_other,
    { element: 'TipoDocumentoOTRO', min: 5, max: 100 },
    docType === '99',
  );
  const number = checkText(
    errors,
    r.path('number'),
    o.number,
    { element: 'NumeroDocumento', min: 3, max: 40 },
    true,
  );
  for (const k of ['article', 'inciso'] as const) {
    if (o[k] !== undefined && (typeof o[k] !== 'string' || !/^\d{1,6}$/.test(o[k])))
      errors.push({ path: r.path(k), code: 'invalid_format', message: 'must be 1 to 6 digits (a string)' });
  }
  const institution = code<InstitucionExoneracion>(
    errors,
    r.path('institution'),
    o.institution,
    INSTITUCIONES_EXONERACION,
    'NombreInstitucion',
  );
  const institutionOther = checkText(
    errors,
    r.path('institution_other'),
    o.institution_other,
    { element: 'NombreInstitucionOtros', min: 5, max: 160 },
    institution === '99',
  );
  const when = parseDocumentDate(errors, r.path('issued_at'), o.issued_at, now, {
    code: 'exoneration_after_document',
    message:
      'la fecha de emisión del documento de exoneración (FechaEmisionEX) es posterior a la del ' +
      'comprobante, que se fecha al numerarlo (the exoneration is dated after the document, which ' +
      'is dated when it is numbered)',
  });
  const issuedAt = when ? when.toISOString() : null;
  const rate = checkDecimal(errors, r.path('rate'), o.rate, RATE);
  if (errors.length > before || !docType || !institution || number === null || !issuedAt || rate === null)
    return undefined;
  return {
    docType,
    ...(docTypeOther !== null ? { docTypeOther } : {}),
    number,
    ...(typeof o.article === 'string' ? { article: o.article } : {}),
    ...(typeof o.inciso === 'string' ? { inciso: o.inciso } : {}),
    institution,
    ...(institutionOther !== null ? { institutionOther } : {}),
    issuedAt,
    rate,
  };
}

const CHARGE_FIELDS = ['code', 'code_other', 'detail', 'percent', 'amount', 'third_party'] as const;
const THIRD_PARTY_FIELDS = ['id_type', 'id_number', 'name'] as const;

/** The third party a charge is collected for (NombreTercero and its identification). */
function parseThirdParty(errors: FieldError[], path: string, raw: unknown): OtherChargeRequest['thirdParty'] {
  const t = readObject(errors, path, raw, THIRD_PARTY_FIELDS, 'a third party');
  if (!t) return undefined;
  const name = checkText(
    errors,
    t.path('name'),
    t.values.name,
    { element: 'NombreTercero', min: 5, max: 100 },
    true,
  );
  const rawId = t.values.id_number;
  const rawType = t.values.id_type;
  if (typeof rawId !== 'string') {
    errors.push({ path: t.path('id_number'), code: 'required', message: 'is required (the cédula)' });
  } else if (rawType !== undefined && typeof rawType !== 'string') {
    errors.push({ path: t.path('id_type'), code: 'invalid_type', message: 'must be a string' });
  } else {
    const id = resolveIdentification(rawId, rawType as string | undefined, { typeField: 'id_type' });
    if (!id.ok) errors.push({ path: t.path('id_number'), code: id.code, message: id.message });
    else if (name !== null) return { idType: id.type, idNumber: id.number, name };
  }
  return undefined;
}

/** The body's `other_charges` (OtrosCargos 0..15). */
export function parseOtherCharges(errors: FieldError[], base: string, raw: unknown): OtherChargeRequest[] {
  if (!Array.isArray(raw) || raw.length > 15) {
    errors.push({
      path: base,
      code: 'invalid_value',
      message: 'must be a list of up to 15 charges (OtrosCargos)',
    });
    return [];
  }
  const out: OtherChargeRequest[] = [];
  raw.forEach((item, k) => {
    const p = `${base}/${k}`;
    const before = errors.length;
    const r = readObject(errors, p, item, CHARGE_FIELDS, 'an other charge');
    if (!r) return;
    const o = r.values;
    const c = code<TipoOtroCargo>(errors, r.path('code'), o.code, TIPOS_OTROS_CARGOS, 'TipoDocumentoOC');
    const codeOther = checkText(
      errors,
      r.path('code_other'),
      o.code_other,
      { element: 'TipoDocumentoOTROS', min: 5, max: 100 },
      c === '99',
    );
    const detail = checkText(errors, r.path('detail'), o.detail, {
      element: 'OtrosCargos/Detalle',
      min: 1,
      max: 160,
    });
    const amount = o.amount === undefined ? null : checkDecimal(errors, r.path('amount'), o.amount, MONEY);
    const percent =
      o.percent === undefined ? null : checkDecimal(errors, r.path('percent'), o.percent, PERCENT);
    if (percent !== null && Number(percent) > 100)
      errors.push({ path: r.path('percent'), code: 'out_of_range', message: 'must be at most 100' });
    if (o.amount !== undefined && o.percent !== undefined)
      errors.push({ path: p, code: 'invalid_charge', message: 'give amount or percent, not both' });
    if (o.amount === undefined && o.percent === undefined && c !== '06')
      errors.push({
        path: p,
        code: 'invalid_charge',
        message: 'give amount, or percent of the net sale (only code 06 defaults to 10 %)',
      });
    let thirdParty: OtherChargeRequest['thirdParty'];
    if (o.third_party !== undefined)
      thirdParty = parseThirdParty(errors, r.path('third_party'), o.third_party);
    else if (c === '04') {
      errors.push({
        path: r.path('third_party'),
        code: 'required',
        message: 'a charge collected for a third party (04) names it: id_number and name',
      });
    }
    if (errors.length > before || !c) return;
    out.push({
      code: c,
      ...(codeOther !== null ? { codeOther } : {}),
      ...(detail !== null ? { detail } : {}),
      ...(percent !== null ? { percent } : {}),
      ...(amount !== null ? { amount } : {}),
      ...(thirdParty ? { thirdParty } : {}),
    });
  });
  return out;
}

const PAYMENT_FIELDS = ['method', 'amount', 'other'] as const;

/** The body's `payments` (MedioPago 1..4): method, amount (all but at most one), other for otros. */
export function parsePayments(errors: FieldError[], base: string, raw: unknown): PaymentRequest[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > 4) {
    errors.push({
      path: base,
      code: 'invalid_value',
      message: 'must be a list of 1 to 4 payments (MedioPago)',
    });
    return [];
  }
  const out: PaymentRequest[] = [];
  raw.forEach((item, k) => {
    const p = `${base}/${k}`;
    const before = errors.length;
    const r = readObject(errors, p, item, PAYMENT_FIELDS, 'a payment');
    if (!r) return;
    const o = r.values;
    let method: PaymentMethodName | null = null;
    if (typeof o.method !== 'string' || !isPaymentMethod(o.method))
      errors.push({
        path: r.path('method'),
        code: o.method === undefined ? 'required' : 'invalid_value',
        message: `must be one of ${Object.keys(PAYMENT_METHODS).join(', ')}`,
      });
    else method = o.method;
    const amount = o.amount === undefined ? null : checkDecimal(errors, r.path('amount'), o.amount, MONEY);
    const other = checkText(errors, r.path('other'), o.other, TEXT_FACETS.medioPagoOtros, method === 'otros');
    if (method !== 'otros' && o.other !== undefined)
      errors.push({
        path: r.path('other'),
        code: 'not_applicable',
        message: 'applies only to method otros (99)',
      });
    if (errors.length > before || !method) return;
    out.push({ method, amount, other });
  });
  if (raw.length > 1 && raw.filter((x) => (x as Obj | null)?.amount === undefined).length > 1)
    errors.push({
      path: base,
      code: 'payment_amount_required',
      message: 'with several payments every one but at most one gives its amount (that one takes the rest)',
    });
  return out;
}

const OTHER_TAX_FIELDS = [
  'code',
  'code_other',
  'rate',
  'amount',
  'unit_quantity',
  'alcohol_percent',
  'consumption_volume',
  'tax_per_unit',
] as const;

/**
 * A line's `taxes` beside its IVA (Impuesto 02-06, 12, 99). Only the form is checked here (a list
 * of objects with known keys, decimals as text); which fields each code needs and the amounts are
 * domain/other-taxes.ts's, whose paths (`otherTaxes/k/unitQuantity`) the query maps back.
 */
export function parseOtherTaxes(errors: FieldError[], base: string, raw: unknown): OtherTaxInput[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > MAX_OTHER_TAXES) {
    errors.push({
      path: base,
      code: 'invalid_value',
      message: `must be a list of 1 to ${MAX_OTHER_TAXES} taxes (Impuesto 02-06, 12, 99)`,
    });
    return [];
  }
  const out: OtherTaxInput[] = [];
  raw.forEach((t, k) => {
    const r = readObject(errors, `${base}/${k}`, t, OTHER_TAX_FIELDS, 'a tax');
    if (!r) return;
    const tax: Record<string, unknown> = {};
    for (const [f, v] of Object.entries(r.values)) {
      // Numbers in plain notation are taken as their decimal text, like the line's qty.
      tax[camel(f)] = typeof v === 'number' && Number.isFinite(v) && !/e/i.test(String(v)) ? String(v) : v;
    }
    if (tax.code === undefined) {
      errors.push({ path: r.path('code'), code: 'required', message: 'is required (02-06, 12, 99)' });
      return;
    }
    out.push(tax as unknown as OtherTaxInput);
  });
  return out;
}

/** The IVA and tax fields of a request line beside the service's IVA rate. */
export interface LineTaxFields {
  taxes?: OtherTaxInput[];
  taxCode?: IvaTaxCode;
  ivaFactor?: string;
  taxableBase?: string;
  ivaCollectedAtFactory?: '01' | '02';
  assumedTax?: string;
  ivaReturned?: boolean;
}

export const LINE_TAX_FIELDS = [
  'taxes',
  'tax_code',
  'iva_factor',
  'taxable_base',
  'iva_collected_at_factory',
  'assumed_tax',
  'iva_returned',
] as const;

/** FactorCalculoIVA: decimal 5,4. */
const FACTOR = { intDigits: 1, fractionDigits: 4, positive: true, code: 'invalid_factor', what: 'factor' };
const BASE = { intDigits: 13, fractionDigits: 5, positive: false, code: 'invalid_amount', what: 'amount' };

export function parseLineTaxFields(errors: FieldError[], base: string, line: Obj): LineTaxFields {
  const out: LineTaxFields = {};
  if (line.taxes !== undefined) out.taxes = parseOtherTaxes(errors, `${base}/taxes`, line.taxes);
  const tc = line.tax_code;
  if (tc !== undefined) {
    if (typeof tc === 'string' && isIvaTaxCode(tc)) out.taxCode = tc;
    else
      errors.push({
        path: `${base}/tax_code`,
        code: 'unknown_code',
        message: `the line's IVA is 01 (IVA), 07 (IVA cálculo especial) or 08 (IVA bienes usados); other taxes go in taxes, got "${String(tc)}"`,
      });
  }
  const dec = (key: 'iva_factor' | 'taxable_base' | 'assumed_tax', rule: typeof BASE) =>
    line[key] === undefined ? null : checkDecimal(errors, `${base}/${key}`, line[key], rule);
  const factor = dec('iva_factor', FACTOR);
  if (factor !== null) out.ivaFactor = factor;
  const taxable = dec('taxable_base', BASE);
  if (taxable !== null) out.taxableBase = taxable;
  const assumed = dec('assumed_tax', BASE);
  if (assumed !== null) out.assumedTax = assumed;
  const f = line.iva_collected_at_factory;
  if (f !== undefined) {
    if (f === '01' || f === '02') out.ivaCollectedAtFactory = f;
    else
      errors.push({
        path: `${base}/iva_collected_at_factory`,
        code: 'unknown_code',
        message: 'IVACobradoFabrica: 01 (IVA cobrado a nivel de fábrica) or 02 (exento, cobrado en fábrica)',
      });
  }
  const ret = line.iva_returned;
  if (ret !== undefined) {
    if (typeof ret === 'boolean') out.ivaReturned = ret;
    else
      errors.push({ path: `${base}/iva_returned`, code: 'invalid_type', message: 'must be true or false' });
  }
  return out;
}

/**
 * A service's default `taxes` (what its lines carry unless they state their own), checked as a
 * factura's line would be; error paths are `/taxes/k/field`.
 */
export function parseServiceTaxes(errors: FieldError[], raw: unknown): OtherTaxInput[] {
  const before = errors.length;
  const taxes = parseOtherTaxes(errors, '/taxes', raw);
  if (errors.length > before) return [];
  validateOtherTaxes(
    (path, code, message) =>
      errors.push({
        path: path.replace(/^\/otherTaxes/, '/taxes').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
        code,
        message,
      }),
    '',
    taxes,
    '01',
  );
  return taxes;
}
