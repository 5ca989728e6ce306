// Rebuilds an issued document from Postgres (a FacturaElectronica, or the TiqueteElectronico,
// FacturaElectronicaExportacion, NotaCreditoElectronica / NotaDebitoElectronica its doc_type
// says): the emisor from the company, the receptor from the client (none on a tiquete sold to no
// one; a foreign receptor's address as OtrasSenasExtranjero), the lines exactly as recorded, the totals recomputed by the same pure code (and checked
// against the recorded total), and its reference as InformacionReferencia.
import type { Knex } from 'knex';
import type { Config } from '../config/index.ts';
import { Client, Company } from '../db/models/index.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import type { CondicionVenta, IdentificationType } from '../domain/codes.ts';
import { PAYMENT_METHODS } from '../domain/sale-terms.ts';
import { computeDocumentTotals, returnedIvaShare } from '../domain/totals.ts';
import type { ComprobanteDocument, Receptor } from '../hacienda/xml/types.ts';
import { chargeInput } from '../domain/document-notes.ts';
import { buildComprobanteXml } from '../hacienda/xml/comprobante.ts';
import { COMPROBANTE_KINDS, type ComprobanteKind } from '../hacienda/xml/document-types.ts';
import { assertValidBeforeSigning } from '../hacienda/xsd-compiled.ts';
import { PartyDataError, purchaseDocument, receiptDocument } from './purchase-receipt-document.ts';

export class DocumentDataError extends Error {}

export async function loadFacturaDocument(
  db: Knex,
  config: Config,
  invoice: InvoiceRow,
): Promise<IssuedDocument> {
  const [company, client] = await Promise.all([
    Company.query(db).findById(invoice.companyId),
    invoice.clientId === null
      ? null
      : Client.query(db)
          .findById(invoice.clientId)
          .withGraphFetched('addresses(ordered)')
          .modifiers({ ordered: (b) => b.orderBy('position') }),
  ]);
  // A tiquete may name no client; a purchase (08) has its supplier on the row instead.
  if (!company || client === undefined)
    throw new DocumentDataError(`invoice ${invoice.id}: company or client missing`);
  return facturaDocument(config, invoice, company, client);
}

export function facturaDocument(
  config: Config,
  invoice: InvoiceRow,
  company: Company,
  client: Client | null,
): IssuedDocument {
  const kind = KIND_OF[invoice.docType];
  if (!kind)
    throw new DocumentDataError(`invoice ${invoice.id} has an unknown document type ${invoice.docType}`);
  const kindInfo = COMPROBANTE_KINDS[kind];
  // A purchase (08) and a receipt (10) have parties of their own (purchase-receipt-document.ts).
  if (invoice.docType === '08' || invoice.docType === '10') {
    try {
      return invoice.docType === '08'
        ? purchaseDocument(config, invoice, company)
        : receiptDocument(config, invoice, company, clientOf(invoice, client));
    } catch (err) {
      if (err instanceof PartyDataError) throw new DocumentDataError(err.message);
      throw err;
    }
  }
  if (!invoice.clave || !invoice.consecutivo || !invoice.issuedAt) {
    throw new DocumentDataError(`invoice ${invoice.id} is a draft: it has no clave yet`);
  }
  if (
    !company.activityCode ||
    !company.provincia ||
    !company.canton ||
    !company.distrito ||
    !company.otrasSenas
  ) {
    throw new DocumentDataError(`company ${company.id} lacks emisor activity or location data`);
  }
  const lines = invoice.lines.map((l) => l.input);
  // Other charges and payments are recomputed from what was recorded: the charges' amounts as
  // resolved at creation, the payments' amounts (or the single payment without one).
  const stored = invoice.summary;
  const medios =
    stored.summary.medioPago ??
    invoice.paymentMethods.map((m) => ({
      type: PAYMENT_METHODS[m] ?? '01',
      other: m === 'otros' ? invoice.paymentMethodOther : null,
      total: null,
    }));
  const totals = computeDocumentTotals(lines, {
    currency: invoice.currency as never,
    exchangeRate: invoice.exchangeRate,
    docType: kind === 'FacturaElectronica' ? '01' : kindInfo.docType,
    otherCharges: (stored.otherCharges ?? []).map((c) => chargeInput(c, c.amount)),
    // A note returns IVA in the share of the document it references, as recorded at its creation.
    ...(kindInfo.docType === '02' || kindInfo.docType === '03'
      ? { ivaReturnedOf: returnedIvaShare(stored) }
      : {}),
    payments:
      medios.length > 1 || medios.some((m) => m.total)
        ? medios.map((m) => ({ type: m.type, other: m.other, amount: m.total }))
        : undefined,
  });
  const ref = invoice.reference;
  if (totals.summary.totalComprobante !== invoice.summary.summary.totalComprobante) {
    throw new DocumentDataError(`invoice ${invoice.id}: recomputed total differs from the recorded one`);
  }
  if (!client && kindInfo.receptor === 'required')
    throw new DocumentDataError(`invoice ${invoice.id}: a ${kindInfo.root} needs a receptor`);
  return {
    kind,
    clave: invoice.clave,
    consecutivo: invoice.consecutivo,
    issuedAt: new Date(invoice.issuedAt),
    proveedorSistemas: config.proveedorSistemas || company.idNumber,
    activityCode: company.activityCode,
    ...(client?.activityCode && kindInfo.receptorActivityCode
      ? { receptorActivityCode: client.activityCode }
      : {}),
    emisor: {
      name: company.legalName,
      idType: company.idType as IdentificationType,
      idNumber: company.idNumber,
      ...(company.commercialName ? { commercialName: company.commercialName } : {}),
      ubicacion: {
        provincia: company.provincia,
        canton: company.canton,
        distrito: company.distrito,
        ...(company.barrio ? { barrio: company.barrio } : {}),
        otrasSenas: company.otrasSenas,
      },
      ...(company.phone
        ? { phone: { countryCode: company.phoneCountry ?? '506', number: company.phone } }
        : {}),
      emails: company.emails,
    },
    ...(client ? { receptor: receptorOf(client, kindInfo.layout === 'exportacion') } : {}),
    condicionVenta: invoice.condicionVenta as CondicionVenta,
    ...(invoice.conditionOther ? { condicionVentaOtros: invoice.conditionOther } : {}),
    ...(invoice.creditDays ? { plazoCredito: invoice.creditDays } : {}),
    mediosPago: (totals.summary.medioPago ?? medios).map((m) => ({
      type: m.type,
      ...(m.other ? { other: m.other } : {}),
      ...(m.total ? { total: m.total } : {}),
    })),
    lines,
    totals,
    ...(ref
      ? {
          referencias: [
            {
              docType: ref.docType,
              number: ref.clave,
              issuedAt: new Date(ref.issuedAt),
              code: ref.code,
              reason: ref.reason,
            },
          ],
        }
      : {}),
  };
}

