// The PDF of an issued invoice, for the API's `/pdf` route, the email job and the month's archive:
// rebuilt with the parties it was signed with (jobs/invoice-document.ts), rendered by documents/, and cached in
// Postgres under a key made of the layout version and the document's states, so a change of
// Hacienda state (or of the layout) makes the next read render it again. The renderer (pdfkit,
// fonts, QR encoder) is loaded on the first render, so a process that only serves cached copies,
// or never renders, does not hold it.
import type { Knex } from 'knex';
import type { Config } from '../config/index.ts';
import { companyLogoDigest, getCompanyLogo } from '../db/queries/company-logos.ts';
import { getCachedPdf, storeCachedPdf } from '../db/queries/invoice-pdfs.ts';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import { isDocumentTypeCode } from '../domain/document-types/index.ts';
import type { InvoiceState } from '../domain/invoice-states.ts';
import { PDF_LAYOUT_VERSION } from '../documents/layout-version.ts';
import { DocumentDataError, loadFacturaDocument } from './invoice-document.ts';

/**
 * What a cached copy must have been rendered for to be served: the layout, the states, the
 * company's logo (its digest; nothing without one, so copies made before logos stay valid), and
 * whether the document was signed: a copy made before it was (from the parties as they were then)
 * is never served once it is, the signed one being rendered from the parties kept with the
 * signature.
 */
export function pdfStateKey(
  invoice: Pick<InvoiceRow, 'status' | 'haciendaStatus' | 'signedAt'>,
  logoSha256: string | null = null,
): string {
  const logo = logoSha256 ? `:logo-${logoSha256.slice(0, 16)}` : '';
  const unsigned = invoice.signedAt === null ? ':unsigned' : '';
  return `v${PDF_LAYOUT_VERSION}:${invoice.status}:${invoice.haciendaStatus ?? ''}${logo}${unsigned}`;
}

export interface InvoicePdf {
  pdf: Buffer;
  /** Whether the copy came from the cache. */
  cached: boolean;
}

/** Throws DocumentDataError for a draft (no clave yet) or a document that cannot be rebuilt. */
export async function invoicePdf(db: Knex, config: Config, invoice: InvoiceRow): Promise<InvoicePdf> {
  if (invoice.status === 'borrador' || !invoice.clave)
    throw new DocumentDataError(`invoice ${invoice.id} is a draft: it has no clave yet`);
  const key = pdfStateKey(invoice, await companyLogoDigest(db, invoice.companyId));
  const cached = await getCachedPdf(db, invoice.id, key);
  if (cached) return { pdf: cached, cached: true };
  const logo = await getCompanyLogo(db, invoice.companyId);
  const document = await loadFacturaDocument(db, config, invoice);
  if (!isDocumentTypeCode(invoice.docType))
    throw new DocumentDataError(`invoice ${invoice.id} has an unknown document type ${invoice.docType}`);
  const { renderInvoicePdf } = await import('../documents/invoice-pdf.ts');
  const pdf = await renderInvoicePdf({
    document,
    docType: invoice.docType,
    livemode: invoice.livemode,
    status: invoice.status as InvoiceState,
    haciendaStatus: invoice.haciendaStatus,
    logo: logo ? { data: logo.data, width: logo.width, height: logo.height } : null,
  });
  await storeCachedPdf(db, invoice.id, key, pdf);
  return { pdf, cached: false };
}
