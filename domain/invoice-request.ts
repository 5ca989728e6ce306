// Normalises a create-invoice body of either request shape into one internal form, with a field
// error for everything wrong: a mix of shapes, quantities and prices that are not decimals of the
// allowed precision, unknown conditions, and every text that would break its XSD element's facets
// (domain/field-rules.ts). It is the one validation path of the API's single create, batch items and
// the command-line tool, and runs before any number is reserved; it checks the types itself, so a
// body that never went through the API's JSON schema (the command-line tool's) gets the same
// answer. Lookups (client, services) happen later, in the query.
import type { FieldError } from './errors.ts';
import { parseId, parseRef, type ResourceRef } from './ids.ts';
import { isPaymentMethod, PAYMENT_METHODS, resolveCondition, type PaymentMethodName } from './sale-terms.ts';
import type { CondicionVenta } from './codes.ts';
import { documentTypes, type DocumentTypeDescriptor } from './document-types/index.ts';
import { checkDecimal, checkText, TEXT_FACETS } from './field-rules.ts';
import {
  LINE_TAX_FIELDS,
  parseLineTaxFields,
  type LineTaxFields,
  parseDiscount,
  parseDiscounts,
  parseExoneration,
  parseOtherCharges,
  parsePayments,
  type DiscountRequest,
  type ExonerationRequest,
  type OtherChargeRequest,
  type PaymentRequest,
} from './invoice-request-fields.ts';

export type { DiscountRequest, ExonerationRequest, OtherChargeRequest, PaymentRequest };

export interface LineRequest extends LineTaxFields {
  serviceRef: ResourceRef;
  servicePath: string;
  quantity: string;
  unitPrice: string | null;
  description?: string;
  /** Descuento 0..5 (`discount` or `discounts` in the body). */
  discounts?: DiscountRequest[];
  /** How the body spelled the discounts (for error paths found later). */
  discountKey?: 'discount' | 'discounts';
  exoneration?: ExonerationRequest;
  /** PartidaArancelaria (12 digits), on the lines of a factura de exportación only. */
  tariffCode?: string;
}

/**
 * The code of a type issued through POST /api/v1/invoices and read by this parser: a type whose
 * descriptor's request form is `invoice` (domain/document-types/: factura 01, tiquete 04 with an
 * optional receptor, factura de exportación 09 with a foreign one). Notes have their own endpoints.
 */
export type IssuedDocumentType = string;

/** The types this parser reads, in registry order. */
const invoiceTypes = (): DocumentTypeDescriptor[] =>
  documentTypes().filter((d) => d.request?.form === 'invoice');

export interface InvoiceRequest {
  shape: 'A' | 'B';
  documentType: IssuedDocumentType;
  /** The receptor; null only on a type whose receptor is optional (a tiquete sold to no one). */
  clientRef: ResourceRef | null;
  clientPath: string;
  lines: LineRequest[];
  condition: { code: CondicionVenta; creditDays: number | null; name: string; other: string | null };
  currency: string | null;
  exchangeRate: string | null;
  /** How the body spelled the exchange rate (for errors found once the currency is known). */
  exchangeRateKey: 'exchange_rate' | 'exchangeRate';
  /**
   * Where exchangeRate came from when the service filled it (a dollar document without one takes
   * Hacienda's reference sell rate of the day); null when the request gave it.
   */
  exchangeRateSource?: string | null;
  paymentMethod: PaymentMethodName | null;
  /** MedioPagoOtros: the description payment method `otros` (99) needs. */
  paymentMethodOther: string | null;
  /** Several payment methods with their amounts (MedioPago 1..4); null: `payment_method`. */
  payments: PaymentRequest[] | null;
  /** OtrosCargos, document level. */
  otherCharges: OtherChargeRequest[];
  otherChargesKey: 'other_charges' | 'otherCharges';
  /**
   * A cash sale (contado) is paid when it is issued: settled by one payment (the invoice's payment
   * method) when its issue entry is booked. `paid_at_issue: false` leaves it unpaid, to be paid
   * through the payments API; other conditions are never paid at issue.
   */
  paidAtIssue: boolean;
  branch: string | null;
  terminal: string | null;
  externalId: string | null;
  send: boolean;
  metadata: Record<string, string>;
  /** Extra addresses the accepted document is emailed to, beside the client's. */
  emailRecipients: string[];
  /** The rejected invoice this one replaces (its id), null for a new sale. */
  replaces: number | null;
}

