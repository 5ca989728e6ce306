// Turns a normalised create request into a prepared invoice: the client and services are
// looked up (in the caller's company and mode), lines take their CABYS, unit, tax and default
// price from the catalogue, and the totals are computed once with domain/totals.ts. Every
// problem is a field error pointing into the request body.
import type { Knex } from 'knex';
import { Client, Service, type Company } from '../models/index.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import type { PreparedInvoice, StoredLine } from './invoices.ts';
import {
  isCodigoMoneda,
  type CodigoImpuesto,
  type CodigoMoneda,
  type CodigoTarifaIVA,
  type TipoComprobante,
  type UnidadMedida,
} from '../../domain/codes.ts';
import { unknownCabysError } from '../../domain/cabys.ts';
import { DomainValidationError, type FieldError } from '../../domain/errors.ts';
import { computeDocumentTotals, type DocumentTotals } from '../../domain/totals.ts';
import type { DocumentLine } from '../../domain/document-line.ts';
import type { InvoiceRequest } from '../../domain/invoice-request.ts';
import { documentType } from '../../domain/document-types/index.ts';
import { PAYMENT_METHODS } from '../../domain/sale-terms.ts';

/** What the company must have on file before it can issue (not needed for drafts). */
export function missingEmisorData(c: Company): string[] {
  const missing: string[] = [];
  if (!c.activityCode) missing.push('activity_code');
  if (!c.provincia || !c.canton || !c.distrito) missing.push('location (provincia, canton, distrito)');
  if (!c.otrasSenas) missing.push('otras_senas');
  if (!c.emails?.length) missing.push('emails');
  if (c.legalName.length < 5) missing.push('legal_name (5-100 characters)');
  return missing;
}

/** camelCase field names of domain/totals.ts inputs → the request's snake_case spelling. */
const snake = (f: string) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A domain/totals.ts error path in the request's own spelling. */
export function mapTotalsPath(path: string, req: InvoiceRequest): string {
  const priceKey = req.shape === 'A' ? 'unit_price' : 'price';
  const oneDiscount = (i: string) => req.lines[Number(i)]?.discountKey !== 'discounts';
  const chargesKey = req.otherChargesKey;
  return path
    .replace(/^\/lines\/(\d+)\/quantity/, '/lines/$1/qty')
    .replace(/^\/lines\/(\d+)\/unitPrice/, `/lines/$1/${priceKey}`)
    .replace(/^\/lines\/(\d+)\/discounts\/(\d+)(\/(\w+))?$/, (_m, i: string, k: string, _f, f?: string) =>
      oneDiscount(i) && k === '0'
        ? `/lines/${i}/discount${f ? `/${snake(f)}` : ''}`
        : `/lines/${i}/discounts/${k}${f ? `/${snake(f)}` : ''}`,
    )
    .replace(
      /^\/lines\/(\d+)\/exoneration(\/(\w+))?$/,
      (_m, i: string, _f, f?: string) => `/lines/${i}/exoneration${f ? `/${snake(f)}` : ''}`,
    )
    .replace(
      /^\/lines\/(\d+)\/otherTaxes(\/(\d+))?(\/(\w+))?$/,
      (_m, i: string, _k, k?: string, _f?: string, f?: string) =>
        `/lines/${i}/taxes${k ? `/${k}` : ''}${f ? `/${snake(f)}` : ''}`,
    )
    .replace(
      /^\/lines\/(\d+)\/(taxCode|ivaFactor|taxableBase|ivaCollectedAtFactory|assumedTax|ivaReturned)$/,
      (_m, i: string, f: string) => `/lines/${i}/${snake(f)}`,
    )
    .replace(
      /^\/otherCharges(\/(\d+))?(\/(\w+))?/,
      (_m, _k, k?: string, _f?: string, f?: string) =>
        `/${chargesKey}${k ? `/${k}` : ''}${f ? `/${snake(f)}` : ''}`,
    )
    .replace(/^\/payments\/(\d+)\/type$/, '/payments/$1/method')
    .replace(/^\/exchangeRate$/, `/${req.exchangeRateKey}`)
    .replace(/^\/currency$/, '/currency');
}

/** Clients and services named by one or more requests, fetched in one round trip each. */
export interface Catalogue {
  clientsById: Map<number, Client>;
  clientsByUuid: Map<string, Client>;
  servicesById: Map<number, Service>;
  servicesByUuid: Map<string, Service>;
}

