// Normalises a create-invoice body of either request shape into one internal form, with a field
// error for everything wrong: a mix of shapes, quantities and prices that are not decimals of the
// allowed precision, unknown conditions. Lookups (client, services) happen later, in the query.
import type { FieldError } from './errors.ts';
import { parseRef, type ResourceRef } from './ids.ts';
import { isPaymentMethod, resolveCondition, type PaymentMethodName } from './sale-terms.ts';
import type { CodigoDescuento, CondicionVenta } from './codes.ts';

export interface DiscountRequest {
  amount?: string;
  percent?: string;
  code: CodigoDescuento;
  codeOther?: string;
  nature?: string;
}

export interface LineRequest {
  serviceRef: ResourceRef;
  servicePath: string;
  quantity: string;
  unitPrice: string | null;
  description?: string;
  discount?: DiscountRequest;
}

export interface InvoiceRequest {
  shape: 'A' | 'B';
  clientRef: ResourceRef;
  clientPath: string;
  lines: LineRequest[];
  condition: { code: CondicionVenta; creditDays: number | null; name: string; other: string | null };
  currency: string | null;
  exchangeRate: string | null;
  paymentMethod: PaymentMethodName | null;
  branch: string | null;
  terminal: string | null;
  externalId: string | null;
  send: boolean;
  metadata: Record<string, string>;
  /** Extra addresses the accepted document is emailed to, beside the client's. */
  emailRecipients: string[];
}

/**
 * Optional fields outside the reference's two shapes: either spelling is accepted in either shape
 * (README documents the snake_case ones), but not both spellings of one field in one request.
 */
const EITHER_SPELLING = [
  ['credit_days', 'creditDays'],
  ['exchange_rate', 'exchangeRate'],
  ['payment_method', 'paymentMethod'],
  ['external_id', 'externalId'],
] as const;
const LINE_A = ['service_id', 'unit_price'] as const;
const LINE_B = ['serviceId', 'price'] as const;

const QTY_RE = /^\d{1,13}(\.\d{1,3})?$/;
const PRICE_RE = /^\d{1,13}(\.\d{1,5})?$/;