/**
 * Optional fields outside the reference's two shapes: either spelling is accepted in either shape
 * (README documents the snake_case ones), but not both spellings of one field in one request.
 */
const EITHER_SPELLING = [
  ['credit_days', 'creditDays'],
  ['exchange_rate', 'exchangeRate'],
  ['payment_method', 'paymentMethod'],
  ['payment_method_other', 'paymentMethodOther'],
  ['external_id', 'externalId'],
  ['paid_at_issue', 'paidAtIssue'],
  ['document_type', 'documentType'],
  ['other_charges', 'otherCharges'],
] as const;
const LINE_A = ['service_id', 'unit_price'] as const;
const LINE_B = ['serviceId', 'price'] as const;

/** Cantidad: xs:decimal totalDigits 16, fractionDigits 3 (13 integer digits). */
const QTY = { intDigits: 13, fractionDigits: 3, positive: true, code: 'invalid_quantity', what: 'qty' };
/** PrecioUnitario, TipoCambio: DecimalDineroType (13 integer digits, 5 decimals). */
const PRICE = { intDigits: 13, fractionDigits: 5, positive: false, code: 'invalid_price', what: 'price' };
const RATE = {
  intDigits: 13,
  fractionDigits: 5,
  positive: true,
  code: 'invalid_exchange_rate',
  what: 'exchange rate',
};

type Body = Record<string, unknown>;

const BODY_FIELDS: ReadonlySet<string> = new Set([
  'client_id',
  'clientId',
  ...EITHER_SPELLING.flat(),
  'email_recipients',
  'lines',
  'condition',
  'condition_other',
  'currency',
  'branch',
  'terminal',
  'send',
  'metadata',
  'payments',
]);
const LINE_FIELDS: ReadonlySet<string> = new Set([
  ...LINE_A,
  ...LINE_B,
  'qty',
  'description',
  'discount',
  'discounts',
  'exoneration',
  'tariff_code',
  ...LINE_TAX_FIELDS,
]);

type Err = (path: string, code: string, message: string) => void;
type Shape = 'A' | 'B';
/** The spelling given of an optional field (the shape's own when neither or both are given). */
type KeyOf = (snake: string, camel: string) => string;

/** The shape, decided by how the client is named, then enforced everywhere; unknown fields. */
function parseShape(body: Body, err: Err, allowReplaces: boolean): { shape: Shape; keyOf: KeyOf } {
  let shape: Shape;
  if (body.client_id !== undefined && body.clientId !== undefined) {
    err('/clientId', 'mixed_shapes', 'give client_id (shape A) or clientId (shape B), not both');
    shape = 'A';
  } else if (body.clientId !== undefined) shape = 'B';
  else shape = 'A';
  for (const [snake, camel] of EITHER_SPELLING) {
    if (body[snake] !== undefined && body[camel] !== undefined)
      err(`/${camel}`, 'conflicting_fields', `give ${snake} or ${camel}, not both: they are one field`);
  }
  const keyOf: KeyOf = (snake, camel) =>
    body[snake] === undefined && body[camel] !== undefined
      ? camel
      : body[camel] === undefined && body[snake] !== undefined
        ? snake
        : shape === 'A'
          ? snake
          : camel;
  for (const k of Object.keys(body)) {
    if (!BODY_FIELDS.has(k) && !(k === 'replaces' && allowReplaces))
      err(`/${k}`, 'unknown_field', 'is not a field of an invoice');
  }
  return { shape, keyOf };
}

