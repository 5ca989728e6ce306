// invoice.sign: builds the FacturaElectronica and signs it with the company's key (XAdES-EPES).
// The signed bytes are stored once and never re-serialised; a second run finds them and stops.
import { UnrecoverableError, type Job } from 'bullmq';
import { getInvoiceDocument, type InvoiceRow } from '../db/queries/invoices.ts';
import { DomainValidationError } from '../domain/errors.ts';
import type { InvoiceJobData } from './catalogue.ts';
import { MissingCredentialsError, type JobContext } from './context.ts';
import { buildInvoiceXml, DocumentDataError, loadFacturaDocument } from './invoice-document.ts';
import { recordProcessingError } from './processing-error.ts';
import { SchemaViolationError } from '../hacienda/xsd-compiled.ts';
import { XmlCharacterError } from '../hacienda/xml/writer.ts';

export async function signInvoice(job: Job<InvoiceJobData>, ctx: JobContext): Promise<string> {
  const { db } = ctx;
  // 1. State check: nothing to do for drafts, or when the signed bytes already exist.
  const invoice = (await db('invoices').where({ id: job.data.invoiceId }).first()) as InvoiceRow | undefined;
  if (!invoice) throw new UnrecoverableError(`invoice ${job.data.invoiceId} does not exist`);
  if (invoice.status === 'borrador') throw new UnrecoverableError(`invoice ${invoice.id} is a draft`);
  const existing = await getInvoiceDocument(db, invoice.id);
  if (existing?.signedXml) return 'already signed';

  // 2. Build and sign (permanent problems are recorded on the invoice and end the flow).
  let signed: string;
  try {
    const doc = await loadFacturaDocument(db, ctx.config, invoice);
    const signer = await ctx.hacienda.signer(invoice.companyId, invoice.livemode);
    const xml = await buildInvoiceXml(doc, ctx.config.xsdDir);
    signed = await signer.sign(xml, { signingTime: ctx.now() });
  } catch (err) {
    if (err instanceof SchemaViolationError || err instanceof XmlCharacterError) {
      // A document that fails the XSD is never signed nor sent; the message names the rule.
      await recordProcessingError(db, invoice.id, 'sign', err, true, 'schema_invalid');
      throw new UnrecoverableError(err.message);
    }
    if (
      err instanceof MissingCredentialsError ||
      err instanceof DocumentDataError ||
      err instanceof DomainValidationError
    ) {
      await recordProcessingError(db, invoice.id, 'sign', err, true);
      throw new UnrecoverableError((err as Error).message);
    }
    throw err;
  }

  // 3. Store the exact bytes; the first writer wins.
  await db.transaction(async (trx) => {
    await trx('invoice_documents')
      .insert({ invoiceId: invoice.id, signedXml: Buffer.from(signed, 'utf8') })
      .onConflict('invoice_id')
      .merge({ signedXml: trx.raw('coalesce(invoice_documents.signed_xml, excluded.signed_xml)') });
    await trx('invoices')
      .where({ id: invoice.id })
      .whereNull('signed_at')
      .update({ signedAt: trx.fn.now(), processingError: null });
  });
  return 'signed';
}
