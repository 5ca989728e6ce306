// The figures of a month's report (api/routes/reports/, domain/monthly-report.ts): grouped sums,
// in colones, over the documents of one company and mode whose issue date falls in a range (the
// caller gives a Costa Rica month as UTC instants). Issued documents count only when Hacienda
// accepted them (status `aceptada`); each amount is the one stored when the document was issued
// (the totals in `invoices.summary`: ResumenFactura and every line's figures) times the document's
// own exchange rate, summed exactly (numeric) and left unrounded: the report rounds once.
// Received documents count when the company answered them and Hacienda accepted that answer; the
// IVA credited is the one the answer declared (MontoTotalImpuestoAcreditar), in colones at the
// document's own TipoCambio (read from its stored signed XML: the table keeps only the currency).
import type { Knex } from 'knex';
import { tenantOnly, type Tenant } from './clients.ts';
import type { InvoiceRow } from './invoices.ts';

export interface MonthRange {
  /** First instant of the month in Costa Rica (inclusive). */
  from: Date;
  /** First instant of the next month in Costa Rica (exclusive). */
  to: Date;
}

/** One group of sale lines: a document type, an IVA rate code and how the line is taxed. */
export interface SalesLineRow {
  docType: string;
  /** CodigoTarifaIVA of the line's IVA; '' when the line has no IVA. */
  rateCode: string;
  /** gravado | exento | noSujeto (the line's treatment). */
  treatment: string;
  exonerated: boolean;
  lines: number;
  /** Σ SubTotal (MontoTotal − discounts). */
  subTotal: string;
  /** Σ MontoTotal and Σ MontoDescuento. */
  montoTotal: string;
  discounts: string;
  /** Σ IVA Monto (before exoneration) and Σ MontoExoneracion. */
  iva: string;
  ivaExonerated: string;
}

/** One document type's ResumenFactura figures, summed. */
export interface DocumentTotalsRow {
  docType: string;
  documents: number;
  totalGravado: string;
  totalExento: string;
  totalExonerado: string;
  totalNoSujeto: string;
  totalVenta: string;
  totalDescuentos: string;
  totalVentaNeta: string;
  totalImpuesto: string;
  totalIvaDevuelto: string;
  totalOtrosCargos: string;
  totalComprobante: string;
}

/** Taxes beside the IVA, per document type and tax code, net of their exonerations. */
export interface OtherTaxRow {
  docType: string;
  code: string;
  amount: string;
}

/** Received documents per type and the company's answer. */
export interface ReceivedRow {
  docType: string;
  answerResult: string;
  documents: number;
  total: string;
  totalTax: string;
  ivaCredit: string;
}

const ACCEPTED_DOCS = `select i.id, i.doc_type, i.exchange_rate as fx, i.summary
  from invoices i
  where i.company_id = :companyId and i.livemode = :livemode and i.status = 'aceptada'
    and i.issued_at >= :from and i.issued_at < :to`;

const IVA_CODES = `('01', '07', '08')`;
const num = (path: string) => `coalesce((${path})::numeric, 0)`;

function bindings(tenant: Tenant, range: MonthRange) {
  return { ...tenantOnly(tenant), from: range.from, to: range.to };
}

/** Sale lines grouped by document type, IVA rate code, treatment and exoneration. */
export async function monthSalesLines(db: Knex, tenant: Tenant, range: MonthRange): Promise<SalesLineRow[]> {
  const sql = `with docs as (${ACCEPTED_DOCS})
    select d.doc_type as "docType", coalesce(iva.t->>'ivaRateCode', '') as "rateCode",
      l->>'treatment' as treatment,
      coalesce(jsonb_typeof(iva.t->'exoneration') = 'object', false) as exonerated,
      count(*)::int as lines,
      sum(${num("l->>'subTotal'")} * d.fx)::text as "subTotal",
      sum(${num("l->>'montoTotal'")} * d.fx)::text as "montoTotal",
      sum(${num("l->>'discountTotal'")} * d.fx)::text as discounts,
      sum(${num("iva.t->>'amount'")} * d.fx)::text as iva,
      sum(${num("iva.t->'exoneration'->>'amount'")} * d.fx)::text as "ivaExonerated"
    from docs d
    cross join lateral jsonb_array_elements(d.summary->'lines') l
    left join lateral (
      select t from jsonb_array_elements(l->'taxes') t where t->>'code' in ${IVA_CODES} limit 1
    ) iva on true
    group by 1, 2, 3, 4
    order by 1, 2, 3, 4`;
  return (await db.raw(sql, bindings(tenant, range))).rows as SalesLineRow[];
}

/** ResumenFactura figures per document type. */
export async function monthDocumentTotals(
  db: Knex,
  tenant: Tenant,
  range: MonthRange,
): Promise<DocumentTotalsRow[]> {
  const field = (name: string, alias: string) =>
    `sum(${num(`d.summary->'summary'->>'${name}'`)} * d.fx)::text as "${alias}"`;
  const sql = `with docs as (${ACCEPTED_DOCS})
    select d.doc_type as "docType", count(*)::int as documents,
      ${field('totalGravado', 'totalGravado')}, ${field('totalExento', 'totalExento')},
      ${field('totalExonerado', 'totalExonerado')}, ${field('totalNoSujeto', 'totalNoSujeto')},
      ${field('totalVenta', 'totalVenta')}, ${field('totalDescuentos', 'totalDescuentos')},
      ${field('totalVentaNeta', 'totalVentaNeta')}, ${field('totalImpuesto', 'totalImpuesto')},
      ${field('totalIVADevuelto', 'totalIvaDevuelto')}, ${field('totalOtrosCargos', 'totalOtrosCargos')},
      ${field('totalComprobante', 'totalComprobante')}
    from docs d group by 1 order by 1`;
  return (await db.raw(sql, bindings(tenant, range))).rows as DocumentTotalsRow[];
}

