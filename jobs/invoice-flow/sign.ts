// invoice.sign over a chunk: builds each FacturaElectronica and signs it with its company's key
// (XAdES-EPES). The signed bytes are stored once and never re-serialised; invoices already signed
// are not loaded at all, so a retried or re-created chunk signs only what is left. The parties the
// document was built from are stored with it (invoice_documents.parties, domain/signed-parties.ts). A
// document that cannot be signed or stored is its own permanent processing error; the others go on.
import { UnrecoverableError, type Job } from 'bullmq';
import {
  invoicesToSign,
  storeSignedDocuments,
  type CredentialsStamped,
} from '../../db/queries/invoice-flow.ts';
import { Client, Company } from '../../db/models/index.ts';
import type { InvoiceRow } from '../../db/queries/invoices.ts';
import { DomainValidationError } from '../../domain/errors.ts';
import { signedParties, type SignedParties } from '../../domain/signed-parties.ts';
import {
  checkBeforeSigning,
  SchemaViolationError,
  type UnsignedDocument,
} from '../../hacienda/xsd-compiled.ts';
import { XmlCharacterError } from '../../hacienda/xml/writer.ts';
import type { XadesSigner } from '../../hacienda/signer.ts';
import { assertCertificateCurrent, SigningKeyError } from '../../hacienda/signing-key.ts';
import type { ChunkJobData } from './queues.ts';
import { MissingCredentialsError, type JobContext } from '../context.ts';
import { documentXml, DocumentDataError, facturaDocument } from '../invoice-document.ts';
import { recordProcessingError } from '../../db/queries/processing-error.ts';
import { isTransientDatabaseError } from '../../db/connection.ts';
import { lastAttempt, memberError, writeIsolating } from './isolate.ts';

/** Why a document can never be signed as it stands (recorded on the invoice, not retried). */
function permanentCode(err: unknown): string | undefined | null {
  if (err instanceof SchemaViolationError || err instanceof XmlCharacterError) return 'schema_invalid';
  // A certificate outside its validity: Hacienda would reject the signature; a new one is uploaded.
  if (err instanceof SigningKeyError) return err.code;
  if (err instanceof MissingCredentialsError) return 'credentials_missing';
  if (err instanceof DocumentDataError || err instanceof DomainValidationError) return undefined;
  return null; // not permanent
}

/** The companies and clients of the chunk's invoices (clients with their addresses, in order). */
async function partiesOf(ctx: JobContext, invoices: InvoiceRow[]) {
  const [companies, clients] = await Promise.all([
    Company.query(ctx.db).findByIds([...new Set(invoices.map((i) => i.companyId))]),
    Client.query(ctx.db)
      .findByIds([...new Set(invoices.flatMap((i) => (i.clientId === null ? [] : [i.clientId])))])
      .withGraphFetched('addresses(ordered)')
      .modifiers({ ordered: (b) => b.orderBy('position') }),
  ]);
  return {
    companyById: new Map(companies.map((c) => [Number(c.id), c])),
    clientById: new Map(clients.map((c) => [Number(c.id), c])),
  };
}

/** A chunk's document, built and not yet checked or signed. */
interface BuiltDocument extends UnsignedDocument {
  invoice: InvoiceRow;
  parties: SignedParties;
  signer: XadesSigner;
}

/**
 * Builds each invoice's document from its row and parties, with its company's signer; one that
 * cannot be built, or has no signer, goes to `fail`.
 */
async function buildChunk(
  ctx: JobContext,
  invoices: (InvoiceRow & CredentialsStamped)[],
  parties: { companyById: Map<number, Company>; clientById: Map<number, Client> },
  signerOf: (invoice: InvoiceRow & CredentialsStamped) => Promise<XadesSigner>,
  fail: (invoice: InvoiceRow, err: unknown) => void,
): Promise<BuiltDocument[]> {
  const { companyById, clientById } = parties;
  const built: BuiltDocument[] = [];
  for (const invoice of invoices) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      const company = companyById.get(invoice.companyId);
      // A tiquete sold to no one has no receptor (null), nor has a purchase (08: its emisor is the
      // supplier on the row); a client that vanished is a data error.
      const client = invoice.clientId === null ? null : clientById.get(invoice.clientId);
      if (!company || client === undefined)
        throw new DocumentDataError(`invoice ${invoice.id}: company or client missing`);
      // The parties are kept as the document is built from them: whatever is made of it later
      // (the reception request, the PDF, the email) names the parties of its signed XML.
      const signed = signedParties(company, client);
      const doc = facturaDocument(ctx.config, invoice, signed.company, signed.client);
      const signer = await signerOf(invoice);
      built.push({ invoice, parties: signed, signer, ...documentXml(doc) });
    } catch (err) {
      fail(invoice, err);
    }
  }
  return built;
}

