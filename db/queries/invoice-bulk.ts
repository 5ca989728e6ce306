// Recording a chunk of a batch (the batch API) in one transaction and four statements, however
// many items the chunk holds:
//   1. the chunk's items still `pending`, locked (`for update`, so a second run of the same batch
//      waits here and then finds them recorded), then the idempotency keys of those items
//      (transaction-level advisory locks, sorted), the finished requests under those keys and
//      the external_ids already used;
//   2. the invoices, one insert from one JSON parameter that also reserves their numbers (one
//      `last_number + n` per series, the series row locked until COMMIT), so only the issued
//      invoices that are recorded take numbers and numbering stays gapless;
//   3. their invoice.created events, one event.dispatch and one invoice.flow outbox row, the
//      idempotency records, every item's outcome on `batch_items` and the outbox notification.
// Each item ends created, replayed (its idempotency key was already used with the same request)
// or failed with its own problem — never created twice. Statement 1 reads the idempotency records
// in the snapshot taken before its locks: a request with the same key committed in between is
// caught by statement 3, which never overwrites a fresh record; the chunk then fails as a whole
// (the caller records its items one by one, and that item is replayed).
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';
import { documentBalance, paidAtIssueBalance } from '../../domain/balance.ts';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../../domain/clave.ts';
import type { IssuedDocumentType } from '../../domain/invoice-request.ts';
import { formatId } from '../../domain/ids.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import type { IdempotencyInput, InvoiceRow, PreparedInvoice } from './invoices.ts';
import { CREATED_ROWS_SQL, createdItem, createdRowsBindings } from './created-rows.ts';
import { OUTBOX_NOTIFY_SQL } from './events.ts';
import { decideStored, KEY_REUSED } from './idempotency.ts';

export interface BulkItem {
  position: number;
  prepared: PreparedInvoice;
  idempotency: IdempotencyInput | null;
  send: boolean;
  /** The request's W3C trace context as stored text (absent or null: none). */
  traceContext?: string | null;
}

export interface ItemProblem {
  status: number;
  code: string;
  detail: string;
  errors?: { path: string; code: string; message: string }[];
  [extra: string]: unknown;
}

export type BulkOutcome =
  | { position: number; kind: 'created'; invoiceId: number; row?: InvoiceRow; body?: Record<string, unknown> }
  | {
      position: number;
      kind: 'replayed';
      invoiceId: number | null;
      response?: { status: number; body: Record<string, unknown> };
    }
  | { position: number; kind: 'failed'; problem: ItemProblem };

export interface BulkOptions {
  emisorId: string;
  /** The batch request's id: it tags the events and outbox rows, and (with `#position`) each invoice. */
  requestId: string | null;
  render: (row: InvoiceRow) => Record<string, unknown>;
  now?: () => Date;
}

/** A chunk of one batch: the items to record and those already refused (validation, catalogue). */
export interface BatchChunk {
  batchId: number;
  items: BulkItem[];
  failed: { position: number; problem: ItemProblem }[];
}

/** A fresh idempotency record of another request was found when writing the chunk's. */
export class IdempotencyRecordExists extends Error {}

/** The columns stored as jsonb (invoiceRecord gives them as values, invoiceInsertRow as JSON text). */
const JSONB_FIELDS = [
  'paymentMethods',
  'lines',
  'summary',
  'metadata',
  'emailRecipients',
  'reference',
  'supplier',
] as const;

/**
 * The `invoices` row of one prepared invoice, its jsonb columns as values: issued (`pendiente`,
 * with its number, consecutivo and clave) when it has a number, a `borrador` otherwise.
 * request_id tags the row with its item.
 */
