// The public objects that webhook events carry, written with the event in the transaction that
// records what happened (an invoice's transition, a payment, a receipt): the invoice and the
// payment as the API shows them (snake_case, prefixed ids, money as decimal strings), and the
// envelope receivers get. The API answers with the same objects (typed by their response schemas
// in api/presenters/); the objects only the API shows are built there.
import type { PaymentRow } from './queries/payments.ts';
import { Decimal } from 'decimal.js';
import { formatId } from '../domain/ids.ts';
import { IVA_RATES, isCodigoTarifaIVA } from '../domain/codes.ts';
import { ivaReturnedByLine } from '../domain/totals.ts';
import type { Amount, DocumentSummary, DocumentTotals, LineTax, LineTotals } from '../domain/totals-types.ts';
import type { InvoiceRow, PublicInvoiceRow } from './queries/invoices.ts';
import type { EventRow } from './queries/event-log.ts';
import type { EventEnvelope } from '../domain/webhook-events.ts';
import type { Supplier } from '../domain/purchase-request.ts';

export const money2 = (v: string | number): string => new Decimal(v).toFixed(2, Decimal.ROUND_HALF_UP);

const m2 = (v: string | null | undefined) => money2(v ?? '0');

/** The supplier of a factura electrónica de compra, as the API shows it. */
function supplierObject(s: Supplier | null) {
  if (!s) return null;
  return {
    name: s.name,
    identification: s.idNumber,
    identification_type: s.idType,
    commercial_name: s.commercialName,
    activity_code: s.activityCode,
    location: s.location
      ? {
          provincia: s.location.provincia,
          canton: s.location.canton,
          distrito: s.location.distrito,
          barrio: s.location.barrio,
          otras_senas: s.location.otrasSenas,
        }
      : null,
    foreign_address: s.foreignAddress,
    phone: s.phone ? s.phone.number : null,
    email: s.email,
    document: { type: s.document.type, number: s.document.number, issue_date: s.document.issuedAt },
  };
}

type RejectionReasonJson = {
  summary: { es: string; en: string };
  items: {
    code: number | null;
    message: string;
    line: number | null;
    column: number | null;
    kind: string | null;
    readable: { es: string; en: string };
    fix: { es: string; en: string };
  }[];
  raw: string | null;
};

/** The payments of the sale terms: each method with its amount (null when not stated). */
function paymentsOf(row: FiguresRow) {
  return (
    row.summary.summary.medioPago ??
    row.paymentMethods.map((m) => ({
      type: '',
      other: m === 'otros' ? row.paymentMethodOther : null,
      total: null,
    }))
  ).map((m, i) => ({
    method: row.paymentMethods[i] ?? 'efectivo',
    amount: m.total === null ? null : money2(m.total),
    other: m.other ?? null,
  }));
}

function otherChargesOf(t: DocumentTotals) {
  return (t.otherCharges ?? []).map((c) => ({
    code: c.code,
    code_other: c.codeOther,
    detail: c.detail,
    percent: c.percent,
    amount: c.amount,
    third_party: c.thirdParty
      ? { id_type: c.thirdParty.idType, id_number: c.thirdParty.idNumber, name: c.thirdParty.name }
      : null,
  }));
}

function taxObject(x: LineTax) {
  return {
    code: x.code,
    iva_rate_code: x.ivaRateCode,
    rate: x.rate,
    ...(x.codeOther ? { code_other: x.codeOther } : {}),
    ...(x.factor ? { factor: x.factor } : {}),
    ...(x.specific
      ? {
          specific: {
            unit_quantity: x.specific.unitQuantity,
            alcohol_percent: x.specific.alcoholPercent,
            proportion: x.specific.proportion,
            consumption_volume: x.specific.consumptionVolume,
            tax_per_unit: x.specific.taxPerUnit,
          },
        }
      : {}),
    amount: x.amount,
    ...(x.exoneration
      ? {
          exoneration: {
            doc_type: x.exoneration.docType,
            number: x.exoneration.number,
            institution: x.exoneration.institution,
            issued_at: new Date(x.exoneration.issuedAt).toISOString(),
            rate: x.exoneration.rate,
            amount: x.exoneration.amount,
          },
        }
      : {}),
  };
}

