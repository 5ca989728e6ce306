// Database rows → public API objects (snake_case, prefixed ids, money as decimal strings), shared
// by the API and the command-line tool so both print the same shapes.
import { Decimal } from 'decimal.js';
import type { KeyWithSecrets } from './queries/api-keys.ts';
import type { Client, Company, Service } from './models/index.ts';
import type { CredentialSummary } from './queries/companies.ts';
import { redactedKey } from '../domain/api-key-secret.ts';
import { formatId } from '../domain/ids.ts';
import { IVA_RATES, isCodigoTarifaIVA, isUnidadMedida, unitKind } from '../domain/codes.ts';
import { ivaReturnedByLine } from '../domain/totals.ts';
import type { InvoiceRow, PublicInvoiceRow } from './queries/invoices.ts';
import type { PaymentRow } from './queries/payments.ts';
import type { DeliveryWithAttempts, EndpointRow } from './queries/webhooks.ts';
import type { EventRow } from './queries/event-log.ts';
import type { EventEnvelope } from '../domain/webhook-events.ts';
import type { Supplier } from '../domain/purchase-request.ts';

export const money2 = (v: string | number): string => new Decimal(v).toFixed(2, Decimal.ROUND_HALF_UP);

export function clientObject(c: Client) {
  return {
    id: formatId('client', c.id),
    object: 'client' as const,
    uuid: c.uuid,
    cedula: c.idNumber,
    identification_type: c.idType,
    name: c.name,
    commercial_name: c.commercialName,
    email: c.email,
    phone: c.phone,
    phone_country_code: c.phoneCountry,
    activity_code: c.activityCode,
    addresses: (c.addresses ?? []).map((a) => ({
      provincia: a.provincia,
      canton: a.canton,
      distrito: a.distrito,
      barrio: a.barrio,
      otras_senas: a.otrasSenas,
    })),
    foreign_address: c.foreignAddress ?? null,
    balance: money2(c.balance),
    metadata: c.metadata,
    livemode: c.livemode,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/**
 * A service's default price as given, normalised: its decimals up to the 5 of PrecioUnitario,
 * at least 2 (`50000.00`, `1234.56789`, `0.125`→`0.125`, `7.50000`→`7.50`).
 */
function servicePrice(price: string): string {
  const d = new Decimal(price);
  return d.decimalPlaces() <= 2 ? d.toFixed(2) : d.toFixed();
}

export function serviceObject(s: Service) {
  return {
    id: formatId('service', s.id),
    object: 'service' as const,
    uuid: s.uuid,
    cabys: s.cabys,
    description: s.description,
    unit: s.unit,
    kind: isUnidadMedida(s.unit) ? unitKind(s.unit) : 'goods',
    tax_code: s.taxCode,
    iva_rate_code: s.ivaRateCode,
    taxes: (s.otherTaxes ?? []).map((t) =>
      Object.fromEntries(
        Object.entries(t).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
      ),
    ),
    price: servicePrice(s.price),
    commercial_code: s.commercialCode,
    livemode: s.livemode,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function keyObject(k: KeyWithSecrets) {
  const current = k.secrets[0];
  return {
    id: formatId('apiKey', k.id),
    object: 'api_key' as const,
    name: k.name,
    scopes: k.scopes,
    livemode: k.livemode,
    rate_limit_per_second: k.rateLimitPerSecond ?? null,
    redacted: redactedKey(k.livemode, current?.last4 ?? '????'),
    secrets: k.secrets.map((s) => ({
      last4: s.last4,
      created_at: s.createdAt.toISOString(),
      expires_at: s.expiresAt ? s.expiresAt.toISOString() : null,
    })),
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}

export function companyObject(c: Company, livemode: boolean, credentials: CredentialSummary[]) {
  const cred = credentials.find((x) => x.livemode === livemode);
  return {
    id: formatId('company', c.id),
    object: 'company' as const,
    name: c.name,
    plan: c.plan,
    livemode,
    emisor: {
      legal_name: c.legalName,
      commercial_name: c.commercialName,
      identification: { type: c.idType, number: c.idNumber },
      activity_code: c.activityCode,
      location: {
        provincia: c.provincia,
        canton: c.canton,
        distrito: c.distrito,
        barrio: c.barrio,
        otras_senas: c.otrasSenas,
      },
      phone: c.phone ? { country_code: c.phoneCountry ?? '506', number: c.phone } : null,
      emails: c.emails,
    },
    defaults: { branch: c.defaultBranch, terminal: c.defaultTerminal, currency: c.defaultCurrency },
    rate_limit_per_second: c.rateLimitPerSecond,
    email_delivery: {
      enabled: c.emailEnabled ?? false,
      reply_to: c.emailReplyTo ?? c.emails[0] ?? null,
      bcc: c.emailBcc ?? [],
    },
    certificate: cred?.hasSigningKey
      ? {
          subject: cred.certificateSubject,
          not_after: cred.certificateNotAfter ? cred.certificateNotAfter.toISOString() : null,
        }
      : null,
    hacienda_credentials_configured: Boolean(cred?.haciendaUsername && cred.hasHaciendaPassword),
    created_at: c.createdAt.toISOString(),
  };
}

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

/** The API's invoice object. `lang` picks the language of `rejection_reason.message`. */
export function invoiceObject(row: PublicInvoiceRow, lang: 'es' | 'en' = 'es') {
  const t = row.summary;
  const s = t.summary;
  const returned = ivaReturnedByLine(t);
  const reason = row.rejectionReason as {
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
  } | null;
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
    condition: row.condition,
    credit_days: row.creditDays,
    payment_methods: row.paymentMethods,
    payment_method_other: row.paymentMethodOther ?? null,
    payments: (
      s.medioPago ??
      row.paymentMethods.map((m) => ({
        type: '',
        other: m === 'otros' ? row.paymentMethodOther : null,
        total: null,
      }))
    ).map((m, i) => ({
      method: row.paymentMethods[i] ?? 'efectivo',
      amount: m.total === null ? null : money2(m.total),
      other: m.other ?? null,
    })),
    other_charges: (t.otherCharges ?? []).map((c) => ({
      code: c.code,
      code_other: c.codeOther,
      detail: c.detail,
      percent: c.percent,
      amount: c.amount,
      third_party: c.thirdParty
        ? { id_type: c.thirdParty.idType, id_number: c.thirdParty.idNumber, name: c.thirdParty.name }
        : null,
    })),
    issue_date: row.issuedAt ? new Date(row.issuedAt).toISOString() : null,
    lines: t.lines.map((l, i) => ({
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
      taxes: l.taxes.map((x) => ({
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
      })),
      assumed_tax: l.impuestoAsumidoEmisorFabrica,
      ...(returned[i] ? { iva_returned: returned[i] } : {}),
      total: l.montoTotalLinea,
    })),
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
    totals: s,
    paid_at_issue: row.paidAtIssue ?? false,
    payment_status: row.paymentStatus,
    balance_due: money2(row.balanceDue),
    rejection_reason: reason
      ? { message: reason.summary[lang], summary: reason.summary, items: reason.items, raw: reason.raw }
      : null,
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
    reference: row.reference
      ? {
          document_id: row.reference.documentId ? formatId('invoice', row.reference.documentId) : null,
          document_type: row.reference.docType,
          clave: row.reference.clave,
          issue_date: new Date(row.reference.issuedAt).toISOString(),
          code: row.reference.code,
          reason: row.reference.reason,
        }
      : null,
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

// ---------------------------------------------------------------------------------------------
// Payments, webhook endpoints, deliveries and events (webhooks and payments module).

/** A payment, with the invoice's balance and payment status right after it. */
export function paymentObject(p: PaymentRow, invoice: Pick<InvoiceRow, 'balanceDue' | 'paymentStatus'>) {
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

/** A webhook endpoint; never its secrets (they are shown once, by the route that makes them). */
export function webhookEndpointObject(w: EndpointRow) {
  const overlap = w.previousSecretExpiresAt && new Date(w.previousSecretExpiresAt).getTime() > Date.now();
  return {
    id: formatId('webhookEndpoint', w.id),
    object: 'webhook_endpoint' as const,
    url: w.url,
    events: w.events,
    description: w.description,
    status: w.disabledAt ? ('disabled' as const) : ('enabled' as const),
    disabled_reason: w.disabledReason,
    disabled_at: iso(w.disabledAt),
    previous_secret_expires_at: overlap ? iso(w.previousSecretExpiresAt) : null,
    livemode: w.livemode,
    created_at: new Date(w.createdAt).toISOString(),
    updated_at: new Date(w.updatedAt).toISOString(),
  };
}

/** The webhook envelope `{ id, event, created_at, data }`, exactly what receivers get. */
export function eventEnvelope(e: Pick<EventRow, 'id' | 'type' | 'data' | 'createdAt'>): EventEnvelope {
  return {
    id: formatId('event', e.id),
    event: e.type,
    created_at: new Date(e.createdAt).toISOString(),
    data: e.data,
  };
}

/** An event as the API shows it: the envelope plus its tenant mode and originating request. */
export function eventObject(e: EventRow) {
  return { ...eventEnvelope(e), object: 'event' as const, livemode: e.livemode, request_id: e.requestId };
}

export function deliveryObject(d: DeliveryWithAttempts) {
  return {
    id: formatId('webhookDelivery', d.id),
    object: 'webhook_delivery' as const,
    event_id: formatId('event', d.eventId),
    event: d.eventType,
    endpoint_id: formatId('webhookEndpoint', d.endpointId),
    status: d.status,
    attempt_count: d.attempts,
    redeliveries: d.round,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: iso(d.nextAttemptAt),
    delivered_at: iso(d.deliveredAt),
    created_at: new Date(d.createdAt).toISOString(),
    attempts: d.attemptList.map((a) => ({
      attempt: a.attemptNumber,
      round: a.round,
      started_at: new Date(a.startedAt).toISOString(),
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
  };
}