export function invoiceRecord(
  tenant: Tenant,
  p: PreparedInvoice,
  number: number | undefined,
  now: Date,
  emisorId: string,
  requestId: string,
): Record<string, unknown> {
  const issue =
    number === undefined
      ? // situacion is the column's default, given so that drafts and issued invoices can share
        // one insert of records (jsonb_populate_record leaves a missing key null, not default).
        { status: 'borrador', situacion: '1' }
      : (() => {
          const consecutivo = buildConsecutivo({
            branch: p.branch,
            terminal: p.terminal,
            docType: p.docType,
            number,
          });
          const securityCode = randomSecurityCode();
          return {
            status: 'pendiente',
            number,
            consecutivo,
            clave: buildClave({
              date: now,
              emisorId,
              consecutivo,
              situacion: '1',
              securityCode,
            }),
            securityCode,
            issuedAt: now,
            situacion: '1',
          };
        })();
  return {
    ...tenantOnly(tenant),
    clientId: p.clientId,
    docType: p.docType,
    branch: p.branch,
    terminal: p.terminal,
    currency: p.currency,
    exchangeRate: p.exchangeRate,
    exchangeRateSource: p.exchangeRateSource ?? null,
    condition: p.condition,
    condicionVenta: p.condicionVenta,
    conditionOther: p.conditionOther,
    creditDays: p.creditDays,
    paymentMethods: p.paymentMethods,
    paymentMethodOther: p.paymentMethodOther,
    paidAtIssue: p.paidAtIssue,
    lines: p.lines,
    summary: p.totals,
    total: p.totals.summary.totalComprobante,
    // All of it is due (a credit note: nothing, it is owed by nobody); nothing, paid, when it is
    // issued paid at issue (its payments are recorded when it is booked; a draft is not issued yet).
    ...(p.paidAtIssue && number !== undefined ? paidAtIssueBalance : documentBalance)({
      docType: p.docType,
      status: 'pendiente',
      total: p.totals.summary.totalComprobante,
      creditedTotal: 0,
      applied: 0,
    }),
    externalId: p.externalId,
    metadata: p.metadata,
    emailRecipients: p.emailRecipients,
    requestId,
    ...(p.reference ? { reference: p.reference, referencedInvoiceId: p.reference.documentId } : {}),
    ...(p.supplier ? { supplier: p.supplier } : {}),
    ...issue,
  };
}

/** The problem of an item whose external_id another invoice of the company already has. */
export function duplicateExternalId(existing: number): ItemProblem {
  return {
    status: 409,
    code: 'duplicate_external_id',
    detail: `external_id is already used by ${formatId('invoice', existing)}`,
    existing_invoice_id: formatId('invoice', existing),
  };
}

/** invoiceRecord with its jsonb columns as JSON text, for a knex insert. */
export function invoiceInsertRow(
  tenant: Tenant,
  p: PreparedInvoice,
  number: number | undefined,
  now: Date,
  emisorId: string,
  requestId: string,
): Record<string, unknown> {
  const row = invoiceRecord(tenant, p, number, now, emisorId, requestId);
  for (const k of JSONB_FIELDS) if (k in row) row[k] = JSON.stringify(row[k]);
  return row;
}

/** The first characters of a clave, up to its consecutivo (country, date, emisor). */
export const CLAVE_HEAD = 21;

/** The consecutivo and clave written by SQL are the ones the domain builds (throws otherwise). */
export function checkNumbered(r: InvoiceRow, emisorId: string, now: Date): void {
  const consecutivo = buildConsecutivo({
    branch: r.branch,
    terminal: r.terminal,
    docType: r.docType as IssuedDocumentType,
    number: r.number!,
  });
  const clave = buildClave({
    date: now,
    emisorId,
    consecutivo,
    situacion: '1',
    securityCode: r.securityCode!,
  });
  if (r.consecutivo !== consecutivo || r.clave !== clave)
    throw new Error(
      `invoice ${r.id}: numbered ${r.consecutivo} / ${r.clave}, expected ${consecutivo} / ${clave}`,
    );
}

// Column names as the connection's snake_case mappers spell them (db/connection.ts), remembered.
const snake = new Map<string, string>();
const snakeCase = (k: string) => {
  let s = snake.get(k);
  if (s === undefined) snake.set(k, (s = k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)));
  return s;
};
const camel = new Map<string, string>();
/** A row of a raw query with its columns in camelCase, as knex gives them elsewhere. */
function camelRow(r: Record<string, unknown>): InvoiceRow {
  const out: Record<string, unknown> = {};
  for (const k in r) {
    let c = camel.get(k);
    if (c === undefined) camel.set(k, (c = k.replace(/_([a-z])/g, (_, x: string) => x.toUpperCase())));
    out[c] = r[k];
  }
  return out as unknown as InvoiceRow;
}
/** The columns statement 2 computes instead of taking them from the record. */
const NUMBERED = new Set(['number', 'consecutivo', 'clave']);

