// Invoices: their row shape, drafts issued later, reads and lists. Recording goes through
// invoice-bulk.ts (one or many invoices per transaction; single API creates are grouped per
// series by operations/invoice-committer.ts). Every query is scoped to (company, mode).
import type { CodigoMoneda } from '../../domain/codes.ts';
import type { LineCredit } from '../../domain/note-credits.ts';
import type { Knex } from 'knex';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../../domain/clave.ts';
import type { DocumentTotals } from '../../domain/totals.ts';
import type { DocumentLine } from '../../domain/document-line.ts';
import type { DocumentReference } from '../../domain/document-notes.ts';
import type { Supplier } from '../../domain/purchase-request.ts';
import type { SignedParties } from '../../domain/signed-parties.ts';
import { enqueueOutbox } from './events.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import { paidAtIssueBalance } from '../../domain/balance.ts';

// The idempotency helpers moved to ./idempotency.ts (shared with payments); re-exported here so
// existing imports keep working.
export {
  findIdempotent,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
  type IdempotencyInput,
  type StoredResponse,
} from './idempotency.ts';

export interface StoredLine {
  serviceId: number | null;
  /** The document line exactly as the totals and the XML consume it (dates as ISO strings). */
  input: DocumentLine;
  /** A note's line: what it credits (or debits) of the referenced document's line. */
  credit?: LineCredit;
}

/**
 * One of Hacienda's observations on an accepted document (a row of its answer's bare table, e.g.
 * -16 sent late, -37 the emisor's location): its code and words, and their reading.
 */
export interface HaciendaWarning {
  code: number | null;
  message: string;
  readable: { es: string; en: string };
  fix: { es: string; en: string };
}

