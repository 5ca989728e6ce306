// Rebuilds an issued document from Postgres, as its document type's descriptor says
// (domain/document-types/): a sale (factura, tiquete, exportación, notes) has the emisor from the
// company and the receptor from the client, as signed once it is (invoice_documents.parties,
// domain/signed-parties.ts), as they are now before (none on a tiquete sold to no one; a foreign
// receptor's address as OtrasSenasExtranjero), the lines exactly as recorded, the totals
// recomputed by the same pure code under the type's rules (and checked against the recorded
// total), and its reference as InformacionReferencia. A purchase and a receipt have parties of
// their own (purchase-receipt-document.ts).
import type { Knex } from 'knex';
import type { Config } from '../config/index.ts';
import { Client, Company } from '../db/models/index.ts';
import { signedPartiesOf, type InvoiceRow } from '../db/queries/invoices.ts';
import type { CondicionVenta, IdentificationType } from '../domain/codes.ts';
import type { ClientParty, CompanyParty } from '../domain/signed-parties.ts';
import { findDocumentType, type DocumentTypeDescriptor } from '../domain/document-types/index.ts';
import { PAYMENT_METHODS } from '../domain/sale-terms.ts';
import { computeDocumentTotals, returnedIvaShare, type DocumentTotals } from '../domain/totals.ts';
import type { Emisor, IssuedDocument, Receptor } from '../hacienda/xml/types.ts';
import { chargeInput } from '../domain/document-notes.ts';
import { buildComprobanteXml } from '../hacienda/xml/comprobante.ts';
import { comprobanteKind } from '../hacienda/xml/document-types.ts';
import type { SchemaDocumentType } from '../hacienda/xsd.ts';
import { assertValidBeforeSigning, type UnsignedDocument } from '../hacienda/xsd-compiled.ts';
import { PartyDataError, purchaseDocument, receiptDocument } from './purchase-receipt-document.ts';

export type { IssuedDocument } from '../hacienda/xml/types.ts';

export class DocumentDataError extends Error {}

/**
 * The document as it was signed: its parties from the snapshot stored with the signature
 * (`invoice_documents.parties`), or, for a document not signed yet or signed before snapshots were kept, from
 * the company's and the client's rows as they are now.
 */
