// The SQL of the invoice flow's steps, each over a chunk of invoices: one query loads what a
// step needs for the whole chunk, multi-row statements write what it did, and the caller commits
// once. Per-invoice state columns stay the truth: every load selects only the invoices still
// waiting for that step, every write is guarded by the state it expects.
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';
import type { InvoiceRow } from './invoices.ts';
import { FLOW_STOPPED_SQL } from './processing-error.ts';
import type { InvoiceState } from '../../domain/invoice-states.ts';
import type { SignedParties } from '../../domain/signed-parties.ts';

/**
 * Writes which chunk's flow carries each invoice (the callback and the reconciler read it), with the
 * chunk's place in its company's turn (`priority`, jobs/fair-share.ts; null without one).
 */
export async function assignFlowChunks(
  trx: Knex | Knex.Transaction,
  chunks: { name: string; invoiceIds: number[]; priority?: number }[],
): Promise<void> {
  const rows = chunks.flatMap((c) => c.invoiceIds.map((id) => [id, c.name, c.priority ?? null] as const));
  if (!rows.length) return;
  await prepared(
    trx,
    'invoice-flow.assign-chunks',
    `update invoices i set flow_chunk = v.chunk, flow_priority = v.priority
       from (select * from unnest(?::bigint[], ?::text[], ?::int[]) as t(id, chunk, priority)) v
      where i.id = v.id`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]) as unknown as number[]],
  );
}

/**
 * The highest place (flow priority) among the chunks of each company and mode still waiting to be
 * signed: their invoices `pendiente`, carried by a flow, not signed, not failed for good. A pair
 * absent from the map (keyed `companyId:livemode`) has none waiting. Reads the pair's last entry
 * of invoices_waiting_sign_idx, which holds only such invoices, by place: a backlog of other
 * `pendiente` invoices (not started, or signed and not received) is not read.
 */
export async function waitingFlowPriorities(
  trx: Knex | Knex.Transaction,
  pairs: { companyId: number; livemode: boolean }[],
): Promise<Map<string, number>> {
  if (!pairs.length) return new Map();
  const res = await prepared(
    trx,
    'invoice-flow.waiting-priorities',
    `select v.company_id, v.livemode, ${WAITING_TOP} as top
       from unnest(?::bigint[], ?::boolean[]) as v(company_id, livemode)`,
    [pairs.map((p) => p.companyId), pairs.map((p) => p.livemode)],
  );
  return waitingByPair(res.rows as WaitingRow[]);
}

/**
 * The highest place among the chunks of the pair `v(company_id, livemode)` still waiting to be
 * signed (waitingFlowPriorities; the relay reads it with the invoices it starts, flowInvoices).
 */
export const WAITING_TOP = `(select max(i.flow_priority) from invoices i
   where i.company_id = v.company_id and i.livemode = v.livemode and i.status = 'pendiente'
     and i.signed_at is null and i.flow_chunk is not null
     and not coalesce((i.processing_error->>'permanent')::boolean, false))`;

export type WaitingRow = { company_id: string | number; livemode: boolean; top: number | string | null };
/** Rows of (company, mode, top) as waitingFlowPriorities answers them: pairs with none left out. */
export function waitingByPair(rows: WaitingRow[]): Map<string, number> {
  return new Map(
    rows.flatMap((r) =>
      r.top === null ? [] : [[`${Number(r.company_id)}:${r.livemode}`, Number(r.top)] as const],
    ),
  );
}

export interface FlowInvoice {
  id: number;
  companyId: number;
  livemode: boolean;
  traceContext: string | null;
}

/**
 * The company, mode and trace of the invoices whose flows start (flows are chunked by the first
 * two), with the place each of their pairs has reached among its chunks still waiting to be signed
 * (`waiting`, as waitingFlowPriorities answers it): one statement.
 */