interface LockRead {
  claimed: number[] | null;
  done:
    | { key: string; route: string; hash: string; status: number | null; body: Record<string, unknown> }[]
    | null;
  taken: { id: number; externalId: string }[] | null;
}

/** Statement 1 (see the header). */
async function claimAndRead(trx: Knex.Transaction, tenant: Tenant, chunk: BatchChunk): Promise<LockRead> {
  const positions = [...chunk.items.map((i) => i.position), ...chunk.failed.map((f) => f.position)];
  const keyed = chunk.items.filter((i) => i.idempotency);
  const exts = [
    ...new Set(chunk.items.flatMap((i) => (i.prepared.externalId ? [i.prepared.externalId] : []))),
  ];
  // The key locks read the claimed items (a sort, so every item lock is taken first) and come in
  // key order, so two transactions never wait on each other's keys. Finished requests and used
  // external_ids are looked up one index probe per key (LOOKUP_NOTE in invoice-group.ts).
  const res = await prepared(
    trx,
    'invoice-bulk.claim-and-read',
    `with c as (
       select position from batch_items
       where batch_id = ? and position = any(?::int[]) and status = 'pending'
       order by position
       for update),
     l as (
       select k.key, pg_advisory_xact_lock(?::int, hashtext(? || k.key)) as locked
       from (select distinct u.key
             from unnest(?::int[], ?::text[]) as u(position, key) join c using (position)
             order by 1) k),
     d as (
       select i.key, i.route, encode(i.request_hash, 'hex') as hash, i.response_status as status,
              i.response_body as body
       from l cross join lateral (
         select * from idempotency_keys
         where company_id = ? and livemode = ? and key = l.key
           and created_at > now() - interval '24 hours'
         limit 1) i),
     x as (
       select i.id, i.external_id as "externalId"
       from unnest(?::text[]) as u(ext) cross join lateral (
         select id, external_id from invoices
         where company_id = ? and livemode = ? and external_id = u.ext
         limit 1) i)
     select (select json_agg(position) from c) as claimed,
            (select count(*) from l) as locked,
            (select json_agg(d) from d) as done,
            (select json_agg(x) from x) as taken`,
    [
      chunk.batchId,
      positions,
      tenant.companyId % 2_147_483_647,
      `${tenant.livemode ? 'live' : 'test'}:`,
      keyed.map((i) => i.position),
      keyed.map((i) => i.idempotency!.key),
      tenant.companyId,
      tenant.livemode,
      exts,
      tenant.companyId,
      tenant.livemode,
    ],
  );
  return res.rows[0] as LockRead;
}

interface SeriesCount {
  docType: string;
  branch: string;
  terminal: string;
  n: number;
}

const seriesKey = (p: PreparedInvoice) => `${p.docType}|${p.branch}|${p.terminal}`;

/** How many issued invoices each series (document type, branch, terminal) numbers, by seriesKey. */
function seriesCounts(todo: BulkItem[]): Map<string, SeriesCount> {
  const series = new Map<string, SeriesCount>();
  for (const item of todo) {
    if (!item.send) continue;
    const p = item.prepared;
    const s = series.get(seriesKey(p));
    if (s) s.n++;
    else series.set(seriesKey(p), { docType: p.docType, branch: p.branch, terminal: p.terminal, n: 1 });
  }
  return series;
}

/**
 * Statement 2 of a batch chunk and of a group of single creates: the invoices, in `todo`'s order,
 * numbered by their series' reservations (several series at once, locked in key order).
 */
