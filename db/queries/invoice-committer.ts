// Group commit for single invoice creates. Every create on a series must hold that series' row
// lock until its COMMIT, and each COMMIT waits for its WAL flush: one transaction per request
// would serialise the whole series behind one disk flush per invoice. Instead, requests of the
// same company and mode that arrive while a transaction is in flight are recorded together in the
// next one, whatever their series (document type, branch, terminal), with no added wait when the
// company is idle. Each request still gets exactly its own outcome; if a shared transaction fails
// as a whole, its requests are retried one by one so one bad request cannot fail the others.
//
// A request reaches the committer parsed but not yet looked up: the catalogue rows it names are
// read inside the group's transaction, for the whole group at once. One group costs five
// statements whatever its size and however many series it numbers:
//   BEGIN
//   1. the idempotency keys' advisory locks (try: a key held elsewhere is 409), the finished
//      requests under those keys, the clients and services the requests name, the
//      external_ids already used and the rejected invoices the requests replace;
//   2. the invoices, one multi-row insert that also reserves their numbers (last_number + n on
//      each series row, taken in key order like every other multi-series writer, and locked
//      until COMMIT), so only the issued invoices that are recorded take numbers and numbering
//      stays gapless (insertNumbered in invoice-bulk.ts, shared with batch chunks);
//   3. their invoice.created events, one event.dispatch and one invoice.flow outbox row, the
//      idempotency records, the replaced invoices' `replaced_by_id` (guarded: still rejected and
//      not replaced) and the outbox notification;
//   COMMIT.
// Up to DEPTH groups of a company are in flight: the next one does its reads while the previous
// one holds the series rows, and waits for them at its insert. Statement 1 reads the
// idempotency records in the snapshot taken before its locks: a request with the same key
// committed in between is caught by statement 3, which never overwrites a fresh record; the
// group then fails as a whole and each request is retried on its own (and then replayed).
import type { OtherTaxInput } from '../../domain/other-taxes.ts';
import type { Knex } from 'knex';
import type { Client, Company, Service } from '../models/index.ts';
import type { InvoiceRequest } from '../../domain/invoice-request.ts';
import { formatId } from '../../domain/ids.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import { duplicateExternalId, insertNumbered, type ItemProblem } from './invoice-bulk.ts';
import { prepareFromCatalogue, type Catalogue } from './invoice-prepare.ts';
import type { IdempotencyInput, InvoiceRow, PreparedInvoice } from './invoices.ts';
import { CREATED_ROWS_SQL, createdItem, createdRowsBindings } from './created-rows.ts';
import { OUTBOX_NOTIFY_SQL } from './events.ts';
import { decideStored, KEY_IN_USE, KEY_REUSED } from './idempotency.ts';
import { REPLACEMENT_REFERENCES, replacementTypeError } from '../../domain/document-notes.ts';

/**
 * The invoice a request replaces was replaced (or changed) by another transaction after this one
 * read it: the group is retried one request at a time, and then that request is refused.
 */
export class InvoiceReplacedMeanwhile extends Error {}

/** Most invoices one shared transaction records. */
const MAX_GROUP = 64;
/** Groups of one company in flight at once (the next one waits for the series rows at its insert). */
const DEPTH = 2;

export type GroupedOutcome =
  | { kind: 'created'; invoiceId: number; row: InvoiceRow; body: Record<string, unknown> }
  | {
      kind: 'replayed';
      invoiceId: number | null;
      response: { status: number; body: Record<string, unknown> };
    }
  | { kind: 'failed'; problem: ItemProblem }
  /** Preparing the invoice threw (a DomainValidationError: unknown client or service, totals). */
  | { kind: 'invalid'; error: unknown };

export interface GroupedRequest {
  company: Company;
  request: InvoiceRequest;
  send: boolean;
  idempotency: IdempotencyInput | null;
  requestId: string | null;
  /** The request's W3C trace context as stored text (null: tracing off). */
  traceContext?: string | null;
  render: (row: InvoiceRow) => Record<string, unknown>;
}