export async function flowInvoices(
  trx: Knex.Transaction,
  ids: number[],
): Promise<{ invoices: Map<number, FlowInvoice>; waiting: Map<string, number> }> {
  if (!ids.length) return { invoices: new Map(), waiting: new Map() };
  // The waiting place is computed once per pair (`materialized`): an inlined `w` may be computed
  // again for every invoice of the pass (test/flow-invoices.test.ts).
  const res = await prepared(
    trx,
    'invoice-flow.flow-invoices',
    `with f as (select id, company_id, livemode, trace_context from invoices where id = any(?::bigint[])),
          w as materialized (select v.company_id, v.livemode, ${WAITING_TOP} as top
                               from (select distinct company_id, livemode from f) v)
     select f.id, f.company_id, f.livemode, f.trace_context, w.top
       from f join w on w.company_id = f.company_id and w.livemode = f.livemode`,
    [ids],
  );
  const rows = res.rows as (WaitingRow & { id: string | number; trace_context: string | null })[];
  return {
    invoices: new Map(
      rows.map((r) => [
        Number(r.id),
        {
          id: Number(r.id),
          companyId: Number(r.company_id),
          livemode: r.livemode,
          traceContext: r.trace_context ?? null,
        },
      ]),
    ),
    waiting: waitingByPair(rows),
  };
}

/** The flow chunk of the invoice with this clave (Hacienda's callback), if it has one. */
export async function flowOfClave(
  db: Knex,
  clave: string,
): Promise<{ id: number; companyId: number; flowChunk: string | null } | undefined> {
  const row = (await db('invoices').where({ clave }).first('id', 'company_id', 'flow_chunk')) as
    { id: string | number; companyId: string | number; flowChunk: string | null } | undefined;
  return row ? { id: Number(row.id), companyId: Number(row.companyId), flowChunk: row.flowChunk } : undefined;
}

/**
 * When the invoice's company last saved its credentials for the invoice's mode (`updated_at`;
 * null: none), read with the step's own invoices (over `invoices i`): the worker reuses the
 * signer and reception client it opened from credentials with that stamp (jobs/context.ts)
 * instead of reading them again.
 */
const CREDENTIALS_STAMP = `(select c.updated_at from company_credentials c
   where c.company_id = i.company_id and c.livemode = i.livemode) as credentials_stamp`;
export interface CredentialsStamped {
  credentialsStamp: Date | null;
}

/** Invoices of the chunk that still need a signature (issued, no signed bytes yet). */
export async function invoicesToSign(db: Knex, ids: number[]): Promise<(InvoiceRow & CredentialsStamped)[]> {
  return (await db('invoices as i')
    .leftJoin('invoice_documents as d', 'd.invoice_id', 'i.id')
    .whereIn('i.id', ids)
    .whereNot('i.status', 'borrador')
    .whereNull('d.signed_xml')
    .orderBy('i.id')
    .select('i.*', db.raw(CREDENTIALS_STAMP))) as (InvoiceRow & CredentialsStamped)[];
}

/**
 * The signed bytes of a chunk, each with the parties it was signed with
 * (`invoice_documents.parties`, in the same row), and the invoices to store them on, in one
 * statement (atomic on its own: no transaction around it). The first writer wins: a document
 * already stored keeps its bytes and its parties.
 */
export async function storeSignedDocuments(
  db: Knex,
  signed: { invoiceId: number; xml: string; parties: SignedParties }[],
): Promise<void> {
  if (!signed.length) return;
  const documents = db('invoice_documents')
    .insert(
      signed.map((s) => ({
        invoiceId: s.invoiceId,
        signedXml: Buffer.from(s.xml, 'utf8'),
        parties: JSON.stringify(s.parties),
      })),
    )
    .onConflict('invoice_id')
    .merge({
      signedXml: db.raw('coalesce(invoice_documents.signed_xml, excluded.signed_xml)'),
      parties: db.raw(
        'case when invoice_documents.signed_xml is null then excluded.parties else invoice_documents.parties end',
      ),
    })
    .returning('invoice_id');
  await db
    .with('stored', documents)
    .table('invoices')
    .whereIn(
      'id',
      signed.map((s) => s.invoiceId),
    )
    .whereNull('signed_at')
    .update({ signedAt: db.fn.now(), processingError: null });
}