export async function insertNumbered(
  trx: Knex.Transaction,
  tenant: Tenant,
  todo: BulkItem[],
  now: Date,
  emisorId: string,
  tag: (position: number) => string,
): Promise<InvoiceRow[]> {
  // Each series reserves as many numbers as it has issued invoices; an invoice's number is the
  // reserved last_number minus its offset. Series in key order: the same lock order everywhere.
  const series = seriesCounts(todo);
  const ordered = [...series.keys()].sort().map((k) => series.get(k)!);
  const taken = new Map<string, number>();
  const columns = new Set<string>();
  const records = todo.map((item) => {
    const p = item.prepared;
    const row = invoiceRecord(tenant, p, item.send ? 1 : undefined, now, emisorId, tag(item.position));
    if (item.traceContext) row.traceContext = item.traceContext;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) {
      const col = snakeCase(k);
      columns.add(col);
      out[col] = v;
    }
    if (item.send) {
      const k = seriesKey(p);
      const i = taken.get(k) ?? 0;
      taken.set(k, i + 1);
      const consecutivo = row.consecutivo as string;
      const clave = row.clave as string;
      if (clave.slice(CLAVE_HEAD, CLAVE_HEAD + 20) !== consecutivo)
        throw new Error('unexpected clave layout');
      out._offset = series.get(k)!.n - 1 - i;
      out._consecutivo_head = consecutivo.slice(0, 10);
      out._clave_head = clave.slice(0, CLAVE_HEAD + 10);
      out._clave_tail = clave.slice(CLAVE_HEAD + 20);
    }
    return out;
  });
  const plain = [...columns].filter((c) => !NUMBERED.has(c));
  const number = `(n.last_number - (e.d->>'_offset')::bigint)`;
  const digits = `lpad(${number}::text, 10, '0')`;
  const res = await trx.raw(
    `with n as (
       insert into numbering_series (company_id, livemode, doc_type, branch, terminal, last_number)
       select ?, ?, s.doc_type, s.branch, s.terminal, s.n
       from unnest(?::text[], ?::text[], ?::text[], ?::bigint[]) as s(doc_type, branch, terminal, n)
       on conflict (company_id, livemode, doc_type, branch, terminal)
       do update set last_number = numbering_series.last_number + excluded.last_number
       returning doc_type, branch, terminal, last_number)
     insert into invoices (${[...plain, ...NUMBERED].map((c) => `"${c}"`).join(', ')})
     select ${plain.map((c) => `r."${c}"`).join(', ')}, ${number},
            (e.d->>'_consecutivo_head') || ${digits},
            (e.d->>'_clave_head') || ${digits} || (e.d->>'_clave_tail')
     from jsonb_array_elements(?::jsonb) with ordinality as e(d, i)
     cross join lateral jsonb_populate_record(null::invoices, e.d) as r
     left join n on e.d->>'_offset' is not null
       and n.doc_type = r.doc_type and n.branch = r.branch and n.terminal = r.terminal
     order by e.i
     returning *`,
    [
      tenant.companyId,
      tenant.livemode,
      ordered.map((s) => s.docType),
      ordered.map((s) => s.branch),
      ordered.map((s) => s.terminal),
      ordered.map((s) => s.n),
      JSON.stringify(records),
    ],
  );
  const rows = (res.rows as Record<string, unknown>[]).map(camelRow);
  for (const r of rows) if (r.number !== null) checkNumbered(r, emisorId, now);
  return rows;
}

/**
 * Records one chunk of a batch in the caller's transaction (statements 1-3 of the header) and
 * returns the outcome of each item it recorded: items another run recorded meanwhile are left
 * out. Throws IdempotencyRecordExists when a key was finished by a concurrent request.
 */