/** Line `i` of the invoice: its catalogue data as given and its computed amounts. */
function lineObject(row: FiguresRow, l: LineTotals, i: number, returned: Amount | null | undefined) {
  return {
    line_number: l.lineNumber,
    service_id: row.lines[i]?.serviceId ? formatId('service', row.lines[i]!.serviceId!) : null,
    cabys: row.lines[i]?.input.cabys ?? '',
    description: row.lines[i]?.input.description ?? '',
    unit: row.lines[i]?.input.unit ?? '',
    kind: l.kind,
    qty: l.quantity,
    unit_price: l.unitPrice,
    amount: l.montoTotal,
    discount: l.discountTotal,
    discounts: (l.discounts ?? []).map((d) => ({
      amount: d.amount,
      code: d.code,
      code_other: d.codeOther,
      nature: d.nature,
    })),
    subtotal: l.subTotal,
    ...(l.ivaCollectedAtFactory ? { iva_collected_at_factory: l.ivaCollectedAtFactory } : {}),
    taxable_base: l.baseImponible,
    taxes: l.taxes.map(taxObject),
    assumed_tax: l.impuestoAsumidoEmisorFabrica,
    ...(returned ? { iva_returned: returned } : {}),
    total: l.montoTotalLinea,
  };
}

/** The columns a document's lines, payments and totals are shown from. */
export type FiguresRow = Pick<
  PublicInvoiceRow,
  'lines' | 'summary' | 'total' | 'paymentMethods' | 'paymentMethodOther'
>;

/**
 * A document's lines, payments, other charges and totals as the invoice object shows them: also
 * the answer of a preview (POST /api/v1/invoices/preview), computed but never recorded.
 */
export function documentFigures(row: FiguresRow) {
  const t = row.summary;
  const s = t.summary;
  const returned = ivaReturnedByLine(t);
  return {
    payments: paymentsOf(row),
    other_charges: otherChargesOf(t),
    lines: t.lines.map((l, i) => lineObject(row, l, i, returned[i])),
    tax_breakdown: s.totalDesgloseImpuesto.map((x) => ({
      code: x.code,
      iva_rate_code: x.ivaRateCode,
      rate: breakdownRate(t.lines, x.code, x.ivaRateCode),
      amount: x.amount,
    })),
    subtotal: m2(s.totalVentaNeta),
    total_discount: m2(s.totalDescuentos),
    total_tax: m2(s.totalImpuesto),
    total: money2(row.total),
    totals: summaryObject(s),
  };
}

/** A figure of the summary, null when absent (a summary stored before the figure existed). */
const figure = (v: Amount | null | undefined): Amount | null => v ?? null;

/**
 * ResumenFactura as the API and webhooks show it: Hacienda's figures under snake_case names
 * (TotalServGravados → total_serv_gravados, TotalIVADevuelto → total_iva_devuelto), 5 decimals.
 * The summary stored with the invoice keeps the domain's names (domain/totals-types.ts); its
 * MedioPago is the invoice's `payments`.
 */
export function summaryObject(s: DocumentSummary) {
  return {
    currency: s.currency,
    exchange_rate: s.exchangeRate,
    total_serv_gravados: figure(s.totalServGravados),
    total_serv_exentos: figure(s.totalServExentos),
    total_serv_exonerado: figure(s.totalServExonerado),
    total_serv_no_sujeto: figure(s.totalServNoSujeto),
    total_mercancias_gravadas: figure(s.totalMercanciasGravadas),
    total_mercancias_exentas: figure(s.totalMercanciasExentas),
    total_merc_exonerada: figure(s.totalMercExonerada),
    total_merc_no_sujeta: figure(s.totalMercNoSujeta),
    total_gravado: figure(s.totalGravado),
    total_exento: figure(s.totalExento),
    total_exonerado: figure(s.totalExonerado),
    total_no_sujeto: figure(s.totalNoSujeto),
    total_venta: s.totalVenta,
    total_descuentos: figure(s.totalDescuentos),
    total_venta_neta: s.totalVentaNeta,
    total_desglose_impuesto: s.totalDesgloseImpuesto.map((x) => ({
      code: x.code,
      iva_rate_code: x.ivaRateCode,
      amount: x.amount,
    })),
    total_impuesto: s.totalImpuesto,
    total_imp_asum_emisor_fabrica: figure(s.totalImpAsumEmisorFabrica),
    total_iva_devuelto: figure(s.totalIVADevuelto),
    total_otros_cargos: figure(s.totalOtrosCargos),
    total_comprobante: s.totalComprobante,
  };
}