/**
 * Both identifications of the reception request (over `invoices i`, `invoice_documents d`,
 * `companies co`, `clients cl`): the signed document's parties (`d.parties`); a document signed
 * before they were kept reads the company's and the client's rows.
 */
const IDENTIFICATIONS = [
  `coalesce(d.parties #>> '{company,idType}', co.id_type) as emisor_id_type`,
  `coalesce(d.parties #>> '{company,idNumber}', co.id_number) as emisor_id_number`,
  `case when d.parties is null then cl.id_type else d.parties #>> '{client,idType}' end as receptor_id_type`,
  `case when d.parties is null then cl.id_number else d.parties #>> '{client,idNumber}' end as receptor_id_number`,
].join(', ');

type Identification = { idType: string; idNumber: string };

interface IdentificationColumns {
  emisorIdType: string;
  emisorIdNumber: string;
  receptorIdType: string | null;
  receptorIdNumber: string | null;
}

/**
 * The identifications a reception request names. A factura de compra is sent by the company (the
 * buyer) about its supplier, who has no client row; a tiquete sold to no one names no receptor.
 */
function identificationsOf(
  invoice: Pick<InvoiceRow, 'supplier'>,
  c: IdentificationColumns,
): { emisor: Identification; receptor: Identification | null } {
  return {
    emisor: { idType: c.emisorIdType, idNumber: c.emisorIdNumber },
    receptor: invoice.supplier
      ? { idType: invoice.supplier.idType, idNumber: invoice.supplier.idNumber }
      : c.receptorIdType === null || c.receptorIdNumber === null
        ? null
        : { idType: c.receptorIdType, idNumber: c.receptorIdNumber },
  };
}

/**
 * What sending needs of an invoice: who it belongs to, its clave and issue time, its trace, why
 * it stopped (if it did) and a purchase's supplier. Its lines and totals are in the signed bytes.
 */
export type SubmitInvoice = Pick<
  InvoiceRow,
  'id' | 'companyId' | 'livemode' | 'clave' | 'issuedAt' | 'traceContext' | 'processingError' | 'supplier'
>;

/** The columns of SubmitInvoice. */
const SUBMIT_COLUMNS = [
  'i.id',
  'i.company_id',
  'i.livemode',
  'i.clave',
  'i.issued_at',
  'i.trace_context',
  'i.processing_error',
  'i.supplier',
];

export interface SubmitWork extends CredentialsStamped {
  invoice: SubmitInvoice;
  signedXml: Buffer | null;
  emisor: Identification;
  /** Null for a tiquete sold to no one: the reception request then names no receptor. */
  receptor: Identification | null;
}

/**
 * `pendiente` invoices of the chunk (what sending needs of each), with their signed bytes and both
 * identifications: one query.
 */
export async function invoicesToSubmit(db: Knex, ids: number[]): Promise<SubmitWork[]> {
  const rows = (await db('invoices as i')
    .leftJoin('invoice_documents as d', 'd.invoice_id', 'i.id')
    .join('companies as co', 'co.id', 'i.company_id')
    .leftJoin('clients as cl', 'cl.id', 'i.client_id')
    .whereIn('i.id', ids)
    .where('i.status', 'pendiente')
    .orderBy('i.id')
    .select(
      ...SUBMIT_COLUMNS,
      'd.signed_xml as doc_signed_xml',
      db.raw(IDENTIFICATIONS),
      db.raw(CREDENTIALS_STAMP),
    )) as (SubmitInvoice & IdentificationColumns & CredentialsStamped & { docSignedXml: Buffer | null })[];
  return rows.map(
    ({
      docSignedXml,
      credentialsStamp,
      emisorIdType,
      emisorIdNumber,
      receptorIdType,
      receptorIdNumber,
      ...invoice
    }) => ({
      invoice,
      signedXml: docSignedXml,
      credentialsStamp,
      ...identificationsOf(invoice, { emisorIdType, emisorIdNumber, receptorIdType, receptorIdNumber }),
    }),
  );
}