export async function recordBatchChunk(
  trx: Knex.Transaction,
  tenantIn: Tenant,
  chunk: BatchChunk,
  opts: BulkOptions,
): Promise<BulkOutcome[]> {
  const tenant = tenantOnly(tenantIn);
  const read = await claimAndRead(trx, tenant, chunk);
  const claimed = new Set(read.claimed ?? []);
  const outcomes = new Map<number, BulkOutcome>();
  for (const f of chunk.failed)
    if (claimed.has(f.position))
      outcomes.set(f.position, { position: f.position, kind: 'failed', problem: f.problem });
  const items = chunk.items.filter((i) => claimed.has(i.position));

  // Finished requests under the items' keys: replayed, or refused when the request differs.
  const done = new Map((read.done ?? []).map((d) => [d.key, d]));
  for (const item of items) {
    const d = item.idempotency && done.get(item.idempotency.key);
    if (!d) continue;
    const decided = decideStored(
      { hash: Buffer.from(d.hash, 'hex'), route: d.route, status: d.status, body: d.body },
      item.idempotency!,
    );
    outcomes.set(
      item.position,
      decided.kind === 'reused'
        ? { position: item.position, kind: 'failed', problem: { ...KEY_REUSED } }
        : { position: item.position, ...decided },
    );
  }
  // external_ids already used.
  const byExt = new Map((read.taken ?? []).map((t) => [t.externalId, t.id]));
  for (const item of items) {
    const existing = item.prepared.externalId && byExt.get(item.prepared.externalId);
    if (!existing || outcomes.has(item.position)) continue;
    outcomes.set(item.position, {
      position: item.position,
      kind: 'failed',
      problem: duplicateExternalId(existing),
    });
  }

  // The invoices, then everything that goes with them.
  const todo = items.filter((i) => !outcomes.has(i.position));
  const now = (opts.now ?? (() => new Date()))();
  const tag = (position: number) => `${opts.requestId ?? 'batch'}#${position}`;
  const inserted = todo.length ? await insertNumbered(trx, tenant, todo, now, opts.emisorId, tag) : [];
  const byTag = new Map(inserted.map((r) => [r.requestId, r]));
  const made = todo.map((item) => {
    const row = byTag.get(tag(item.position));
    if (!row) throw new Error(`batch ${chunk.batchId}: item ${item.position} was not inserted`);
    const body = opts.render(row);
    outcomes.set(item.position, { position: item.position, kind: 'created', invoiceId: row.id, row, body });
    return { item, row, body };
  });
  if (!claimed.size) return [];
  await writeAfter(trx, tenant, chunk.batchId, made, [...outcomes.values()], opts.requestId);
  return [...claimed]
    .sort((a, b) => a - b)
    .map((p) => outcomes.get(p))
    .filter((o): o is BulkOutcome => o !== undefined);
}

/** Statement 3 (see the header). */
async function writeAfter(
  trx: Knex.Transaction,
  tenant: Tenant,
  batchId: number,
  made: { item: BulkItem; row: InvoiceRow; body: Record<string, unknown> }[],
  outcomes: BulkOutcome[],
  requestId: string | null,
): Promise<void> {
  const created = made.map((x) => createdItem(x.body, x.item.idempotency));
  const others = outcomes
    .filter((o) => o.kind !== 'created')
    .map((o) => ({
      position: o.position,
      status: o.kind,
      invoice_id: o.kind === 'failed' ? null : o.invoiceId,
      problem: o.kind === 'failed' ? o.problem : null,
    }));
  const keyed = made.filter((x) => x.item.idempotency).length;
  const res = await prepared(
    trx,
    'invoice-bulk.write-created',
    `${CREATED_ROWS_SQL},
     u as (
       update batch_items b
       set status = v.status, invoice_id = v.invoice_id, problem = v.problem
       from (select position, 'created' as status, invoice_id, null::jsonb as problem
               from unnest(?::int[], ?::bigint[]) as c(position, invoice_id)
             union all
             select position, status, invoice_id, problem
               from jsonb_to_recordset(?::jsonb) as o(position int, status text, invoice_id bigint, problem jsonb)) v
       where b.batch_id = ? and b.position = v.position and b.status = 'pending'
       returning 1)
     select (select count(*) from k)::int as keys, (select count(*) from u)::int as outcomes,
            (select count(*) from o)::int + (select count(*) from f)::int as outbox,
            ${OUTBOX_NOTIFY_SQL} as notified`,
    [
      ...createdRowsBindings(
        created,
        tenant,
        requestId,
        made.filter((x) => x.row.status === 'pendiente').map((x) => x.row.id),
      ),
      made.map((x) => x.item.position),
      made.map((x) => x.row.id),
      JSON.stringify(others),
      batchId,
    ],
    outcomes.length,
  );
  if (Number(res.rows[0].keys) !== keyed) throw new IdempotencyRecordExists();
  if (Number(res.rows[0].outcomes) !== outcomes.length)
    throw new Error(`batch ${batchId}: ${res.rows[0].outcomes} of ${outcomes.length} outcomes written`);
}
