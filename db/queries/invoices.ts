// Invoices: the recording transaction (idempotency, gapless consecutivo, clave, lines and totals,
// invoice.created event, outbox row), drafts issued later, reads and lists. Every query is scoped
// to (company, mode).
import type { Knex } from 'knex';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../../domain/clave.ts';
import type { DocumentTotals } from '../../domain/totals.ts';
import type { DocumentLine } from '../../hacienda/xml/types.ts';
import { enqueueOutbox } from './events.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import { lockIdempotencyKey, type IdempotencyInput, type StoredResponse } from './idempotency.ts';

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
}

export interface InvoiceRow {
  id: number;
  companyId: number;
  livemode: boolean;
  clientId: number;
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
  currency: string;
  exchangeRate: string;
  condition: string;
  condicionVenta: string;
  conditionOther: string | null;
  creditDays: number | null;
  paymentMethods: string[];
  lines: StoredLine[];
  summary: DocumentTotals;
  total: string;
  balanceDue: string;
  paymentStatus: string;
  externalId: string | null;
  metadata: Record<string, string>;
  rejectionReason: Record<string, unknown> | null;
  processingError: Record<string, unknown> | null;
  haciendaStatus: string | null;
  signedAt: Date | null;
  submittedAt: Date | null;
  accountedAt: Date | null;
  acceptedAt: Date | null;
  rejectedAt: Date | null;
  requestId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface PreparedInvoice {
  clientId: number;
  docType: '01';
  branch: string;
  terminal: string;
  currency: string;
  exchangeRate: string;
  condition: string;
  condicionVenta: string;
  conditionOther: string | null;
  creditDays: number | null;
  paymentMethods: string[];
  lines: StoredLine[];
  totals: DocumentTotals;
  externalId: string | null;
  metadata: Record<string, string>;
}

export class DuplicateExternalId extends Error {
  constructor(readonly invoiceId: number) {
    super('external_id already used');
  }
}

export type CreateOutcome =
  | { kind: 'created'; invoice: InvoiceRow; response: StoredResponse }
  | { kind: 'replay'; response: StoredResponse };

export interface CreateOptions {
  send: boolean;
  emisorId: string;
  requestId: string | null;
  idempotency: IdempotencyInput | null;
  /** Renders the stored row as the API response (stored for idempotent replays and as event data). */
  render: (row: InvoiceRow) => Record<string, unknown>;
  now?: () => Date;
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

const INSERT_COLUMNS = [
  'company_id',
  'livemode',
  'client_id',
  'status',
  'doc_type',
  'branch',
  'terminal',
  'currency',
  'exchange_rate',
  'condition',
  'condicion_venta',
  'condition_other',
  'credit_days',
  'payment_methods',
  'lines',
  'summary',
  'total',
  'balance_due',
  'external_id',
  'metadata',
  'request_id',
] as const;

/**
 * Records one invoice in as few round trips as the guarantees allow: (1) the idempotency key
 * (lock, then read: two statements, so the read sees whatever committed before the lock),
 * (2) the number reservation and the invoice insert in one statement, (3) the event, its outbox
 * row, the flow's outbox row, the idempotency record and the relay's wake-up in one statement,
 * then COMMIT. The series row is locked from (2) to COMMIT only.
 */
export async function createInvoice(
  db: Knex,
  tenantIn: Tenant,
  p: PreparedInvoice,
  opts: CreateOptions,
): Promise<CreateOutcome> {
  const tenant = tenantOnly(tenantIn);
  const values = [
    tenant.companyId,
    tenant.livemode,
    p.clientId,
    opts.send ? 'pendiente' : 'borrador',
    p.docType,
    p.branch,
    p.terminal,
    p.currency,
    p.exchangeRate,
    p.condition,
    p.condicionVenta,
    p.conditionOther,
    p.creditDays,
    JSON.stringify(p.paymentMethods),
    JSON.stringify(p.lines),
    JSON.stringify(p.totals),
    p.totals.summary.totalComprobante,
    p.totals.summary.totalComprobante,
    p.externalId,
    JSON.stringify(p.metadata),
    opts.requestId,
  ];
  const placeholders = INSERT_COLUMNS.map(() => '?').join(', ');
  try {
    return await db.transaction(async (trx) => {
      // 1. Idempotency: one request at a time per key; a finished one is replayed.
      if (opts.idempotency) {
        const replay = await lockIdempotencyKey(trx, tenant, opts.idempotency);
        if (replay) return { kind: 'replay', response: replay };
      }
      // 2. Number and invoice in one statement (the clave's fixed parts are built and checked
      //    here; only the number is filled in by the database).
      let row: InvoiceRow;
      if (opts.send) {
        const now = (opts.now ?? (() => new Date()))();
        const sample = issueFields(tenant, p, 1, opts.emisorId, now);
        const head = sample.clave.slice(0, 21);
        const consPrefix = sample.consecutivo.slice(0, 10);
        const tail = sample.clave.slice(41);
        const res = await trx.raw(
          `with s as (
             insert into numbering_series (company_id, livemode, doc_type, branch, terminal, last_number)
             values (?, ?, ?, ?, ?, 1)
             on conflict (company_id, livemode, doc_type, branch, terminal)
             do update set last_number = numbering_series.last_number + 1
             returning last_number)
           insert into invoices (${INSERT_COLUMNS.join(', ')}, number, consecutivo, clave, security_code, issued_at, situacion)
           select ${placeholders}, s.last_number,
                  ? || lpad(s.last_number::text, 10, '0'),
                  ? || ? || lpad(s.last_number::text, 10, '0') || ?,
                  ?, ?, '1'
           from s
           returning *`,
          [
            tenant.companyId,
            tenant.livemode,
            p.docType,
            p.branch,
            p.terminal,
            ...values,
            consPrefix,
            head,
            consPrefix,
            tail,
            sample.securityCode,
            now,
          ],
        );
        row = res.rows[0];
      } else {
        const res = await trx.raw(
          `insert into invoices (${INSERT_COLUMNS.join(', ')}) values (${placeholders}) returning *`,
          values,
        );
        row = res.rows[0];
      }
      row = camelRow(row as unknown as Record<string, unknown>);
      // 3. Event, outbox rows, idempotency record and the relay's wake-up in one statement.
      const body = opts.render(row);
      const response = { status: 201, body };
      const idem = opts.idempotency;
      await trx.raw(
        `with e as (
           insert into events (company_id, livemode, type, data, request_id)
           values (?, ?, 'invoice.created', ?::jsonb, ?) returning id),
         o as (
           insert into outbox (kind, payload, request_id)
           select 'event.dispatch', jsonb_build_object('eventId', e.id), ? from e
           union all
           select 'invoice.flow', jsonb_build_object('invoiceId', ?::bigint), ? where ?::boolean
           returning 1),
         k as (
           insert into idempotency_keys (company_id, livemode, key, route, request_hash, response_status, response_body)
           select ?, ?, ?, ?, ?, 201, ?::jsonb where ?::boolean
           on conflict (company_id, livemode, key) do update
             set route = excluded.route, request_hash = excluded.request_hash,
                 response_status = excluded.response_status, response_body = excluded.response_body,
                 created_at = excluded.created_at
           returning 1)
         select pg_notify('outbox', ''), (select count(*) from o), (select count(*) from k)`,
        [
          tenant.companyId,
          tenant.livemode,
          JSON.stringify(body),
          opts.requestId,
          opts.requestId,
          row.id,
          opts.requestId,
          opts.send,
          tenant.companyId,
          tenant.livemode,
          idem?.key ?? '',
          idem?.route ?? '',
          idem?.hash ?? Buffer.alloc(0),
          JSON.stringify(body),
          Boolean(idem),
        ],
      );
      return { kind: 'created', invoice: row, response };
    });
  } catch (err) {
    if ((err as { constraint?: string }).constraint === 'invoices_external_id_key' && p.externalId) {
      const existing = await db('invoices')
        .where({ ...tenant, externalId: p.externalId })
        .first('id');
      if (existing) throw new DuplicateExternalId(existing.id);
    }
    throw err;
  }
}

/** Raw query rows keep snake_case; the query builder's rows are camelCase. */
function camelRow<T>(raw: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw))
    out[k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())] = v;
  return out as T;
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
  clientId?: number;
  externalId?: string;
  createdGte?: string;
  createdLt?: string;
  updatedGte?: string;
  updatedLt?: string;
  startingAfter?: number;
  limit: number;
}