/** The document type (a factura when absent), then the client (required unless the type says not). */
function parseTypeAndClient(body: Body, shape: Shape, keyOf: KeyOf, err: Err) {
  const dtKey = keyOf('document_type', 'documentType');
  const rawType = body[dtKey];
  const types = invoiceTypes();
  let type = types[0]!;
  if (rawType !== undefined) {
    const named = types.find((t) => t.code === rawType);
    if (named) type = named;
    else
      err(
        `/${dtKey}`,
        'invalid_document_type',
        `must be one of ${types
          .map((t) => `${t.code} (${t.name.es.toLowerCase()})`)
          .join(', ')}; credit and debit notes have their own endpoints`,
      );
  }
  const receptor = type.request!.receptor;
  if (body.client_id === undefined && body.clientId === undefined && receptor !== 'optional')
    err(
      '/client_id',
      'required',
      receptor === 'foreign'
        ? `is required: ${type.request!.article} names its foreign receptor (client_id, or clientId in shape B)`
        : `is required (client_id, or clientId in shape B); only ${types
            .filter((t) => t.request!.receptor === 'optional')
            .map((t) => `${t.request!.article} (document_type ${t.code})`)
            .join(' or ')} may have no receptor`,
    );
  const clientKey = shape === 'A' ? 'client_id' : 'clientId';
  const rawClient = body[clientKey];
  let clientRef: ResourceRef | null = null;
  if (typeof rawClient === 'string') {
    clientRef = parseRef('client', rawClient);
    if (!clientRef) err(`/${clientKey}`, 'invalid_format', 'must be a cli_ id or a client UUID');
  } else if (rawClient !== undefined) err(`/${clientKey}`, 'invalid_type', 'must be a string');
  return { type, clientRef, clientKey };
}

/** A line's discounts: `discount` (one) or `discounts` (a list). */
function lineDiscounts(errors: FieldError[], base: string, line: Record<string, unknown>) {
  if (line.discount !== undefined && line.discounts !== undefined) {
    errors.push({
      path: `${base}/discounts`,
      code: 'conflicting_fields',
      message: 'give discount (one) or discounts (a list), not both',
    });
    return undefined;
  }
  if (line.discount !== undefined) {
    const one = parseDiscount(errors, `${base}/discount`, line.discount);
    return one ? [one] : undefined;
  }
  if (line.discounts !== undefined) return parseDiscounts(errors, `${base}/discounts`, line.discounts);
  return undefined;
}

/** A line's PartidaArancelaria, on the types whose lines have one. */
function lineTariff(base: string, tariff: unknown, type: DocumentTypeDescriptor, err: Err) {
  if (tariff === undefined) return undefined;
  if (!type.request!.tariffCodes) {
    const owners = documentTypes().filter((t) => t.request?.tariffCodes);
    err(
      `${base}/tariff_code`,
      'not_applicable',
      `PartidaArancelaria belongs to ${owners.map((t) => `${t.request!.article} (${t.code})`).join(' or ')}`,
    );
  } else if (typeof tariff !== 'string' || !/^\d{12}$/.test(tariff))
    err(`${base}/tariff_code`, 'invalid_format', 'must be a 12-digit PartidaArancelaria');
  else return tariff;
  return undefined;
}

interface LineContext {
  shape: Shape;
  type: DocumentTypeDescriptor;
  errors: FieldError[];
  err: Err;
  now: Date;
}