/** Taxes beside the IVA per document type and code, net of their exonerations. */
export async function monthOtherTaxes(db: Knex, tenant: Tenant, range: MonthRange): Promise<OtherTaxRow[]> {
  const sql = `with docs as (${ACCEPTED_DOCS})
    select d.doc_type as "docType", t->>'code' as code,
      sum((${num("t->>'amount'")} - ${num("t->'exoneration'->>'amount'")}) * d.fx)::text as amount
    from docs d
    cross join lateral jsonb_array_elements(d.summary->'lines') l
    cross join lateral jsonb_array_elements(l->'taxes') t
    where t->>'code' not in ${IVA_CODES}
    group by 1, 2 order by 1, 2`;
  return (await db.raw(sql, bindings(tenant, range))).rows as OtherTaxRow[];
}

/** The exchange rate of a received document: 1 in colones, else its XML's TipoCambio. */
const RECEIVED_FX = `case when r.currency = 'CRC' then 1::numeric else coalesce(substring(
    convert_from(r.signed_xml, 'UTF8') from :fxPattern)::numeric, 1) end`;
/** TipoCambio's value, with or without a namespace prefix (a bound value: no placeholders inside). */
const FX_PATTERN = String.raw`<(?:[A-Za-z0-9_]+:)?TipoCambio>\s*([0-9]+(?:\.[0-9]+)?)\s*<`;

/** Received documents whose answer Hacienda accepted, per type and answer. */
export async function monthReceived(db: Knex, tenant: Tenant, range: MonthRange): Promise<ReceivedRow[]> {
  const sql = `select r.doc_type as "docType", r.answer_result as "answerResult",
      count(*)::int as documents,
      sum(r.total * x.fx)::text as total, sum(r.total_tax * x.fx)::text as "totalTax",
      sum(coalesce(r.answer_iva_credit, 0) * x.fx)::text as "ivaCredit"
    from received_documents r
    cross join lateral (select ${RECEIVED_FX} as fx) x
    where r.company_id = :companyId and r.livemode = :livemode
      and r.issued_at >= :from and r.issued_at < :to
      and r.answer_result is not null and r.answer_status = 'aceptada'
    group by 1, 2 order by 1, 2`;
  return (await db.raw(sql, { ...bindings(tenant, range), fxPattern: FX_PATTERN })).rows as ReceivedRow[];
}

/** An accepted document of the month with its stored XMLs, for the archive. */
export interface ArchiveDocumentRow {
  invoice: InvoiceRow;
  signedXml: Buffer | null;
  responseXml: string | null;
}

/** A page of the month's accepted documents (oldest first by id), with their stored XMLs. */
export async function monthDocumentsPage(
  db: Knex,
  tenant: Tenant,
  range: MonthRange,
  afterId: number,
  limit: number,
): Promise<ArchiveDocumentRow[]> {
  const t = tenantOnly(tenant);
  const rows = (await db('invoices as i')
    .leftJoin('invoice_documents as d', 'd.invoice_id', 'i.id')
    .where({ 'i.company_id': t.companyId, 'i.livemode': t.livemode, 'i.status': 'aceptada' })
    .where('i.issued_at', '>=', range.from)
    .where('i.issued_at', '<', range.to)
    .where('i.id', '>', afterId)
    .orderBy('i.id')
    .limit(limit)
    .select('i.*', 'd.signed_xml as doc_signed_xml', 'd.response_xml as doc_response_xml')) as (InvoiceRow & {
    docSignedXml: Buffer | null;
    docResponseXml: string | null;
  })[];
  return rows.map(({ docSignedXml, docResponseXml, ...invoice }) => ({
    invoice: invoice as InvoiceRow,
    signedXml: docSignedXml,
    responseXml: docResponseXml,
  }));
}

/** A received document of the month with the company's answer, for the archive. */
export interface ArchiveReceivedRow {
  id: number;
  clave: string;
  answerResult: string | null;
  signedXml: Buffer;
  answerSignedXml: Buffer | null;
  answerResponseXml: Buffer | null;
}

/** A page of the month's received documents (every one, answered or not), oldest first by id. */
export async function monthReceivedPage(
  db: Knex,
  tenant: Tenant,
  range: MonthRange,
  afterId: number,
  limit: number,
): Promise<ArchiveReceivedRow[]> {
  return (await db('received_documents')
    .where(tenantOnly(tenant))
    .where('issuedAt', '>=', range.from)
    .where('issuedAt', '<', range.to)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .select(
      'id',
      'clave',
      'answerResult',
      'signedXml',
      'answerSignedXml',
      'answerResponseXml',
    )) as ArchiveReceivedRow[];
}