export async function listInvoices(
  db: Knex,
  tenant: Tenant,
  f: InvoiceFilters,
): Promise<{ rows: InvoiceRow[]; hasMore: boolean }> {
  const t = tenantOnly(tenant);
  const q = db('invoices')
    .where(t)
    .orderBy([
      { column: 'companyId', order: 'desc' },
      { column: 'livemode', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
  if (f.status) q.where('status', f.status);
  if (f.clientId !== undefined) q.where('clientId', f.clientId);
  if (f.externalId !== undefined) q.where('externalId', f.externalId);
  if (f.createdGte) q.where('createdAt', '>=', f.createdGte);
  if (f.createdLt) q.where('createdAt', '<', f.createdLt);
  if (f.updatedGte) q.where('updatedAt', '>=', f.updatedGte);
  if (f.updatedLt) q.where('updatedAt', '<', f.updatedLt);
  if (f.startingAfter !== undefined) q.where('id', '<', f.startingAfter);
  const rows = (await q) as InvoiceRow[];
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

export async function getInvoiceDocument(
  db: Knex,
  invoiceId: number,
): Promise<{ signedXml: Buffer | null; responseXml: string | null } | undefined> {
  return db('invoice_documents').where({ invoiceId }).first('signed_xml', 'response_xml');
}