/**
 * A public object written before the summary was shown in snake_case (an event's data, an
 * answer kept for its Idempotency-Key): its `totals` under the domain's names become
 * summaryObject's. Anything else is returned as it is.
 */
export function withPublicTotals<T>(data: T): T {
  if (!data || typeof data !== 'object') return data;
  const totals = (data as { totals?: unknown }).totals;
  if (!totals || typeof totals !== 'object' || !('totalComprobante' in totals)) return data;
  return { ...data, totals: summaryObject(totals as DocumentSummary) };
}

/** The API's invoice object. `lang` picks the language of `rejection_reason.message`. */
export function invoiceObject(row: PublicInvoiceRow, lang: 'es' | 'en' = 'es') {
  const f = documentFigures(row);
  return {
    id: formatId('invoice', row.id),
    object: 'invoice' as const,
    livemode: row.livemode,
    status: row.status,
    document_type: row.docType,
    consecutivo: row.consecutivo,
    clave: row.clave,
    client_id: row.clientId === null ? null : formatId('client', row.clientId),
    ...(row.docType === '08' ? { supplier: supplierObject(row.supplier ?? null) } : {}),
    currency: row.currency,
    exchange_rate: new Decimal(row.exchangeRate).toString(),
    exchange_rate_source: row.exchangeRateSource ?? null,
    condition: row.condition,
    credit_days: row.creditDays,
    payment_methods: row.paymentMethods,
    payment_method_other: row.paymentMethodOther ?? null,
    payments: f.payments,
    other_charges: f.other_charges,
    issue_date: row.issuedAt ? new Date(row.issuedAt).toISOString() : null,
    lines: f.lines,
    tax_breakdown: f.tax_breakdown,
    subtotal: f.subtotal,
    total_discount: f.total_discount,
    total_tax: f.total_tax,
    total: f.total,
    totals: f.totals,
    paid_at_issue: row.paidAtIssue ?? false,
    payment_status: row.paymentStatus,
    balance_due: money2(row.balanceDue),
    rejection_reason: rejectionReasonOf(row, lang),
    warnings: warningsOf(row),
    // Written only by recordProcessingError (db/queries/processing-error.ts), in this shape.
    processing_error: row.processingError as {
      step: string;
      code?: string;
      message: string;
      permanent: boolean;
      at: string;
    } | null,
    external_id: row.externalId,
    metadata: row.metadata,
    email_recipients: row.emailRecipients ?? [],
    email: {
      status: row.emailStatus ?? null,
      sent_at: iso(row.emailedAt ?? null),
      bounces: row.emailBounces ?? [],
    },
    reference: referenceOf(row),
    credited_total: money2(row.creditedTotal ?? '0'),
    annulled: Boolean(row.annulledAt),
    replaces:
      row.reference?.code === '16' && row.reference.documentId
        ? formatId('invoice', row.reference.documentId)
        : null,
    replaced_by: row.replacedById ? formatId('invoice', row.replacedById) : null,
    hacienda: {
      status: row.haciendaStatus,
      signed_at: iso(row.signedAt),
      submitted_at: iso(row.submittedAt),
      accepted_at: iso(row.acceptedAt),
      rejected_at: iso(row.rejectedAt),
    },
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

/** The document a note or a replacement references. */
function referenceOf(row: PublicInvoiceRow) {
  return row.reference
    ? {
        document_id: row.reference.documentId ? formatId('invoice', row.reference.documentId) : null,
        document_type: row.reference.docType,
        clave: row.reference.clave,
        issue_date: new Date(row.reference.issuedAt).toISOString(),
        code: row.reference.code,
        reason: row.reference.reason,
      }
    : null;
}

function rejectionReasonOf(row: PublicInvoiceRow, lang: 'es' | 'en') {
  const reason = row.rejectionReason as RejectionReasonJson | null;
  return reason
    ? { message: reason.summary[lang], summary: reason.summary, items: reason.items, raw: reason.raw }
    : null;
}

/** Hacienda's observations on the accepted document, as stored (`[]` when none). */
function warningsOf(row: PublicInvoiceRow) {
  return (row.warnings ?? []).map((w) => ({
    code: w.code,
    message: w.message,
    readable: { es: w.readable.es, en: w.readable.en },
    fix: { es: w.fix.es, en: w.fix.en },
  }));
}

function iso(d: Date | string | null): string | null {
  return d ? new Date(d).toISOString() : null;
}

/**
 * A breakdown row's rate in the lines' format (two decimals: `"13.00"`, `"0.50"`): the rate of a
 * line tax of that code and rate code, else the catalogue's rate for the code.
 */
function breakdownRate(
  lines: readonly { taxes: readonly { code: string; ivaRateCode: string | null; rate: string | null }[] }[],
  code: string,
  ivaRateCode: string | null,
): string | null {
  for (const l of lines)
    for (const t of l.taxes) if (t.code === code && t.ivaRateCode === ivaRateCode) return t.rate;
  if (!ivaRateCode) return null;
  const rate = ivaRateCode && isCodigoTarifaIVA(ivaRateCode) ? IVA_RATES[ivaRateCode].rate : '0';
  return new Decimal(rate).toFixed(2);
}

/** The columns of a payment row its public object shows. */
export type PaymentFields = Pick<
  PaymentRow,
  | 'id'
  | 'livemode'
  | 'invoiceId'
  | 'clientId'
  | 'amount'
  | 'amountCrc'
  | 'currency'
  | 'exchangeRate'
  | 'method'
  | 'methodCode'
  | 'paidAt'
  | 'reference'
  | 'atIssue'
  | 'receiptInvoiceId'
  | 'receiptClave'
  | 'createdAt'
>;

/** A payment, with the invoice's balance and payment status right after it. */
export function paymentObject(p: PaymentFields, invoice: Pick<InvoiceRow, 'balanceDue' | 'paymentStatus'>) {
  return {
    id: formatId('payment', p.id),
    object: 'payment' as const,
    invoice_id: formatId('invoice', p.invoiceId),
    client_id: p.clientId === null ? null : formatId('client', p.clientId),
    amount: money2(p.amount),
    currency: p.currency,
    exchange_rate: new Decimal(p.exchangeRate).toString(),
    amount_crc: money2(p.amountCrc),
    method: p.method,
    method_code: p.methodCode,
    paid_at: new Date(p.paidAt).toISOString(),
    reference: p.reference,
    at_issue: p.atIssue ?? false,
    receipt: p.receiptInvoiceId
      ? { id: formatId('invoice', p.receiptInvoiceId), clave: p.receiptClave ?? null }
      : null,
    invoice_balance_due: money2(invoice.balanceDue),
    invoice_payment_status: invoice.paymentStatus,
    livemode: p.livemode,
    created_at: new Date(p.createdAt).toISOString(),
  };
}

/** The webhook envelope `{ id, event, created_at, sequence, data }`, exactly what receivers get. */
export function eventEnvelope(
  e: Pick<EventRow, 'id' | 'type' | 'data' | 'createdAt' | 'sequence'>,
): EventEnvelope {
  return {
    id: formatId('event', e.id),
    event: e.type,
    created_at: new Date(e.createdAt).toISOString(),
    sequence: e.sequence ?? null,
    data: withPublicTotals(e.data),
  };
}