interface Pending extends GroupedRequest {
  position: number;
  tenant: Tenant;
  resolve: (o: GroupedOutcome) => void;
  reject: (err: unknown) => void;
}

/** A fresh idempotency record of another request was found when writing ours. */
class IdempotencyRecordExists extends Error {}

interface ReadResult {
  locks: { k: string; ok: boolean }[];
  done: { key: string; route: string; hash: string; status: number | null; body: Record<string, unknown> }[];
  /** What preparing needs of a receptor: its identity, and an export's foreign data. */
  clients: { id: number; uuid: string; idType: string; foreignAddress: string | null }[];
  services: {
    id: number;
    uuid: string;
    cabys: string;
    description: string;
    unit: string;
    taxCode: string;
    ivaRateCode: string;
    price: string;
    commercialCode: string | null;
    otherTaxes: OtherTaxInput[] | null;
  }[];
  taken: { id: number; externalId: string }[];
  /** The rejected invoices the requests replace (any status: checked after the read). */
  replaced: {
    id: number;
    status: string;
    docType: string;
    replacedById: number | null;
    clave: string | null;
    issuedAt: string | null;
  }[];
}

const NO_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Statement 1 (see the header).
 *
 * LOOKUP_NOTE: idempotency keys and external_ids are looked up with a LATERAL subquery per key
 * (its LIMIT keeps the planner from turning it into a join), so each is one probe of the unique
 * index whatever the table's statistics say. Written as `key = any(...)`, a plan made while the
 * statistics were stale (a busy new company: autovacuum analyzes about once a minute) scanned all
 * of the company's keys and compared each with every key of the group: 1.6 s for a 1,000-item
 * batch chunk against 8,000 keys.
 */
async function readGroup(trx: Knex.Transaction, tenant: Tenant, members: Pending[]): Promise<ReadResult> {
  const uniq = <T>(xs: T[]) => [...new Set(xs)];
  const keys = uniq(members.flatMap((m) => (m.idempotency ? [m.idempotency.key] : [])));
  const reqs = members.map((m) => m.request);
  const clientIds = uniq(reqs.flatMap((r) => (r.clientRef && 'id' in r.clientRef ? [r.clientRef.id] : [])));
  const clientUuids = uniq(
    reqs.flatMap((r) => (r.clientRef && 'uuid' in r.clientRef ? [r.clientRef.uuid] : [])),
  );
  const serviceIds = uniq(
    reqs.flatMap((r) => r.lines.flatMap((l) => ('id' in l.serviceRef ? [l.serviceRef.id] : []))),
  );
  const serviceUuids = uniq(
    reqs.flatMap((r) => r.lines.flatMap((l) => ('uuid' in l.serviceRef ? [l.serviceRef.uuid] : []))),
  );
  const exts = uniq(reqs.flatMap((r) => (r.externalId !== null ? [r.externalId] : [])));
  const replaces = uniq(reqs.flatMap((r) => (r.replaces !== null ? [r.replaces] : [])));
  const t = [tenant.companyId, tenant.livemode];
  const res = await trx.raw(
    `with l as (
       select k, pg_try_advisory_xact_lock(?::int, hashtext(? || k)) as ok
       from (select unnest(?::text[]) as k order by 1) s),
     d as (
       select i.key, i.route, encode(i.request_hash, 'hex') as hash, i.response_status as status,
              i.response_body as body
       from unnest(?::text[]) as u(k) cross join lateral (
         select * from idempotency_keys
         where company_id = ? and livemode = ? and key = u.k
           and created_at > now() - interval '24 hours'
         limit 1) i),
     c as (
       select id, uuid::text as uuid, id_type as "idType", foreign_address as "foreignAddress" from clients
       where company_id = ? and livemode = ? and (id = any(?::bigint[]) or uuid = any(?::uuid[]))),
     s as (
       select id, uuid::text as uuid, cabys, description, unit, tax_code as "taxCode",
              iva_rate_code as "ivaRateCode", price::text as price, commercial_code as "commercialCode",
              other_taxes as "otherTaxes"
       from services
       where company_id = ? and livemode = ? and (id = any(?::bigint[]) or uuid = any(?::uuid[]))),
     x as (
       select i.id, i.external_id as "externalId"
       from unnest(?::text[]) as u(ext) cross join lateral (
         select id, external_id from invoices
         where company_id = ? and livemode = ? and external_id = u.ext
         limit 1) i),
     rp as (
       select id, status, doc_type as "docType", replaced_by_id as "replacedById", clave, issued_at as "issuedAt" from invoices
       where company_id = ? and livemode = ? and id = any(?::bigint[]))
     select
       (select coalesce(json_agg(l), '[]') from l) as locks,
       (select coalesce(json_agg(d), '[]') from d) as done,
       (select coalesce(json_agg(c), '[]') from c) as clients,
       (select coalesce(json_agg(s), '[]') from s) as services,
       (select coalesce(json_agg(x), '[]') from x) as taken,
       (select coalesce(json_agg(rp), '[]') from rp) as replaced`,
    [
      tenant.companyId % 2_147_483_647,
      `${tenant.livemode ? 'live' : 'test'}:`,
      keys,
      keys,
      ...t,
      ...t,
      clientIds,
      clientUuids.length ? clientUuids : [NO_UUID],
      ...t,
      serviceIds,
      serviceUuids.length ? serviceUuids : [NO_UUID],
      exts,
      ...t,
      ...t,
      replaces,
    ],
  );
  return res.rows[0] as ReadResult;
}