export async function loadCatalogue(db: Knex, tenantIn: Tenant, reqs: InvoiceRequest[]): Promise<Catalogue> {
  const tenant = tenantOnly(tenantIn);
  const refs = <T>(pick: (r: InvoiceRequest) => T[]) => [...new Set(reqs.flatMap(pick))];
  const clientIds = refs((r) => (r.clientRef && 'id' in r.clientRef ? [r.clientRef.id] : []));
  const clientUuids = refs((r) => (r.clientRef && 'uuid' in r.clientRef ? [r.clientRef.uuid] : []));
  const serviceIds = refs((r) => r.lines.flatMap((l) => ('id' in l.serviceRef ? [l.serviceRef.id] : [])));
  const serviceUuids = refs((r) =>
    r.lines.flatMap((l) => ('uuid' in l.serviceRef ? [l.serviceRef.uuid] : [])),
  );
  const none = '00000000-0000-0000-0000-000000000000';
  const [clients, services] = await Promise.all([
    Client.query(db)
      .where(tenant)
      .where((q) => {
        q.whereIn('id', clientIds.length ? clientIds : [0]).orWhereIn(
          'uuid',
          clientUuids.length ? clientUuids : [none],
        );
      }),
    Service.query(db)
      .where(tenant)
      .where((q) => {
        q.whereIn('id', serviceIds.length ? serviceIds : [0]).orWhereIn(
          'uuid',
          serviceUuids.length ? serviceUuids : [none],
        );
      }),
  ]);
  return {
    clientsById: new Map(clients.map((c) => [c.id, c])),
    clientsByUuid: new Map(clients.map((c) => [c.uuid, c])),
    servicesById: new Map(services.map((x) => [x.id, x])),
    servicesByUuid: new Map(services.map((x) => [x.uuid, x])),
  };
}

export async function prepareInvoice(
  db: Knex,
  tenant: Tenant,
  company: Company,
  req: InvoiceRequest,
): Promise<PreparedInvoice> {
  return prepareFromCatalogue(company, req, await loadCatalogue(db, tenant, [req]));
}

/**
 * Pure: the prepared invoice of one request, given the catalogue rows it names. `totalsType`: the
 * document type whose rules the totals follow (a purchase's request is parsed like an invoice's).
 */
export function prepareFromCatalogue(
  company: Company,
  req: InvoiceRequest,
  cat: Catalogue,
  totalsType: TipoComprobante = documentType(req.documentType).rules,
): PreparedInvoice {
  const errors: FieldError[] = [];
  // 1. The client, 2. the lines from the catalogue.
  const client = clientOf(req, cat, errors);
  const lines = catalogueLines(req, cat, errors);
  const currency = req.currency ?? company.defaultCurrency;
  if (!isCodigoMoneda(currency))
    errors.push({ path: '/currency', code: 'invalid_value', message: `${currency} is not an ISO 4217 code` });
  const crcRate = crcExchangeRateProblem(req, currency);
  if (crcRate) errors.push(crcRate);
  // The API and the batch fill a dollar document's rate beforehand; other callers must give it.
  if (currency === 'USD' && req.exchangeRate === null)
    errors.push({
      path: `/${req.exchangeRateKey}`,
      code: 'required',
      message: 'is required for currency USD',
    });
  if (errors.length || !isCodigoMoneda(currency)) throw new DomainValidationError(errors);

  // 3. Totals, computed once, exactly.
  const exchangeRate = currency === 'CRC' ? '1' : (req.exchangeRate ?? '1');
  const method = req.paymentMethod ?? 'efectivo';
  const payments = req.payments ?? [{ method, amount: null, other: req.paymentMethodOther }];
  checkIvaReturned(req, payments);
  const totals = requestTotals(req, lines, { currency, exchangeRate, totalsType, payments });
  return {
    clientId: client ? client.id : null,
    docType: req.documentType,
    branch: req.branch ?? company.defaultBranch,
    terminal: req.terminal ?? company.defaultTerminal,
    currency,
    exchangeRate,
    exchangeRateSource: currency === 'CRC' ? null : (req.exchangeRateSource ?? 'request'),
    condition: req.condition.name,
    condicionVenta: req.condition.code,
    conditionOther: req.condition.other,
    creditDays: req.condition.creditDays,
    paymentMethods: payments.map((p) => p.method),
    paymentMethodOther: payments.find((p) => p.other !== null)?.other ?? null,
    paidAtIssue: req.paidAtIssue,
    lines,
    totals,
    externalId: req.externalId,
    metadata: req.metadata,
    emailRecipients: req.emailRecipients,
  };
}

