// Rebuilds an invoice's FacturaElectronica from Postgres: the emisor from the company, the
// receptor from the client, the lines exactly as recorded, the totals recomputed by the same
// pure code (and checked against the recorded total).
import type { Knex } from 'knex';
import type { Config } from '../config/index.ts';
import { Client, Company } from '../db/models/index.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import type { CondicionVenta, IdentificationType } from '../domain/codes.ts';
import { PAYMENT_METHODS } from '../domain/sale-terms.ts';
import { computeDocumentTotals } from '../domain/totals.ts';
import { buildFacturaXml, type FacturaDocument } from '../hacienda/xml/factura.ts';
import { assertValidBeforeSigning } from '../hacienda/xsd-compiled.ts';

export class DocumentDataError extends Error {}

export async function loadFacturaDocument(
  db: Knex,
  config: Config,
  invoice: InvoiceRow,
): Promise<FacturaDocument> {
  const [company, client] = await Promise.all([
    Company.query(db).findById(invoice.companyId),
    Client.query(db)
      .findById(invoice.clientId)
      .withGraphFetched('addresses(ordered)')
      .modifiers({ ordered: (b) => b.orderBy('position') }),
  ]);
  if (!company || !client) throw new DocumentDataError(`invoice ${invoice.id}: company or client missing`);
  return facturaDocument(config, invoice, company, client);
}

export function facturaDocument(
  config: Config,
  invoice: InvoiceRow,
  company: Company,
  client: Client,
): FacturaDocument {
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
  const totals = computeDocumentTotals(lines, {
    currency: invoice.currency as never,
    exchangeRate: invoice.exchangeRate,
    docType: invoice.docType as '01',
  });
  if (totals.summary.totalComprobante !== invoice.summary.summary.totalComprobante) {
    throw new DocumentDataError(`invoice ${invoice.id}: recomputed total differs from the recorded one`);
  }
  const address = client.addresses?.[0];
  return {
    clave: invoice.clave,
    consecutivo: invoice.consecutivo,
    issuedAt: new Date(invoice.issuedAt),
    proveedorSistemas: config.proveedorSistemas || company.idNumber,
    activityCode: company.activityCode,
    ...(client.activityCode ? { receptorActivityCode: client.activityCode } : {}),
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
    receptor: {
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
      ...(client.phone ? { phone: { countryCode: client.phoneCountry ?? '506', number: client.phone } } : {}),
      ...(client.email ? { email: client.email } : {}),
    },
    condicionVenta: invoice.condicionVenta as CondicionVenta,
    ...(invoice.conditionOther ? { condicionVentaOtros: invoice.conditionOther } : {}),
    ...(invoice.creditDays ? { plazoCredito: invoice.creditDays } : {}),
    mediosPago: invoice.paymentMethods.map((m) => ({
      type: PAYMENT_METHODS[m] ?? '01',
      ...(m === 'otros' && invoice.paymentMethodOther ? { other: invoice.paymentMethodOther } : {}),
    })),
    lines,
    totals,
  };
}

/**
 * The FacturaElectronica of a document, checked against the official XSD (folder `xsdDir`) before
 * anyone signs it: a SchemaViolationError names the XSD's message. Input the API accepted never
 * fails here (domain/field-rules.ts refuses it first); this is the last line before a signature.
 */
export async function buildInvoiceXml(doc: FacturaDocument, xsdDir: string): Promise<string> {
  const xml = buildFacturaXml(doc);
  await assertValidBeforeSigning('FacturaElectronica', xml, xsdDir);
  return xml;
}
