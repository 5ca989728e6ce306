// The two kinds of parties that differ from a sale's (a descriptor's `parties`: purchase, receipt),
// rebuilt from Postgres like invoice-document.ts does a sale's:
// - a factura electrónica de compra (08): the emisor is the supplier stored on the row, the
//   receptor is the company (the buyer, whose activity is CodigoActividadReceptor and whose
//   identification the clave carries); InformacionReferencia says what paper the supplier gave
//   (TipoDocIR 16 "proveedor no domiciliado" with Codigo 11, or 14 / 99);
// - a recibo electrónico de pago (10): the company to the client, name, identification and email
//   only; its lines the payment's share of the factura's taxes and charges (db/queries/receipts.ts),
//   its reference the invoice it settles (Codigo 17).
import type { Config } from '../config/index.ts';
import type { ClientParty, CompanyParty } from '../domain/signed-parties.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import type {
  CodigoReferencia,
  CondicionVenta,
  IdentificationType,
  TipoDocumentoReferencia,
} from '../domain/codes.ts';
import { PAYMENT_METHODS } from '../domain/sale-terms.ts';
import { chargeInput } from '../domain/document-notes.ts';
import { computeDocumentTotals, type DocumentTotals } from '../domain/totals.ts';
import type { DocumentTypeDescriptor } from '../domain/document-types/index.ts';
import type { Emisor, IssuedDocument, PurchaseEmisor, Receptor } from '../hacienda/xml/types.ts';

export class PartyDataError extends Error {}

/**
 * The totals recomputed from what was recorded (lines, other charges as resolved at creation and
 * payments with their amounts), checked against the recorded total.
 */
function recomputed(invoice: InvoiceRow, type: DocumentTypeDescriptor): DocumentTotals {
  const medios = invoice.summary.summary.medioPago;
  const totals = computeDocumentTotals(
    invoice.lines.map((l) => l.input),
    {
      currency: invoice.currency,
      exchangeRate: invoice.exchangeRate,
      docType: type.rules,
      otherCharges: (invoice.summary.otherCharges ?? []).map((c) => chargeInput(c, c.amount)),
      ...(medios && (medios.length > 1 || medios.some((m) => m.total))
        ? { payments: medios.map((m) => ({ type: m.type, other: m.other, amount: m.total })) }
        : {}),
    },
  );
  if (totals.summary.totalComprobante !== invoice.summary.summary.totalComprobante)
    throw new PartyDataError(`invoice ${invoice.id}: recomputed total differs from the recorded one`);
  return totals;
}

/** MedioPago as recorded with the totals (amounts included), else the row's payment methods. */
function mediosPago(invoice: InvoiceRow, totals: DocumentTotals) {
  return (
    totals.summary.medioPago ??
    invoice.paymentMethods.map((m) => ({
      type: PAYMENT_METHODS[m] ?? '01',
      other: m === 'otros' ? invoice.paymentMethodOther : null,
      total: null,
    }))
  ).map((m) => ({
    type: m.type,
    ...(m.other ? { other: m.other } : {}),
    ...(m.total ? { total: m.total } : {}),
  }));
}

function companyParty(company: CompanyParty): Receptor & { emails: readonly string[] } {
  return {
    name: company.legalName,
    idType: company.idType as IdentificationType,
    idNumber: company.idNumber,
    ...(company.commercialName ? { commercialName: company.commercialName } : {}),
    ...(company.provincia && company.canton && company.distrito && company.otrasSenas
      ? {
          ubicacion: {
            provincia: company.provincia,
            canton: company.canton,
            distrito: company.distrito,
            ...(company.barrio ? { barrio: company.barrio } : {}),
            otrasSenas: company.otrasSenas,
          },
        }
      : {}),
    ...(company.phone
      ? { phone: { countryCode: company.phoneCountry ?? '506', number: company.phone } }
      : {}),
    ...(company.emails[0] ? { email: company.emails[0] } : {}),
    emails: company.emails,
  };
}

function common(config: Config, invoice: InvoiceRow, company: CompanyParty) {
  if (!invoice.clave || !invoice.consecutivo || !invoice.issuedAt)
    throw new PartyDataError(`invoice ${invoice.id} is a draft: it has no clave yet`);
  return {
    clave: invoice.clave,
    consecutivo: invoice.consecutivo,
    issuedAt: new Date(invoice.issuedAt),
    proveedorSistemas: config.proveedorSistemas || company.idNumber,
    condicionVenta: invoice.condicionVenta as CondicionVenta,
  };
}