/** Records one group in the caller's transaction; one outcome per member, in order. */
async function recordGroup(trx: Knex.Transaction, members: Pending[]): Promise<GroupedOutcome[]> {
  const first = members[0]!;
  const tenant = first.tenant;
  const read = await readGroup(trx, tenant, members);
  const outcomes = new Map<number, GroupedOutcome>();

  // Idempotency: a key held by another transaction, then the finished requests.
  const busy = new Set(read.locks.filter((l) => !l.ok).map((l) => l.k));
  const done = new Map(read.done.map((d) => [d.key, d]));
  for (const m of members) {
    if (!m.idempotency) continue;
    if (busy.has(m.idempotency.key)) {
      outcomes.set(m.position, { kind: 'failed', problem: { ...KEY_IN_USE } });
      continue;
    }
    const d = done.get(m.idempotency.key);
    if (!d) continue;
    const decided = decideStored(
      { hash: Buffer.from(d.hash, 'hex'), route: d.route, status: d.status, body: d.body },
      m.idempotency,
    );
    outcomes.set(
      m.position,
      decided.kind === 'reused' ? { kind: 'failed', problem: { ...KEY_REUSED } } : decided,
    );
  }

  // Prepare each remaining request from the catalogue rows read above.
  const cat: Catalogue = {
    clientsById: new Map(read.clients.map((c) => [c.id, c as Client])),
    clientsByUuid: new Map(read.clients.map((c) => [c.uuid, c as Client])),
    servicesById: new Map(read.services.map((s) => [s.id, s as Service])),
    servicesByUuid: new Map(read.services.map((s) => [s.uuid, s as Service])),
  };
  const prepared = new Map<number, PreparedInvoice>();
  const taken = new Map(read.taken.map((x) => [x.externalId, x.id]));
  for (const m of members) {
    if (outcomes.has(m.position)) continue;
    try {
      prepared.set(m.position, prepareFromCatalogue(m.company, m.request, cat));
    } catch (error) {
      outcomes.set(m.position, { kind: 'invalid', error });
      continue;
    }
    const existing = m.request.externalId !== null ? taken.get(m.request.externalId) : undefined;
    if (existing !== undefined) {
      prepared.delete(m.position);
      outcomes.set(m.position, {
        kind: 'failed',
        problem: duplicateExternalId(existing),
      });
    }
  }

  // A replacement names a rejected invoice of this company and mode, not yet replaced (once: a
  // second request in the same group is refused too), of its own document type.
  const replaced = new Map(read.replaced.map((r) => [Number(r.id), r]));
  const replacing = new Set<number>();
  for (const m of members) {
    const p = prepared.get(m.position);
    const id = m.request.replaces;
    if (!p || id === null) continue;
    const old = replaced.get(id);
    const problem: ItemProblem | null = !old
      ? { status: 404, code: 'resource_not_found', detail: `No invoice with id ${formatId('invoice', id)}` }
      : old.status !== 'rechazada' || old.replacedById !== null || replacing.has(id) || !old.clave
        ? {
            status: 409,
            code: 'invoice_not_replaceable',
            detail:
              old.replacedById !== null || replacing.has(id)
                ? `${formatId('invoice', id)} was already replaced`
                : `${formatId('invoice', id)} is ${old.status}: only a rejected invoice can be replaced`,
          }
        : null;
    const typeError = problem ? null : replacementTypeError(formatId('invoice', id), old!.docType, p.docType);
    if (problem || typeError) {
      prepared.delete(m.position);
      outcomes.set(m.position, {
        kind: 'failed',
        problem: problem ?? {
          status: 422,
          code: 'validation_failed',
          detail: typeError!.message,
          errors: [typeError!],
        },
      });
      continue;
    }
    replacing.add(id);
    const ref = REPLACEMENT_REFERENCES[old!.docType]!;
    p.reference = {
      documentId: id,
      docType: ref.docType,
      clave: old!.clave!,
      issuedAt: new Date(old!.issuedAt!).toISOString(),
      code: ref.code,
      reason: 'Sustituye comprobante rechazado por Hacienda',
    };
  }

  const todo = members.filter((m) => prepared.has(m.position));
  if (!todo.length) return members.map((m) => outcomes.get(m.position)!);

  // 2. The invoices, numbered in the same statement (each series of the group reserves its count).
  const tags = new Map(
    todo.map((m) => [m.position, m.requestId ?? `${first.requestId ?? 'group'}#${m.position}`]),
  );
  const inserted = await insertNumbered(
    trx,
    tenant,
    todo.map((m) => ({
      position: m.position,
      prepared: prepared.get(m.position)!,
      idempotency: m.idempotency,
      send: m.send,
      traceContext: m.traceContext ?? null,
    })),
    new Date(),
    first.company.idNumber,
    (position) => tags.get(position)!,
  );
  const byTag = new Map(inserted.map((r) => [r.requestId, r]));
  const made = todo.map((m) => {
    const row = byTag.get(tags.get(m.position)!)!;
    return { m, row, body: m.render(row) };
  });

  // 3. Events, outbox rows, idempotency records and the outbox notification.
  const requestId = members.length === 1 ? first.requestId : null;
  const replacements = made.filter((x) => x.m.request.replaces !== null);
  const keyed = made.filter((x) => x.m.idempotency).length;
  const items = made.map((x) => createdItem(x.body, x.m.idempotency));
  const res = await trx.raw(
    `${CREATED_ROWS_SQL},
     rb as (
       update invoices set replaced_by_id = v.new_id, updated_at = now()
       from unnest(?::bigint[], ?::bigint[]) as v(old_id, new_id)
       where invoices.id = v.old_id and invoices.company_id = ? and invoices.livemode = ?
         and invoices.status = 'rechazada' and invoices.replaced_by_id is null
       returning 1)
     select (select count(*) from o)::int as events, (select count(*) from f)::int as flows,
            (select count(*) from k)::int as keys, (select count(*) from rb)::int as replaced,
            ${OUTBOX_NOTIFY_SQL} as notified`,
    [
      ...createdRowsBindings(
        items,
        tenant,
        requestId,
        made.filter((x) => x.row.status === 'pendiente').map((x) => x.row.id),
      ),
      replacements.map((x) => x.m.request.replaces!),
      replacements.map((x) => x.row.id),
      tenant.companyId,
      tenant.livemode,
    ],
  );
  if (Number(res.rows[0].keys) !== keyed) throw new IdempotencyRecordExists();
  if (Number(res.rows[0].replaced) !== replacements.length) throw new InvoiceReplacedMeanwhile();
  for (const x of made)
    outcomes.set(x.m.position, { kind: 'created', invoiceId: x.row.id, row: x.row, body: x.body });
  return members.map((m) => outcomes.get(m.position)!);
}