export async function signChunk(job: Job<ChunkJobData>, ctx: JobContext): Promise<string> {
  const { db } = ctx;
  const ids = job.data.invoiceIds;
  // 1. What is left to sign, with its companies and clients: three queries for the chunk.
  const invoices = await invoicesToSign(db, ids);
  if (!invoices.length) return 'already signed';
  const { companyById, clientById } = await partiesOf(ctx, invoices);
  const byId = new Map(invoices.map((i) => [i.id, i]));
  const signers = new Map<string, Promise<XadesSigner>>();
  const signerOf = (invoice: InvoiceRow & CredentialsStamped) => {
    const key = `${invoice.companyId}:${invoice.livemode}`;
    let signer = signers.get(key);
    if (!signer) {
      // A certificate that expired since the invoice was recorded signs nothing (checked once per
      // chunk and key, at the signing time the document will carry).
      signer = ctx.hacienda
        .signer(invoice.companyId, invoice.livemode, invoice.credentialsStamp)
        .then((s) => {
          assertCertificateCurrent(s.certificate, ctx.now());
          return s;
        });
      signers.set(key, signer);
    }
    return signer;
  };

  // 2. Build each, check them all against the XSD together (a few exchanges with the validator
  //    thread), then sign each; a document that can never be signed is its own problem.
  const signed: { invoiceId: number; xml: string; parties: SignedParties }[] = [];
  const failed: { invoice: InvoiceRow; err: unknown; code: string | undefined }[] = [];
  const unknown: { invoice: InvoiceRow; err: unknown }[] = [];
  const fail = (invoice: InvoiceRow, err: unknown) => {
    const code = permanentCode(err);
    if (code === null) unknown.push({ invoice, err });
    else failed.push({ invoice, err, code });
  };
  const built = await buildChunk(ctx, invoices, { companyById, clientById }, signerOf, fail);
  const checks = await checkBeforeSigning(built, ctx.config.xsdDir).catch((err: unknown) =>
    built.map(() => err),
  );
  for (const [i, doc] of built.entries()) {
    // Between documents the event loop turns: the job's lock renewal and the other jobs' I/O
    // never wait for a whole chunk's signatures.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      if (checks[i]) throw checks[i];
      const bytes = await doc.signer.sign(doc.xml, { signingTime: ctx.now() });
      signed.push({ invoiceId: doc.invoice.id, xml: bytes, parties: doc.parties });
    } catch (err) {
      fail(doc.invoice, err);
    }
  }
  // An error of no known kind is retried with the chunk when it may be nobody's (the database's
  // own, or every document of the run failing alike); it is the document's own when others of its
  // chunk were signed, or when it still fails on the job's last attempt.
  let transient: unknown = null;
  const own = signed.length > 0 || lastAttempt(job);
  for (const u of unknown)
    if (!own || isTransientDatabaseError(u.err)) transient ??= u.err;
    else failed.push({ invoice: u.invoice, err: u.err, code: 'sign_failed' });

  // 3. Store the exact bytes in one statement (the first writer wins), then the failures; a
  //    document whose bytes cannot be stored fails alone (jobs/invoice-flow/isolate.ts).
  const unstored = await writeIsolating(signed, (part) => storeSignedDocuments(db, [...part]));
  for (const u of unstored)
    failed.push({
      invoice: byId.get(u.member.invoiceId)!,
      err: memberError(u.err),
      code: 'signed_not_stored',
    });
  for (const f of failed) await recordProcessingError(db, f.invoice.id, 'sign', f.err, true, f.code);
  if (transient) throw transient; // retried: the next run signs only what is still unsigned
  if (signed.length === unstored.length && failed.length === ids.length) {
    // No invoice of the chunk can go on: its flow ends here, visibly.
    throw new UnrecoverableError((failed[0]!.err as Error).message);
  }
  const stored = signed.length - unstored.length;
  return `signed ${stored}${failed.length ? `, ${failed.length} failed for good` : ''}`;
}