function decimalText(v: unknown): string | null {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

type Body = Record<string, unknown> & { lines: Record<string, unknown>[] };

export function parseInvoiceRequest(
  body: Body,
): { ok: true; value: InvoiceRequest } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const err = (path: string, code: string, message: string) => errors.push({ path, code, message });

  // 1. The shape: decided by how the client is named, then enforced everywhere.
  let shape: 'A' | 'B';
  if (body.client_id !== undefined && body.clientId !== undefined) {
    err('/clientId', 'mixed_shapes', 'give client_id (shape A) or clientId (shape B), not both');
    shape = 'A';
  } else if (body.clientId !== undefined) shape = 'B';
  else {
    shape = 'A';
    if (body.client_id === undefined)
      err('/client_id', 'required', 'is required (client_id, or clientId in shape B)');
  }
  for (const [snake, camel] of EITHER_SPELLING) {
    if (body[snake] !== undefined && body[camel] !== undefined)
      err(`/${camel}`, 'conflicting_fields', `give ${snake} or ${camel}, not both: they are one field`);
  }
  /** The value of an optional field under whichever spelling was given, and that spelling's path. */
  const pick = <T>(snake: string, camel: string): T | undefined =>
    (body[snake] !== undefined ? body[snake] : body[camel]) as T | undefined;
  const pathOf = (snake: string, camel: string) =>
    body[snake] === undefined && body[camel] !== undefined
      ? `/${camel}`
      : `/${shape === 'A' || body[snake] !== undefined ? snake : camel}`;

  // 2. The client.
  const clientKey = shape === 'A' ? 'client_id' : 'clientId';
  const rawClient = body[clientKey];
  let clientRef: ResourceRef | null = null;
  if (typeof rawClient === 'string') {
    clientRef = parseRef('client', rawClient);
    if (!clientRef) err(`/${clientKey}`, 'invalid_format', 'must be a cli_ id or a client UUID');
  } else if (rawClient !== undefined) err(`/${clientKey}`, 'invalid_type', 'must be a string');

  // 3. Lines.
  const lines: LineRequest[] = [];
  body.lines.forEach((line, i) => {
    const base = `/lines/${i}`;
    for (const k of shape === 'A' ? LINE_B : LINE_A) {
      if (line[k] !== undefined)
        err(`${base}/${k}`, 'mixed_shapes', `${k} belongs to the other request shape`);
    }
    const sKey = shape === 'A' ? 'service_id' : 'serviceId';
    const rawService = line[sKey];
    let serviceRef: ResourceRef | null = null;
    if (typeof rawService !== 'string') err(`${base}/${sKey}`, 'required', 'is required');
    else {
      serviceRef = parseRef('service', rawService);
      if (!serviceRef) err(`${base}/${sKey}`, 'invalid_format', 'must be a srv_ id or a service UUID');
    }
    const qty = decimalText(line.qty);
    if (qty === null || !QTY_RE.test(qty))
      err(`${base}/qty`, 'invalid_quantity', 'must be a decimal with up to 3 decimals');
    else if (Number(qty) <= 0) err(`${base}/qty`, 'out_of_range', 'must be greater than 0');
    const pKey = shape === 'A' ? 'unit_price' : 'price';
    let unitPrice: string | null = null;
    if (line[pKey] !== undefined) {
      unitPrice = decimalText(line[pKey]);
      if (unitPrice === null || !PRICE_RE.test(unitPrice)) {
        err(`${base}/${pKey}`, 'invalid_price', 'must be a non-negative decimal with up to 5 decimals');
        unitPrice = null;
      }
    }
    const d = line.discount as Record<string, string> | undefined;
    let discount: DiscountRequest | undefined;
    if (d) {
      if ((d.amount === undefined) === (d.percent === undefined)) {
        err(`${base}/discount`, 'invalid_discount', 'give exactly one of amount or percent');
      }
      discount = { code: (d.code ?? '07') as CodigoDescuento };
      if (d.amount !== undefined) discount.amount = d.amount;
      if (d.percent !== undefined) discount.percent = d.percent;
      if (d.code_other !== undefined) discount.codeOther = d.code_other;
      if (d.nature !== undefined) discount.nature = d.nature;
    }
    // Detalle takes 3 to 200 characters: the schema counts them before surrounding spaces go.
    if (typeof line.description === 'string' && line.description.trim().length < 3)
      err(`${base}/description`, 'too_short', 'must have at least 3 characters besides surrounding spaces');
    if (serviceRef && qty !== null) {
      lines.push({
        serviceRef,
        servicePath: `${base}/${sKey}`,
        quantity: qty,
        unitPrice,
        ...(typeof line.description === 'string' ? { description: line.description.trim() } : {}),
        ...(discount ? { discount } : {}),
      });
    }
  });

  // 4. Terms.
  const creditDays = pick<number>('credit_days', 'creditDays') ?? null;
  const cond = resolveCondition(typeof body.condition === 'string' ? body.condition : 'contado', creditDays);
  let condition: InvoiceRequest['condition'] = { code: '01', creditDays: null, name: 'contado', other: null };
  if (!cond.ok) err('/condition', 'invalid_condition', cond.message);
  else {
    condition = {
      code: cond.code,
      creditDays: cond.creditDays,
      name: cond.name,
      other: (body.condition_other as string) ?? null,
    };
    if (cond.code === '99' && !condition.other)
      err('/condition_other', 'required', 'is required for condition otros (99)');
  }
  const rawRate = pick<unknown>('exchange_rate', 'exchangeRate');
  let exchangeRate: string | null = null;
  if (rawRate !== undefined) {
    exchangeRate = decimalText(rawRate);
    if (exchangeRate === null || !PRICE_RE.test(exchangeRate) || Number(exchangeRate) <= 0) {
      err(pathOf('exchange_rate', 'exchangeRate'), 'invalid_exchange_rate', 'must be a positive decimal');
      exchangeRate = null;
    }
  }
  const currency = (body.currency as string | undefined) ?? null;
  if (currency && currency !== 'CRC' && exchangeRate === null && rawRate === undefined) {
    err(pathOf('exchange_rate', 'exchangeRate'), 'required', `is required for currency ${currency}`);
  }
  if (currency === 'CRC' && exchangeRate !== null && Number(exchangeRate) !== 1) {
    err(pathOf('exchange_rate', 'exchangeRate'), 'invalid_exchange_rate', 'must be 1 for CRC');
  }
  const pm = pick<string>('payment_method', 'paymentMethod');

  if (errors.length || !clientRef) return { ok: false, errors };
  return {
    ok: true,
    value: {
      shape,
      clientRef,
      clientPath: `/${clientKey}`,
      lines,
      condition,
      currency,
      exchangeRate,
      paymentMethod: pm && isPaymentMethod(pm) ? pm : null,
      branch: (body.branch as string | undefined) ?? null,
      terminal: (body.terminal as string | undefined) ?? null,
      externalId: pick<string>('external_id', 'externalId') ?? null,
      send: body.send !== false,
      metadata: (body.metadata as Record<string, string> | undefined) ?? {},
      emailRecipients: [...new Set((body.email_recipients as string[] | undefined) ?? [])],
    },
  };
}