/** The FEC: supplier → company. */
export function purchaseDocument(
  config: Config,
  invoice: InvoiceRow,
  company: CompanyParty,
  type: DocumentTypeDescriptor,
): IssuedDocument {
  const s = invoice.supplier;
  if (!s) throw new PartyDataError(`invoice ${invoice.id}: a factura de compra without its supplier`);
  if (!company.activityCode)
    throw new PartyDataError(`company ${company.id} lacks the activity code of the receptor`);
  const emisor: PurchaseEmisor = {
    name: s.name,
    idType: s.idType,
    idNumber: s.idNumber,
    ...(s.commercialName ? { commercialName: s.commercialName } : {}),
    ...(s.location
      ? {
          ubicacion: {
            provincia: s.location.provincia,
            canton: s.location.canton,
            distrito: s.location.distrito,
            ...(s.location.barrio ? { barrio: s.location.barrio } : {}),
            otrasSenas: s.location.otrasSenas,
          },
        }
      : {}),
    ...(s.foreignAddress ? { otrasSenasExtranjero: s.foreignAddress } : {}),
    ...(s.phone ? { phone: s.phone } : {}),
    emails: s.email ? [s.email] : [],
  };
  const { emails: _emails, ...receptor } = companyParty(company);
  const docType = s.document.type as TipoDocumentoReferencia;
  const totals = recomputed(invoice, type);
  return {
    ...common(config, invoice, company),
    docType: type.code,
    ...(s.activityCode ? { activityCode: s.activityCode } : {}),
    receptorActivityCode: company.activityCode,
    // The XSD's EmisorType of an FEC allows no Ubicacion: the builder checks it by kind.
    emisor: emisor as Emisor,
    receptor,
    ...(invoice.conditionOther ? { condicionVentaOtros: invoice.conditionOther } : {}),
    ...(invoice.creditDays ? { plazoCredito: invoice.creditDays } : {}),
    mediosPago: mediosPago(invoice, totals),
    lines: invoice.lines.map((l) => l.input),
    totals,
    referencias: [
      {
        docType,
        ...(docType === '99' ? { docTypeOther: 'Compra a proveedor sin comprobante electrónico' } : {}),
        ...(s.document.number ? { number: s.document.number } : {}),
        issuedAt: new Date(s.document.issuedAt ?? invoice.issuedAt!),
        ...(docType === '16' ? { code: '11' as CodigoReferencia } : {}),
        reason: 'Factura electrónica de compra',
      },
    ],
  } as IssuedDocument;
}

/** The REP: company → client, its lines the payment's shares, referencing the invoice it settles. */
export function receiptDocument(
  config: Config,
  invoice: InvoiceRow,
  company: CompanyParty,
  client: ClientParty,
  type: DocumentTypeDescriptor,
): IssuedDocument {
  const ref = invoice.reference;
  if (!ref) throw new PartyDataError(`invoice ${invoice.id}: a receipt without the invoice it settles`);
  const { emails, ...emisorParty } = companyParty(company);
  return {
    ...common(config, invoice, company),
    docType: type.code,
    emisor: {
      name: emisorParty.name,
      idType: emisorParty.idType,
      idNumber: emisorParty.idNumber,
      emails,
    } as Emisor,
    receptor: {
      name: client.name,
      idType: client.idType as IdentificationType,
      idNumber: client.idNumber,
      ...(client.email ? { email: client.email } : {}),
    },
    mediosPago: invoice.paymentMethods.map((m) => ({
      type: PAYMENT_METHODS[m] ?? '01',
      ...(m === 'otros' && invoice.paymentMethodOther ? { other: invoice.paymentMethodOther } : {}),
    })),
    lines: invoice.lines.map((l) => l.input),
    totals: recomputed(invoice, type),
    referencias: [
      {
        docType: ref.docType,
        number: ref.clave,
        issuedAt: new Date(ref.issuedAt),
        code: ref.code,
        reason: ref.reason,
      },
    ],
    // A REP has no CodigoActividadEmisor (its builder writes none).
    activityCode: '',
  } as IssuedDocument;
}