export async function loadFacturaDocument(
  db: Knex,
  config: Config,
  invoice: InvoiceRow,
): Promise<IssuedDocument> {
  const signed = invoice.signedAt === null ? null : await signedPartiesOf(db, invoice.id);
  if (signed) return facturaDocument(config, invoice, signed.company, signed.client);
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

type PartiesBuilder = (
  config: Config,
  invoice: InvoiceRow,
  company: CompanyParty,
  client: ClientParty | null,
  type: DocumentTypeDescriptor,
) => IssuedDocument;

/** How each kind of parties is written (the descriptor's `parties`). */
const BUILDERS: Readonly<Record<DocumentTypeDescriptor['parties'], PartiesBuilder>> = {
  sale: saleDocument,
  purchase: (config, invoice, company, _client, type) => purchaseDocument(config, invoice, company, type),
  receipt: (config, invoice, company, client, type) =>
    receiptDocument(config, invoice, company, clientOf(invoice, client), type),
  answer: (_config, invoice) => {
    throw new DocumentDataError(`invoice ${invoice.id}: a receptor's message is not an issued document`);
  },
};

export function facturaDocument(
  config: Config,
  invoice: InvoiceRow,
  company: CompanyParty,
  client: ClientParty | null,
): IssuedDocument {
  const type = findDocumentType(invoice.docType);
  if (!type)
    throw new DocumentDataError(`invoice ${invoice.id} has an unknown document type ${invoice.docType}`);
  try {
    return BUILDERS[type.parties](config, invoice, company, client, type);
  } catch (err) {
    if (err instanceof PartyDataError) throw new DocumentDataError(err.message);
    throw err;
  }
}

/** The company as the Emisor of a sale; it must have its activity and location. */
function saleEmisor(company: CompanyParty): Emisor & { activityCode: string } {
  if (
    !company.activityCode ||
    !company.provincia ||
    !company.canton ||
    !company.distrito ||
    !company.otrasSenas
  ) {
    throw new DocumentDataError(`company ${company.id} lacks emisor activity or location data`);
  }
  return {
    activityCode: company.activityCode,
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
  };
}

/** MedioPago as recorded with the totals, else the row's payment methods (amounts unknown). */
function recordedMedios(invoice: InvoiceRow) {
  return (
    invoice.summary.summary.medioPago ??
    invoice.paymentMethods.map((m) => ({
      type: PAYMENT_METHODS[m] ?? '01',
      other: m === 'otros' ? invoice.paymentMethodOther : null,
      total: null,
    }))
  );
}

/**
 * The totals of a sale recomputed from what was recorded, under its type's rules: the charges'
 * amounts as resolved at creation, the payments' amounts (or the single payment without one), a
 * note's IVA returned in the share of the document it references. Checked against the recorded total.
 */
function saleTotals(invoice: InvoiceRow, type: DocumentTypeDescriptor): DocumentTotals {
  const stored = invoice.summary;
  const medios = recordedMedios(invoice);
  const totals = computeDocumentTotals(
    invoice.lines.map((l) => l.input),
    {
      currency: invoice.currency,
      exchangeRate: invoice.exchangeRate,
      docType: type.rules,
      otherCharges: (stored.otherCharges ?? []).map((c) => chargeInput(c, c.amount)),
      ...(type.referencesIvaReturned ? { ivaReturnedOf: returnedIvaShare(stored) } : {}),
      payments:
        medios.length > 1 || medios.some((m) => m.total)
          ? medios.map((m) => ({ type: m.type, other: m.other, amount: m.total }))
          : undefined,
    },
  );
  if (totals.summary.totalComprobante !== stored.summary.totalComprobante) {
    throw new DocumentDataError(`invoice ${invoice.id}: recomputed total differs from the recorded one`);
  }
  return totals;
}

/** A sale: the company to its client (or to no one, where the type allows it). */
function saleDocument(
  config: Config,
  invoice: InvoiceRow,
  company: CompanyParty,
  client: ClientParty | null,
  type: DocumentTypeDescriptor,
): IssuedDocument {
  if (!invoice.clave || !invoice.consecutivo || !invoice.issuedAt) {
    throw new DocumentDataError(`invoice ${invoice.id} is a draft: it has no clave yet`);
  }
  const { activityCode, ...emisor } = saleEmisor(company);
  const totals = saleTotals(invoice, type);
  const ref = invoice.reference;
  if (!client && type.xml.receptor === 'required')
    throw new DocumentDataError(`invoice ${invoice.id}: a ${type.xml.root} needs a receptor`);
  return {
    docType: type.code,
    clave: invoice.clave,
    consecutivo: invoice.consecutivo,
    issuedAt: new Date(invoice.issuedAt),
    proveedorSistemas: config.proveedorSistemas || company.idNumber,
    activityCode,
    ...(client?.activityCode && type.xml.receptorActivityCode
      ? { receptorActivityCode: client.activityCode }
      : {}),
    emisor,
    ...(client ? { receptor: receptorOf(client, type.xml.layout === 'exportacion') } : {}),
    condicionVenta: invoice.condicionVenta as CondicionVenta,
    ...(invoice.conditionOther ? { condicionVentaOtros: invoice.conditionOther } : {}),
    ...(invoice.creditDays ? { plazoCredito: invoice.creditDays } : {}),
    mediosPago: (totals.summary.medioPago ?? recordedMedios(invoice)).map((m) => ({
      type: m.type,
      ...(m.other ? { other: m.other } : {}),
      ...(m.total ? { total: m.total } : {}),
    })),
    lines: invoice.lines.map((l) => l.input),
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

/**
 * A client as the Receptor. A foreign address is OtrasSenasExtranjero wherever the schema has it;
 * the FEE's ReceptorType has no Ubicacion, so a Costa Rican address is left out of an export.
 */
function receptorOf(client: ClientParty, exportacion: boolean): Receptor {
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
function clientOf(invoice: InvoiceRow, client: ClientParty | null): ClientParty {
  if (!client) throw new DocumentDataError(`invoice ${invoice.id}: its client is missing`);
  return client;
}

/** The XML of a document, as its type lays it out, not yet checked against its XSD. */
export function documentXml(doc: IssuedDocument): UnsignedDocument {
  const { docType, ...rest } = doc;
  return {
    docType: comprobanteKind(docType).root as SchemaDocumentType,
    xml: buildComprobanteXml(docType, rest),
  };
}

/**
 * The XML of a document, as its type lays it out, checked against the type's official XSD (folder
 * `xsdDir`) before anyone signs it: a SchemaViolationError names the XSD's message. Input the API
 * accepted never fails here (domain/field-rules.ts refuses it first); this is the last line before
 * a signature. (The sign job checks a whole chunk's documents at once: checkBeforeSigning.)
 */
export async function buildInvoiceXml(doc: IssuedDocument, xsdDir: string): Promise<string> {
  const { docType, xml } = documentXml(doc);
  await assertValidBeforeSigning(docType, xml, xsdDir);
  return xml;
}
