// The SQL of the invoice flow's steps, each over a chunk of invoices: one query loads what a
// step needs for the whole chunk, multi-row statements write what it did, and the caller commits
// once. Per-invoice state columns stay the truth: every load selects only the invoices still
// waiting for that step, every write is guarded by the state it expects.
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
  await trx.raw(
    `update invoices i set flow_chunk = v.chunk, flow_priority = v.priority
       from (select * from unnest(?::bigint[], ?::text[], ?::int[]) as t(id, chunk, priority)) v
      where i.id = v.id`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]) as unknown as number[]],
  );
}

/**
 * The highest place (flow priority) among the chunks of each company and mode still waiting to be
 * signed: their invoices `pendiente`, carried by a flow, not signed, not failed for good. A pair
 * absent from the map (keyed `companyId:livemode`) has none waiting. Walks each pair's `pendiente`
 * invoices (invoices_status_idx), a handful but for a company with a backlog.
 */
export async function waitingFlowPriorities(
  trx: Knex | Knex.Transaction,
  pairs: { companyId: number; livemode: boolean }[],
): Promise<Map<string, number>> {
  if (!pairs.length) return new Map();
  const res = await trx.raw(
    `select v.company_id, v.livemode,
            (select max(i.flow_priority) from invoices i
              where i.company_id = v.company_id and i.livemode = v.livemode and i.status = 'pendiente'
                and i.signed_at is null and i.flow_chunk is not null
                and not coalesce((i.processing_error->>'permanent')::boolean, false)) as top
       from unnest(?::bigint[], ?::boolean[]) as v(company_id, livemode)`,
    [pairs.map((p) => p.companyId), pairs.map((p) => p.livemode)],
  );
  return new Map(
    (res.rows as { company_id: string | number; livemode: boolean; top: number | null }[]).flatMap((r) =>
      r.top === null ? [] : [[`${Number(r.company_id)}:${r.livemode}`, Number(r.top)] as const],
    ),
  );
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

/** Invoices of the chunk that still need a signature (issued, no signed bytes yet). */
export async function invoicesToSign(db: Knex, ids: number[]): Promise<InvoiceRow[]> {
  return (await db('invoices as i')
    .leftJoin('invoice_documents as d', 'd.invoice_id', 'i.id')
    .whereIn('i.id', ids)
    .whereNot('i.status', 'borrador')
    .whereNull('d.signed_xml')
    .orderBy('i.id')
    .select('i.*')) as InvoiceRow[];
}

/**
 * The signed bytes of a chunk, with the invoices to store them on and the parties each was signed
 * with (`invoices.parties`, written in the statement that records `signed_at`: two statements for
 * the chunk). The first writer wins both: the bytes through `coalesce`, the parties with
 * `signed_at`, so a document's parties are always those of the XML stored for it.
 */
export async function storeSignedDocuments(
  trx: Knex.Transaction,
  signed: { invoiceId: number; xml: string; parties: SignedParties }[],
): Promise<void> {
  if (!signed.length) return;
  await trx('invoice_documents')
    .insert(signed.map((s) => ({ invoiceId: s.invoiceId, signedXml: Buffer.from(s.xml, 'utf8') })))
    .onConflict('invoice_id')
    .merge({ signedXml: trx.raw('coalesce(invoice_documents.signed_xml, excluded.signed_xml)') });
  await trx.raw(
    `update invoices i set signed_at = now(), processing_error = null, parties = v.parties::jsonb
       from (select * from unnest(?::bigint[], ?::text[]) as t(id, parties)) v
      where i.id = v.id and i.signed_at is null`,
    [signed.map((s) => s.invoiceId), signed.map((s) => JSON.stringify(s.parties))],
  );
}

export interface SubmitWork {
  invoice: InvoiceRow;
  signedXml: Buffer | null;
  emisor: { idType: string; idNumber: string };
  /** Null for a tiquete sold to no one: the reception request then names no receptor. */
  receptor: { idType: string; idNumber: string } | null;
}

/**
 * `pendiente` invoices of the chunk, with their signed bytes and both identifications: one query.
 * The identifications are the signed document's (`invoices.parties`); a document signed before
 * that column existed reads the company's and the client's rows.
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
      'i.*',
      'd.signed_xml as doc_signed_xml',
      db.raw(`coalesce(i.parties #>> '{company,idType}', co.id_type) as emisor_id_type`),
      db.raw(`coalesce(i.parties #>> '{company,idNumber}', co.id_number) as emisor_id_number`),
      db.raw(
        `case when i.parties is null then cl.id_type else i.parties #>> '{client,idType}' end as receptor_id_type`,
      ),
      db.raw(
        `case when i.parties is null then cl.id_number else i.parties #>> '{client,idNumber}' end as receptor_id_number`,
      ),
    )) as (InvoiceRow & {
    docSignedXml: Buffer | null;
    emisorIdType: string;
    emisorIdNumber: string;
    receptorIdType: string | null;
    receptorIdNumber: string | null;
  })[];
  return rows.map(
    ({ docSignedXml, emisorIdType, emisorIdNumber, receptorIdType, receptorIdNumber, ...invoice }) => ({
      invoice: invoice as InvoiceRow,
      signedXml: docSignedXml,
      emisor: { idType: emisorIdType, idNumber: emisorIdNumber },
      // A factura de compra is sent by the company (the buyer) about its supplier, who has no client row;
      // a tiquete sold to no one names no receptor.
      receptor: invoice.supplier
        ? { idType: invoice.supplier.idType, idNumber: invoice.supplier.idNumber }
        : receptorIdType === null || receptorIdNumber === null
          ? null
          : { idType: receptorIdType, idNumber: receptorIdNumber },
    }),
  );
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

/** `enviada` invoices of the chunk that no person has to look at first (a failed booking waits apart). */
export async function invoicesAwaitingVerdict(db: Knex, ids: number[]): Promise<InvoiceRow[]> {
  return (await db('invoices')
    .whereIn('id', ids)
    .where('status', 'enviada')
    .whereRaw(`not (${FLOW_STOPPED_SQL})`)
    .orderBy('id')
    .select('*')) as InvoiceRow[];
}

/** Hacienda's interim states of several invoices (`procesando`, …), where they changed. */
export async function updateHaciendaStates(
  db: Knex,
  states: { invoiceId: number; state: string }[],
): Promise<void> {
  if (!states.length) return;
  await db.raw(
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
  await trx.raw(
    `update invoice_documents d set response_xml = v.xml, response_at = now(), updated_at = now()
       from (select * from unnest(?::bigint[], ?::text[]) as t(id, xml)) v
      where d.invoice_id = v.id`,
    [answers.map((a) => a.invoiceId), answers.map((a) => a.responseXml)],
  );
}