/** The request's client (null: none named; undefined: not found, an error recorded). */
const hasForeignReceptor = (req: InvoiceRequest) =>
  documentType(req.documentType).request?.receptor === 'foreign';

function clientOf(req: InvoiceRequest, cat: Catalogue, errors: FieldError[]): Client | null | undefined {
  const ref = req.clientRef;
  const client = !ref ? null : 'id' in ref ? cat.clientsById.get(ref.id) : cat.clientsByUuid.get(ref.uuid);
  if (client === undefined)
    errors.push({
      path: req.clientPath,
      code: 'unknown_client',
      message: 'no such client in this company and mode',
    });
  // An archived client is kept for the documents that name it, and refused for new ones.
  if (client?.archivedAt)
    errors.push({
      path: req.clientPath,
      code: 'client_archived',
      message:
        'el cliente está archivado; desarchívelo para emitirle (the client is archived; unarchive it to issue to it)',
    });
  // A type with a foreign receptor (the factura de exportación): foreign client, IVA at 0% only.
  if (client && hasForeignReceptor(req)) errors.push(...foreignReceptorProblems(client, req.clientPath));
  return client;
}

/** The request's lines with their CABYS, unit, tax and default price from the catalogue. */
function catalogueLines(req: InvoiceRequest, cat: Catalogue, errors: FieldError[]): StoredLine[] {
  const exportacion = hasForeignReceptor(req);
  const lines: StoredLine[] = [];
  req.lines.forEach((l) => {
    const s =
      'id' in l.serviceRef
        ? cat.servicesById.get(l.serviceRef.id)
        : cat.servicesByUuid.get(l.serviceRef.uuid);
    if (!s) {
      errors.push({
        path: l.servicePath,
        code: 'unknown_service',
        message: 'no such service in this company and mode',
      });
      return;
    }
    if (s.archivedAt) {
      errors.push({
        path: l.servicePath,
        code: 'service_archived',
        message:
          'el servicio está archivado; desarchívelo para facturarlo (the service is archived; unarchive it to invoice it)',
      });
      return;
    }
    // A service stored before its code left the catalogue (or before the catalogue was checked):
    // Hacienda would reject the document, so it is refused here, before a number is taken.
    const unknownCabys = unknownCabysError(s.cabys, l.servicePath);
    if (unknownCabys) {
      errors.push(unknownCabys);
      return;
    }
    if (exportacion && s.taxCode !== '01') {
      errors.push({
        path: l.servicePath,
        code: 'export_tax_not_allowed',
        message: `a factura de exportación carries IVA only (tax code 01, at the exports' 0% rate); this service's tax code is ${s.taxCode}`,
      });
      return;
    }
    lines.push({ serviceId: s.id, input: catalogueLine(l, s, exportacion) });
  });
  return lines;
}

/** One line as the totals and the XML consume it: the request's values over the service's. */
function catalogueLine(l: InvoiceRequest['lines'][number], s: Service, exportacion: boolean): DocumentLine {
  return {
    cabys: s.cabys,
    description: l.description ?? s.description,
    unit: s.unit as UnidadMedida,
    quantity: l.quantity,
    unitPrice: l.unitPrice ?? s.price,
    taxCode: s.taxCode as CodigoImpuesto,
    // Exports are taxed at 0% with the right to credit (CodigoTarifaIVA 01, Art. 32 RLIVA).
    ivaRateCode: (exportacion ? EXPORT_IVA_RATE : s.ivaRateCode) as CodigoTarifaIVA,
    ...(l.tariffCode ? { partidaArancelaria: l.tariffCode } : {}),
    ...(l.discounts ? { discounts: l.discounts } : {}),
    ...(l.exoneration ? { exoneration: l.exoneration } : {}),
    ...(l.taxCode ? { taxCode: l.taxCode } : {}),
    // The line's own taxes, else the catalogue's for this service.
    ...(l.taxes ? { otherTaxes: l.taxes } : s.otherTaxes?.length ? { otherTaxes: s.otherTaxes } : {}),
    ...(l.ivaFactor ? { ivaFactor: l.ivaFactor } : {}),
    ...(l.taxableBase ? { taxableBase: l.taxableBase } : {}),
    ...(l.ivaCollectedAtFactory ? { ivaCollectedAtFactory: l.ivaCollectedAtFactory } : {}),
    ...(l.assumedTax ? { assumedTax: l.assumedTax } : {}),
    ...(l.ivaReturned !== undefined ? { ivaReturned: l.ivaReturned } : {}),
    ...(s.commercialCode ? { commercialCodes: [{ type: '01', code: s.commercialCode }] } : {}),
  } as DocumentLine;
}