/** One line (pushed when its service and quantity are readable). */
function parseLine(raw: unknown, i: number, c: LineContext, lines: LineRequest[]): void {
  const { shape, errors, err } = c;
  const base = `/lines/${i}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    err(base, 'invalid_type', 'must be an object');
    return;
  }
  const line = raw as Record<string, unknown>;
  for (const k of Object.keys(line)) {
    if (!LINE_FIELDS.has(k)) err(`${base}/${k}`, 'unknown_field', 'is not a field of an invoice line');
  }
  for (const k of shape === 'A' ? LINE_B : LINE_A) {
    if (line[k] !== undefined) err(`${base}/${k}`, 'mixed_shapes', `${k} belongs to the other request shape`);
  }
  const sKey = shape === 'A' ? 'service_id' : 'serviceId';
  const rawService = line[sKey];
  let serviceRef: ResourceRef | null = null;
  if (typeof rawService !== 'string') err(`${base}/${sKey}`, 'required', 'is required');
  else {
    serviceRef = parseRef('service', rawService);
    if (!serviceRef) err(`${base}/${sKey}`, 'invalid_format', 'must be a srv_ id or a service UUID');
  }
  const qty = checkDecimal(errors, `${base}/qty`, line.qty, QTY);
  const pKey = shape === 'A' ? 'unit_price' : 'price';
  const unitPrice =
    line[pKey] === undefined ? null : checkDecimal(errors, `${base}/${pKey}`, line[pKey], PRICE);
  const discounts = lineDiscounts(errors, base, line);
  const exoneration =
    line.exoneration === undefined
      ? undefined
      : parseExoneration(errors, `${base}/exoneration`, line.exoneration, c.now);
  const taxFields = parseLineTaxFields(errors, base, line);
  const description = checkText(errors, `${base}/description`, line.description, TEXT_FACETS.detalle);
  const tariff = lineTariff(base, line.tariff_code, c.type, err);
  if (!serviceRef || qty === null) return;
  lines.push({
    serviceRef,
    servicePath: `${base}/${sKey}`,
    quantity: qty,
    unitPrice,
    ...(description !== null ? { description } : {}),
    ...(discounts?.length
      ? { discounts, discountKey: line.discount !== undefined ? 'discount' : 'discounts' }
      : {}),
    ...(exoneration ? { exoneration } : {}),
    ...taxFields,
    ...(tariff !== undefined ? { tariffCode: tariff } : {}),
  });
}

function parseLines(body: Body, c: LineContext): LineRequest[] {
  const lines: LineRequest[] = [];
  const rawLines: unknown = body.lines;
  if (!Array.isArray(rawLines) || rawLines.length < 1 || rawLines.length > 1000)
    c.err('/lines', 'invalid_value', 'must be a list of 1 to 1000 lines (LineaDetalle)');
  (Array.isArray(rawLines) ? rawLines : []).forEach((raw: unknown, i) => parseLine(raw, i, c, lines));
  return lines;
}

/** PlazoCredito and CondicionVenta (one the type accepts), with CondicionVentaOtros. */
function parseTerms(body: Body, keyOf: KeyOf, type: DocumentTypeDescriptor, errors: FieldError[], err: Err) {
  const daysKey = keyOf('credit_days', 'creditDays');
  const rawDays = body[daysKey];
  let creditDays: number | null = null;
  if (rawDays !== undefined) {
    if (typeof rawDays !== 'number' || !Number.isInteger(rawDays) || rawDays < 1 || rawDays > 99999)
      err(`/${daysKey}`, 'out_of_range', 'PlazoCredito must be a whole number of days, 1 to 99999');
    else creditDays = rawDays;
  }
  if (body.condition !== undefined && typeof body.condition !== 'string')
    err('/condition', 'invalid_type', 'must be a string');
  const cond = resolveCondition(typeof body.condition === 'string' ? body.condition : 'contado', creditDays);
  let condition: InvoiceRequest['condition'] = { code: '01', creditDays: null, name: 'contado', other: null };
  const other = checkText(errors, '/condition_other', body.condition_other, TEXT_FACETS.condicionVentaOtros);
  if (!cond.ok)
    err(
      rawDays !== undefined && /credit_days/.test(cond.message) ? `/${daysKey}` : '/condition',
      'invalid_condition',
      cond.message,
    );
  else if (!type.conditions.includes(cond.code))
    err(
      '/condition',
      'invalid_condition',
      `CondicionVenta ${cond.code} is not valid in a ${type.name.es.toLowerCase()}`,
    );
  else {
    condition = { code: cond.code, creditDays: cond.creditDays, name: cond.name, other };
    if (cond.code === '99' && body.condition_other === undefined)
      err(
        '/condition_other',
        'required',
        'is required for condition otros (99): CondicionVentaOtros, 5 to 100 characters',
      );
    if (cond.code !== '99' && body.condition_other !== undefined)
      err('/condition_other', 'not_applicable', 'applies only to condition otros (99)');
  }
  return { condition, conditionOk: cond.ok && cond.code };
}

/** CodigoMoneda and TipoCambio. */
function parseCurrency(body: Body, keyOf: KeyOf, errors: FieldError[], err: Err) {
  const rateKey = keyOf('exchange_rate', 'exchangeRate');
  const rawRate = body[rateKey];
  const exchangeRate = rawRate === undefined ? null : checkDecimal(errors, `/${rateKey}`, rawRate, RATE);
  let currency: string | null = null;
  if (body.currency !== undefined) {
    if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency))
      err('/currency', 'invalid_format', 'must be an ISO 4217 code of 3 capital letters');
    else currency = body.currency;
  }
  // A dollar document without a rate takes the day's reference sell rate (operations/public-data.ts).
  if (currency && currency !== 'CRC' && currency !== 'USD' && rawRate === undefined)
    err(`/${rateKey}`, 'required', `is required for currency ${currency}`);
  if (currency === 'CRC' && exchangeRate !== null && Number(exchangeRate) !== 1)
    err(`/${rateKey}`, 'invalid_exchange_rate', 'must be 1 for CRC');
  return { currency, exchangeRate, rateKey: rateKey as 'exchange_rate' | 'exchangeRate' };
}

/** One payment method (with MedioPagoOtros) or a list of payments. */
function parsePaymentFields(body: Body, keyOf: KeyOf, errors: FieldError[], err: Err) {
  const pmKey = keyOf('payment_method', 'paymentMethod');
  const pmOtherKey = keyOf('payment_method_other', 'paymentMethodOther');
  const pm = body[pmKey];
  let paymentMethod: PaymentMethodName | null = null;
  if (pm !== undefined) {
    if (typeof pm !== 'string' || !isPaymentMethod(pm))
      err(`/${pmKey}`, 'invalid_value', `must be one of ${Object.keys(PAYMENT_METHODS).join(', ')}`);
    else paymentMethod = pm;
  }
  const paymentMethodOther = checkText(
    errors,
    `/${pmOtherKey}`,
    body[pmOtherKey],
    TEXT_FACETS.medioPagoOtros,
  );
  if (paymentMethod === 'otros' && body[pmOtherKey] === undefined)
    err(
      `/${pmOtherKey}`,
      'required',
      'is required for payment method otros (99): MedioPagoOtros, 3 to 100 characters',
    );
  if (paymentMethod !== 'otros' && body[pmOtherKey] !== undefined)
    err(`/${pmOtherKey}`, 'not_applicable', 'applies only to payment method otros (99)');
  let payments: PaymentRequest[] | null = null;
  if (body.payments !== undefined) {
    if (pm !== undefined || body[pmOtherKey] !== undefined)
      err('/payments', 'conflicting_fields', 'give payments (a list) or payment_method, not both');
    payments = parsePayments(errors, '/payments', body.payments);
  }
  return { paymentMethod, paymentMethodOther, payments };
}

const isMetadata = (m: unknown): m is Record<string, string> =>
  m !== null &&
  typeof m === 'object' &&
  !Array.isArray(m) &&
  Object.keys(m).length <= 20 &&
  Object.entries(m).every(([k, v]) => k.length <= 40 && typeof v === 'string' && v.length <= 500);

/** Branch and terminal, paid at issue, external id, send, metadata, email recipients. */
function parseExtras(body: Body, keyOf: KeyOf, condition: string | false, err: Err) {
  for (const [k, re, rule] of [
    ['branch', /^\d{3}$/, '3 digits'],
    ['terminal', /^\d{5}$/, '5 digits'],
  ] as const) {
    if (body[k] !== undefined && (typeof body[k] !== 'string' || !re.test(body[k])))
      err(`/${k}`, 'invalid_format', `must be ${rule}`);
  }
  const paidKey = keyOf('paid_at_issue', 'paidAtIssue');
  const rawPaid = body[paidKey];
  if (rawPaid !== undefined && typeof rawPaid !== 'boolean')
    err(`/${paidKey}`, 'invalid_type', 'must be a boolean');
  else if (rawPaid === true && condition && condition !== '01')
    err(`/${paidKey}`, 'not_applicable', 'only a cash sale (condition contado) is paid at issue');
  const extKey = keyOf('external_id', 'externalId');
  const ext = body[extKey];
  if (ext !== undefined && (typeof ext !== 'string' || ext.length < 1 || ext.length > 255))
    err(`/${extKey}`, 'invalid_format', 'must be a string of 1 to 255 characters');
  if (body.send !== undefined && typeof body.send !== 'boolean')
    err('/send', 'invalid_type', 'must be a boolean');
  if (body.metadata !== undefined && !isMetadata(body.metadata))
    err(
      '/metadata',
      'invalid_value',
      'must map up to 20 keys (≤ 40 characters) to strings (≤ 500 characters)',
    );
  const recipients = body.email_recipients;
  if (recipients !== undefined) {
    if (!Array.isArray(recipients) || recipients.length > 10)
      err('/email_recipients', 'invalid_value', 'must be a list of up to 10 email addresses');
    else
      recipients.forEach((r, i) => {
        if (typeof r !== 'string' || r.length > 160 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(r))
          err(`/email_recipients/${i}`, 'invalid_format', 'must be an email address of up to 160 characters');
      });
  }
  let replaces: number | null = null;
  if (body.replaces !== undefined) {
    replaces = typeof body.replaces === 'string' ? parseId('invoice', body.replaces) : null;
    if (replaces === null) err('/replaces', 'invalid_format', 'must be an inv_ id');
  }
  return {
    rawPaid,
    ext: ext as string | undefined,
    recipients: recipients as string[] | undefined,
    replaces,
  };
}

/**
 * `replaces` (a rejected invoice to replace) is a field of single creates only (`allowReplaces`);
 * the batch API and the command-line tool refuse it as an unknown field. `now` (default: the
 * clock) is when the request is judged: a document is dated when it is numbered, later still.
 */
export function parseInvoiceRequest(
  body: Body,
  opts: { allowReplaces?: boolean; now?: Date } = {},
): { ok: true; value: InvoiceRequest } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const err: Err = (path, code, message) => errors.push({ path, code, message });
  const { shape, keyOf } = parseShape(body, err, opts.allowReplaces === true);
  const { type, clientRef, clientKey } = parseTypeAndClient(body, shape, keyOf, err);
  const lines = parseLines(body, { shape, type, errors, err, now: opts.now ?? new Date() });
  const { condition, conditionOk } = parseTerms(body, keyOf, type, errors, err);
  const money = parseCurrency(body, keyOf, errors, err);
  const pay = parsePaymentFields(body, keyOf, errors, err);
  const chargesKey = keyOf('other_charges', 'otherCharges');
  const otherCharges =
    body[chargesKey] === undefined ? [] : parseOtherCharges(errors, `/${chargesKey}`, body[chargesKey]);
  const extra = parseExtras(body, keyOf, conditionOk, err);
  // Sold to no one (where the type allows it), a sale is settled when issued: nobody could owe it.
  const receptorOptional = type.request!.receptor === 'optional';
  if (!clientRef && receptorOptional && !(condition.code === '01' && extra.rawPaid !== false))
    err(
      '/client_id',
      'client_required',
      `${type.request!.article} without a receptor must be a cash sale paid at issue (condition contado); name a client to sell on other terms`,
    );

  if (errors.length || (!clientRef && !receptorOptional)) return { ok: false, errors };
  return {
    ok: true,
    value: {
      shape,
      documentType: type.code,
      clientRef,
      clientPath: `/${clientKey}`,
      lines,
      condition,
      currency: money.currency,
      exchangeRate: money.exchangeRate,
      exchangeRateKey: money.rateKey,
      ...pay,
      otherCharges,
      otherChargesKey: chargesKey as 'other_charges' | 'otherCharges',
      paidAtIssue: condition.code === '01' && extra.rawPaid !== false,
      branch: (body.branch as string | undefined) ?? null,
      terminal: (body.terminal as string | undefined) ?? null,
      externalId: extra.ext ?? null,
      send: body.send !== false,
      metadata: (body.metadata as Record<string, string> | undefined) ?? {},
      emailRecipients: [...new Set(extra.recipients ?? [])],
      replaces: extra.replaces,
    },
  };
}