/** The identifications of one invoice's reception request (a document sent again): one query. */
export async function submissionIdentifications(
  db: Knex,
  invoice: Pick<InvoiceRow, 'id' | 'supplier'>,
): Promise<{ emisor: Identification; receptor: Identification | null }> {
  const row = (await db('invoices as i')
    .leftJoin('invoice_documents as d', 'd.invoice_id', 'i.id')
    .join('companies as co', 'co.id', 'i.company_id')
    .leftJoin('clients as cl', 'cl.id', 'i.client_id')
    .where('i.id', invoice.id)
    .first(db.raw(IDENTIFICATIONS))) as IdentificationColumns;
  return identificationsOf(invoice, row);
}

/** Invoices of the chunk in one of `statuses`, locked until the transaction ends (ordered: no deadlock). */
export async function lockInvoices(
  trx: Knex.Transaction,
  ids: number[],
  statuses?: InvoiceState[],
): Promise<InvoiceRow[]> {
  const q = trx('invoices').whereIn('id', ids);
  if (statuses) q.whereIn('status', statuses);
  return (await q.orderBy('id').forUpdate().select('*')) as InvoiceRow[];
}

/**
 * What asking Hacienda for a verdict needs of an invoice (and sending a lost document again): who
 * it belongs to, its clave and issue time, its trace, what Hacienda said last and since when it
 * has not found it, a purchase's supplier. Its lines and totals are in the signed bytes.
 */
export type VerdictInvoice = Pick<
  InvoiceRow,
  | 'id'
  | 'companyId'
  | 'livemode'
  | 'clave'
  | 'issuedAt'
  | 'traceContext'
  | 'haciendaStatus'
  | 'haciendaMissingSince'
  | 'supplier'
>;

/** Whether the invoice's company emails its accepted documents (`companies.email_enabled`). */
export interface EmailsEnabled {
  emailsEnabled: boolean;
}

/**
 * `enviada` invoices of the chunk that no person has to look at first (a failed booking waits
 * apart), with what asking for their verdicts needs and what recording them reads of the company.
 */
export async function invoicesAwaitingVerdict(
  db: Knex,
  ids: number[],
): Promise<(VerdictInvoice & CredentialsStamped & EmailsEnabled)[]> {
  return (await db('invoices as i')
    .whereIn('i.id', ids)
    .where('i.status', 'enviada')
    .whereRaw(`not (${FLOW_STOPPED_SQL})`)
    .orderBy('i.id')
    .select(
      'i.id',
      'i.company_id',
      'i.livemode',
      'i.clave',
      'i.issued_at',
      'i.trace_context',
      'i.hacienda_status',
      'i.hacienda_missing_since',
      'i.supplier',
      db.raw(CREDENTIALS_STAMP),
      db.raw('(select co.email_enabled from companies co where co.id = i.company_id) as emails_enabled'),
    )) as (VerdictInvoice & CredentialsStamped & EmailsEnabled)[];
}

/** Hacienda's interim states of several invoices (`procesando`, …), where they changed. */
export async function updateHaciendaStates(
  db: Knex,
  states: { invoiceId: number; state: string }[],
): Promise<void> {
  if (!states.length) return;
  await prepared(
    db,
    'invoice-flow.hacienda-states',
    `update invoices i set hacienda_status = v.state
       from (select * from unnest(?::bigint[], ?::text[]) as t(id, state)) v
      where i.id = v.id and i.status = 'enviada' and i.hacienda_status is distinct from v.state`,
    [states.map((s) => s.invoiceId), states.map((s) => s.state)],
  );
}

/** Hacienda's answers (signed MensajeHacienda) beside their invoices' signed documents, in one statement. */
export async function storeResponseXmls(
  trx: Knex.Transaction,
  answers: { invoiceId: number; responseXml: string }[],
): Promise<void> {
  if (!answers.length) return;
  await prepared(
    trx,
    'invoice-flow.response-xmls',
    `update invoice_documents d set response_xml = v.xml, response_at = now(), updated_at = now()
       from (select * from unnest(?::bigint[], ?::text[]) as t(id, xml)) v
      where d.invoice_id = v.id`,
    [answers.map((a) => a.invoiceId), answers.map((a) => a.responseXml)],
  );
}