export interface InvoiceRow {
  id: number;
  /** The creating request's W3C trace context as stored text (null: tracing off). */
  traceContext?: string | null;
  companyId: number;
  livemode: boolean;
  /** The receptor; null on a tiquete (04) sold to no one in particular. */
  clientId: number | null;
  status: string;
  docType: string;
  branch: string;
  terminal: string;
  number: number | null;
  consecutivo: string | null;
  clave: string | null;
  securityCode: string | null;
  situacion: string;
  issuedAt: Date | null;
  /** ISO 4217, one of Hacienda's CodigoMoneda (the column's check). */
  currency: CodigoMoneda;
  exchangeRate: string;
  /** request (given by the caller), hacienda_bccr (the day's reference sell rate), null for CRC. */
  exchangeRateSource: string | null;
  condition: string;
  condicionVenta: string;
  conditionOther: string | null;
  creditDays: number | null;
  paymentMethods: string[];
  paymentMethodOther: string | null;
  /** A cash sale settled by one payment when its issue entry is booked (operations/invoice-booking.ts). */
  paidAtIssue: boolean;
  lines: StoredLine[];
  summary: DocumentTotals;
  total: string;
  balanceDue: string;
  paymentStatus: string;
  externalId: string | null;
  metadata: Record<string, string>;
  rejectionReason: Record<string, unknown> | null;
  /** Hacienda's observations on the accepted document (`[]`: none, or not accepted yet). */
  warnings: HaciendaWarning[];
  processingError: Record<string, unknown> | null;
  haciendaStatus: string | null;
  /** Since when Hacienda has answered 404 for the clave of this `enviada` invoice (null: it knows it). */
  haciendaMissingSince: Date | null;
  /** Extra recipients of the document's email, and what became of the last email. */
  emailRecipients: string[];
  emailStatus: 'pending' | 'sent' | 'failed' | 'bounced' | null;
  emailedAt: Date | null;
  emailBounces: { address: string; code: number | null; response: string }[];
  signedAt: Date | null;
  submittedAt: Date | null;
  accountedAt: Date | null;
  acceptedAt: Date | null;
  rejectedAt: Date | null;
  requestId: string | null;
  /** What this document references (InformacionReferencia): notes and replacements. */
  reference: DocumentReference | null;
  /** A factura electrónica de compra's supplier, its emisor (null for every other type). */
  supplier?: Supplier | null;
  referencedInvoiceId: number | null;
  /** Credits reserved by this document's credit notes (≤ total, a database check). */
  creditedTotal: string;
  /** When its credits reached its total. */
  annulledAt: Date | null;
  /** The invoice that replaced this rejected one. */
  replacedById: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface PreparedInvoice {
  clientId: number | null;
  /** A registered document type's code (domain/document-types/). */
  docType: string;
  branch: string;
  terminal: string;
  currency: CodigoMoneda;
  exchangeRate: string;
  /** request (given by the caller), hacienda_bccr (the day's reference sell rate), null for CRC. */
  exchangeRateSource?: string | null;
  condition: string;
  condicionVenta: string;
  conditionOther: string | null;
  creditDays: number | null;
  paymentMethods: string[];
  paymentMethodOther: string | null;
  paidAtIssue: boolean;
  lines: StoredLine[];
  totals: DocumentTotals;
  externalId: string | null;
  metadata: Record<string, string>;
  emailRecipients: string[];
  /** Notes and replacements: the document referenced. */
  reference?: DocumentReference;
  /** A factura electrónica de compra: its supplier, the emisor (purchases.ts). */
  supplier?: Supplier;
}

/**
 * Reserves the next number of a series. The series row stays locked until the transaction ends,
 * so callers do this as late as possible; a rollback gives the number back (no gaps).
 */
export async function reserveNumber(
  trx: Knex.Transaction,
  s: { companyId: number; livemode: boolean; docType: string; branch: string; terminal: string },
): Promise<number> {
  const res = await trx.raw(
    `insert into numbering_series (company_id, livemode, doc_type, branch, terminal, last_number)
     values (?, ?, ?, ?, ?, 1)
     on conflict (company_id, livemode, doc_type, branch, terminal)
     do update set last_number = numbering_series.last_number + 1
     returning last_number`,
    [s.companyId, s.livemode, s.docType, s.branch, s.terminal],
  );
  return Number(res.rows[0].last_number);
}

function issueFields(
  tenant: Tenant,
  p: { docType: string; branch: string; terminal: string },
  number: number,
  emisorId: string,
  now: Date,
) {
  const consecutivo = buildConsecutivo({
    branch: p.branch,
    terminal: p.terminal,
    docType: p.docType as '01',
    number,
  });
  const securityCode = randomSecurityCode();
  const clave = buildClave({ date: now, emisorId, consecutivo, situacion: '1', securityCode });
  return { number, consecutivo, clave, securityCode, issuedAt: now, situacion: '1' };
}

/** Issues a draft: number, clave and the flow, in one guarded transaction. */
export async function issueDraft(
  db: Knex,
  tenantIn: Tenant,
  id: number,
  opts: { emisorId: string; requestId: string | null; now?: () => Date },
): Promise<InvoiceRow | null> {
  const tenant = tenantOnly(tenantIn);
  return db.transaction(async (trx) => {
    const draft = await trx('invoices')
      .where({ ...tenant, id, status: 'borrador' })
      .forUpdate()
      .first();
    if (!draft) return null;
    const now = (opts.now ?? (() => new Date()))();
    const number = await reserveNumber(trx, {
      ...tenant,
      docType: draft.docType,
      branch: draft.branch,
      terminal: draft.terminal,
    });
    const [row] = await trx('invoices')
      .where({ id, status: 'borrador' })
      .update({
        status: 'pendiente',
        ...issueFields(tenant, draft, number, opts.emisorId, now),
        // Paid at issue: nothing is due from now on (invoice-bulk.ts, invoiceRecord).
        ...(draft.paidAtIssue
          ? paidAtIssueBalance({
              docType: draft.docType,
              status: 'pendiente',
              total: draft.total,
              creditedTotal: 0,
              applied: 0,
            })
          : {}),
        updatedAt: trx.fn.now(),
      })
      .returning('*');
    await enqueueOutbox(trx, 'invoice.flow', { invoiceId: id }, opts.requestId);
    return row as InvoiceRow;
  });
}

export async function getInvoice(db: Knex, tenant: Tenant, id: number): Promise<InvoiceRow | undefined> {
  return db('invoices')
    .where({ ...tenantOnly(tenant), id })
    .first();
}

export interface InvoiceFilters {
  status?: string;
  docType?: string;
  clientId?: number;
  /** An invoice's own identifier: its id, clave, consecutivo or external id (exact match). */
  search?: string;
  externalId?: string;
  createdGte?: string;
  createdLt?: string;
  updatedGte?: string;
  updatedLt?: string;
  startingAfter?: number;
  limit: number;
}

/**
 * The columns the public invoice object is made of (invoiceObject in db/public-objects.ts): what a
 * list reads, so a page of 20 does not carry the series, numbering and bookkeeping columns only the
 * workers use.
 */
export const PUBLIC_INVOICE_COLUMNS = [
  'id',
  'livemode',
  'status',
  'docType',
  'consecutivo',
  'clave',
  'clientId',
  'supplier',
  'currency',
  'exchangeRate',
  'exchangeRateSource',
  'condition',
  'creditDays',
  'paymentMethods',
  'paymentMethodOther',
  'paidAtIssue',
  'issuedAt',
  'lines',
  'summary',
  'total',
  'paymentStatus',
  'balanceDue',
  'rejectionReason',
  'warnings',
  'processingError',
  'externalId',
  'metadata',
  'emailRecipients',
  'emailStatus',
  'emailedAt',
  'emailBounces',
  'haciendaStatus',
  'signedAt',
  'submittedAt',
  'acceptedAt',
  'rejectedAt',
  'reference',
  'creditedTotal',
  'annulledAt',
  'replacedById',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof InvoiceRow)[];

export type PublicInvoiceRow = Pick<InvoiceRow, (typeof PUBLIC_INVOICE_COLUMNS)[number]>;

/**
 * A page of invoices, newest first: keyset pagination (`starting_after` → id below it), each
 * filter an equality or range the (company, mode, …) indexes answer in order, so a page reads
 * its own rows and no count is taken (`has_more` comes from fetching one row more).
 */
function invoicePage(db: Knex, tenant: Tenant, f: InvoiceFilters): Knex.QueryBuilder {
  const q = db('invoices')
    .where(tenantOnly(tenant))
    .orderBy([
      { column: 'companyId', order: 'desc' },
      { column: 'livemode', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
  if (f.status) q.where('status', f.status);
  if (f.docType) q.where('docType', f.docType);
  if (f.clientId !== undefined) q.where('clientId', f.clientId);
  if (f.search !== undefined) q.where((w) => identifierMatch(w, f.search!));
  if (f.externalId !== undefined) q.where('externalId', f.externalId);
  if (f.createdGte) q.where('createdAt', '>=', f.createdGte);
  if (f.createdLt) q.where('createdAt', '<', f.createdLt);
  if (f.updatedGte) q.where('updatedAt', '>=', f.updatedGte);
  if (f.updatedLt) q.where('updatedAt', '<', f.updatedLt);
  if (f.startingAfter !== undefined) q.where('id', '<', f.startingAfter);
  return q;
}

/**
 * The row version Postgres gives every invoice (its `xmin`: each update writes the row anew under
 * the id of the transaction that wrote it), as text. The same id and version are the same row.
 */
const ROW_VERSION = 'xmin::text as version';

/** A page's rows (the public columns), each with its row version. */
export async function listInvoices(
  db: Knex,
  tenant: Tenant,
  f: InvoiceFilters,
): Promise<{ rows: (PublicInvoiceRow & { version: string })[]; hasMore: boolean }> {
  const rows = (await invoicePage(db, tenant, f).select([
    ...PUBLIC_INVOICE_COLUMNS,
    db.raw(ROW_VERSION),
  ])) as (PublicInvoiceRow & { version: string })[];
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** The same page as listInvoices, only each row's id and version: what a page is, without its rows. */
export async function listInvoiceVersions(
  db: Knex,
  tenant: Tenant,
  f: InvoiceFilters,
): Promise<{ rows: { id: number; version: string }[]; hasMore: boolean }> {
  const rows = (await invoicePage(db, tenant, f).select(['id', db.raw(ROW_VERSION)])) as {
    id: number;
    version: string;
  }[];
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/**
 * `search`: the text is compared, exactly, with each identifier an invoice has, and only with the
 * ones its shape allows: the external id always (unique index per company and mode), the numeric
 * id of `inv_…`, the clave (50 digits, unique index) and the consecutivo (20 digits, read as its
 * series and number: the unique numbering index). Each branch is one index probe, so a search
 * costs a few buffers at any volume; no substring scan of the invoices is ever made.
 */
function identifierMatch(w: Knex.QueryBuilder, text: string): void {
  w.where('externalId', text);
  const id = /^inv_(\d{12})$/.exec(text);
  if (id) w.orWhere('id', Number(id[1]));
  if (/^\d{50}$/.test(text)) w.orWhere('clave', text);
  const c = /^(\d{3})(\d{5})(\d{2})(\d{10})$/.exec(text);
  if (c && Number(c[4]) > 0) w.orWhere({ branch: c[1], terminal: c[2], docType: c[3], number: Number(c[4]) });
}

/**
 * The stored document of an issued invoice: its signed bytes, Hacienda's answer and the parties it
 * was signed with (null: not signed yet, or signed before they were kept).
 */
export async function getInvoiceDocument(
  db: Knex,
  invoiceId: number,
): Promise<
  { signedXml: Buffer | null; responseXml: string | null; parties: SignedParties | null } | undefined
> {
  return db('invoice_documents').where({ invoiceId }).first('signed_xml', 'response_xml', 'parties');
}

/** The parties an invoice was signed with (domain/signed-parties.ts); null when none were kept. */
export async function signedPartiesOf(db: Knex, invoiceId: number): Promise<SignedParties | null> {
  const row = (await db('invoice_documents').where({ invoiceId }).first('parties')) as
    { parties: SignedParties | null } | undefined;
  return row?.parties ?? null;
}

/** An invoice by its id alone (a job's own invoice: no tenant to check). */
export async function invoiceById(db: Knex, id: number): Promise<InvoiceRow | undefined> {
  return (await db('invoices').where({ id }).first()) as InvoiceRow | undefined;
}

/** The invoice of this company and mode, locked until the transaction ends (its writers take turns). */
export async function lockInvoice(
  trx: Knex.Transaction,
  tenant: Tenant,
  id: number,
): Promise<InvoiceRow | undefined> {
  return (await trx('invoices')
    .where({ ...tenant, id })
    .forUpdate()
    .first()) as InvoiceRow | undefined;
}