type RequestPayment = NonNullable<InvoiceRequest['payments']>[number];

/**
 * The IVA on health services is returned when the service is paid by card (TotalIVADevuelto);
 * in a sale paid partly by card, in proportion to the card amount (domain/totals.ts).
 */
function checkIvaReturned(req: InvoiceRequest, payments: readonly Pick<RequestPayment, 'method'>[]): void {
  if (req.lines.some((l) => l.ivaReturned) && !payments.some((p) => p.method === 'tarjeta'))
    throw new DomainValidationError([
      {
        path: req.payments ? '/payments' : req.shape === 'A' ? '/payment_method' : '/paymentMethod',
        code: 'iva_returned_needs_card',
        message:
          'the IVA of a health service is returned only when the sale is paid, at least in part, by card (tarjeta)',
      },
    ]);
}

/** The document's totals (domain/totals.ts), its errors in the request's own spelling. */
function requestTotals(
  req: InvoiceRequest,
  lines: StoredLine[],
  terms: {
    currency: CodigoMoneda;
    exchangeRate: string;
    totalsType: TipoComprobante;
    payments: readonly Pick<RequestPayment, 'method' | 'amount' | 'other'>[];
  },
): DocumentTotals {
  try {
    return computeDocumentTotals(
      lines.map((l) => l.input),
      {
        currency: terms.currency,
        exchangeRate: terms.exchangeRate,
        docType: terms.totalsType,
        otherCharges: req.otherCharges,
        payments: terms.payments.map((p) => ({
          type: PAYMENT_METHODS[p.method]!,
          other: p.other,
          amount: p.amount,
        })),
      },
    );
  } catch (err) {
    if (err instanceof DomainValidationError) {
      throw new DomainValidationError(err.errors.map((e) => ({ ...e, path: mapTotalsPath(e.path, req) })));
    }
    throw err;
  }
}

/**
 * A document in colones has TipoCambio 1 (Hacienda -45): a CRC document, whether the request or
 * the company's default currency made it one, with another exchange_rate is refused, never
 * rewritten to 1.
 */
function crcExchangeRateProblem(req: InvoiceRequest, currency: string): FieldError | null {
  if (currency !== 'CRC' || req.exchangeRate === null || Number(req.exchangeRate) === 1) return null;
  return {
    path: mapTotalsPath('/exchangeRate', req),
    code: 'invalid_exchange_rate',
    message:
      `el tipo de cambio de un documento en colones (CRC) es 1, no ${req.exchangeRate}; indique currency ` +
      `para otra moneda (a colones (CRC) document's exchange rate is 1, not ${req.exchangeRate}; give ` +
      'currency for another one)',
  };
}

/** The IVA rate of every line of a factura de exportación: 0% with the right to credit. */
export const EXPORT_IVA_RATE = '01';

/**
 * What a client lacks to be the receptor of a factura de exportación: a foreign buyer, identified
 * as an extranjero no domiciliado (05), with its foreign address (OtrasSenasExtranjero).
 */
export function foreignReceptorProblems(client: Client, path: string): FieldError[] {
  const problems: FieldError[] = [];
  if (client.idType !== '05')
    problems.push({
      path,
      code: 'foreign_receptor_required',
      message: `the receptor of a factura de exportación is a foreign buyer: its client needs identification_type 05 (extranjero no domiciliado), not ${client.idType}`,
    });
  if (!client.foreignAddress)
    problems.push({
      path,
      code: 'foreign_address_required',
      message:
        'the receptor of a factura de exportación needs its foreign address: give the client a foreign_address (OtrasSenasExtranjero)',
    });
  return problems;
}