interface CompanyState {
  queue: Pending[];
  /** Groups in flight (at most DEPTH). */
  running: number;
  /** Idempotency keys, request ids and external_ids of the groups in flight. */
  keys: Set<string>;
  ids: Set<string>;
  exts: Set<string>;
}

class GroupCommitter {
  private readonly companies = new Map<string, CompanyState>();
  private seq = 0;

  constructor(private readonly db: Knex) {}

  submit(tenant: Tenant, r: GroupedRequest): Promise<GroupedOutcome> {
    const t = tenantOnly(tenant);
    // The emisor's identification is part of the key: it is in every clave the group writes.
    const key = `${t.companyId}|${t.livemode}|${r.company.idNumber}`;
    return new Promise((resolve, reject) => {
      let state = this.companies.get(key);
      if (!state) {
        state = { queue: [], running: 0, keys: new Set(), ids: new Set(), exts: new Set() };
        this.companies.set(key, state);
      }
      state.queue.push({ ...r, position: ++this.seq, tenant: t, resolve, reject });
      this.pump(key, state);
    });
  }

  /**
   * Starts groups while fewer than DEPTH are in flight. A second group reads and prepares while
   * the first holds its series rows; it takes them (and its numbers) when the first commits.
   * One request per idempotency key, request id and external_id among the groups in flight; the
   * others wait for a later group (and then see the first one committed).
   */
  private pump(key: string, state: CompanyState): void {
    while (state.running < DEPTH && state.queue.length) {
      const group: Pending[] = [];
      const rest: Pending[] = [];
      for (const p of state.queue) {
        const k = p.idempotency?.key;
        const ext = p.request.externalId;
        const clash =
          group.length >= MAX_GROUP ||
          (k !== undefined && state.keys.has(k)) ||
          (p.requestId !== null && state.ids.has(p.requestId)) ||
          (ext !== null && state.exts.has(ext));
        if (clash) {
          rest.push(p);
          continue;
        }
        group.push(p);
        if (k !== undefined) state.keys.add(k);
        if (p.requestId !== null) state.ids.add(p.requestId);
        if (ext !== null) state.exts.add(ext);
      }
      state.queue = rest;
      if (!group.length) break;
      state.running++;
      void this.record(group).finally(() => {
        state.running--;
        for (const p of group) {
          if (p.idempotency) state.keys.delete(p.idempotency.key);
          if (p.requestId !== null) state.ids.delete(p.requestId);
          if (p.request.externalId !== null) state.exts.delete(p.request.externalId);
        }
        if (!state.running && !state.queue.length) this.companies.delete(key);
        else this.pump(key, state);
      });
    }
  }

  private async record(group: Pending[]): Promise<void> {
    const run = (members: Pending[]) => this.db.transaction((trx) => recordGroup(trx, members));
    try {
      const outcomes = await run(group);
      group.forEach((m, i) => m.resolve(outcomes[i]!));
    } catch (err) {
      if (
        group.length === 1 &&
        !(err instanceof IdempotencyRecordExists || err instanceof InvoiceReplacedMeanwhile)
      ) {
        group[0]!.reject(err);
        return;
      }
      // The shared transaction failed as a whole: each request on its own.
      for (const m of group) {
        try {
          m.resolve((await run([m]))[0]!);
        } catch (e) {
          m.reject(e);
        }
      }
    }
  }
}

const committers = new WeakMap<Knex, GroupCommitter>();

/** Records one invoice request through its company's group committer. */
export function createInvoiceGrouped(db: Knex, tenant: Tenant, r: GroupedRequest): Promise<GroupedOutcome> {
  let c = committers.get(db);
  if (!c) {
    c = new GroupCommitter(db);
    committers.set(db, c);
  }
  return c.submit(tenant, r);
}