/** The XML root of each document type the service issues. */
const KIND_OF: Record<string, ComprobanteKind> = {
  '01': 'FacturaElectronica',
  '02': 'NotaDebitoElectronica',
  '03': 'NotaCreditoElectronica',
  '04': 'TiqueteElectronico',
  '09': 'FacturaElectronicaExportacion',
  '08': 'FacturaElectronicaCompra',
  '10': 'ReciboElectronicoPago',
};

/**
 * A client as the Receptor. A foreign address is OtrasSenasExtranjero wherever the schema has it;
 * the FEE's ReceptorType has no Ubicacion, so a Costa Rican address is left out of an export.
 */
function receptorOf(client: Client, exportacion: boolean): Receptor {
  const address = exportacion ? undefined : client.addresses?.[0];
  return {
    name: client.name,
    idType: client.idType as IdentificationType,
    idNumber: client.idNumber,
    ...(client.commercialName ? { commercialName: client.commercialName } : {}),
    ...(address
      ? {
          ubicacion: {
            provincia: address.provincia,
            canton: address.canton,
            distrito: address.distrito,
            ...(address.barrio ? { barrio: address.barrio } : {}),
            otrasSenas: address.otrasSenas,
          },
        }
      : {}),
    ...(client.foreignAddress ? { otrasSenasExtranjero: client.foreignAddress } : {}),
    ...(client.phone ? { phone: { countryCode: client.phoneCountry ?? '506', number: client.phone } } : {}),
    ...(client.email ? { email: client.email } : {}),
  };
}

/** The client a document must name (a receipt's, the factura's receptor). */
function clientOf(invoice: InvoiceRow, client: Client | null): Client {
  if (!client) throw new DocumentDataError(`invoice ${invoice.id}: its client is missing`);
  return client;
}

/** A document as the builder takes it, with its kind (a factura when absent). */
export type IssuedDocument = ComprobanteDocument & { kind?: ComprobanteKind };

/**
 * The XML of a document (FacturaElectronica, or the note its kind says), checked against the official XSD (folder `xsdDir`) before
 * anyone signs it: a SchemaViolationError names the XSD's message. Input the API accepted never
 * fails here (domain/field-rules.ts refuses it first); this is the last line before a signature.
 */
export async function buildInvoiceXml(doc: IssuedDocument, xsdDir: string): Promise<string> {
  const { kind = 'FacturaElectronica', ...rest } = doc;
  const xml = buildComprobanteXml(kind, rest);
  await assertValidBeforeSigning(kind, xml, xsdDir);
  return xml;
}
