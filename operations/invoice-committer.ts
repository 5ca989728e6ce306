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
//      external_ids already used and the rejected invoices the requests replace (readGroup in
//      db/queries/invoice-group.ts);
//   2. the invoices, one multi-row insert that also reserves their numbers (last_number + n on
//      each series row, taken in key order like every other multi-series writer, and locked
//      until COMMIT), so only the issued invoices that are recorded take numbers and numbering
//      stays gapless (insertNumbered in db/queries/invoice-bulk.ts, shared with batch chunks);
//   3. their invoice.created events, one event.dispatch and one invoice.flow outbox row, the
//      idempotency records, the replaced invoices' `replaced_by_id` (guarded: still rejected and
//      not replaced) and the outbox notification (writeGroupCreated, invoice-group.ts);
//   COMMIT.
// Up to DEPTH groups of a company are in flight: the next one does its reads while the previous
// one holds the series rows, and waits for them at its insert. Statement 1 reads the
// idempotency records in the snapshot taken before its locks: a request with the same key
// committed in between is caught by statement 3, which never overwrites a fresh record; the
// group then fails as a whole and each request is retried on its own (and then replayed).
import type { Knex } from 'knex';
import type { Client, Company, Service } from '../db/models/index.ts';
import type { InvoiceRequest } from '../domain/invoice-request.ts';
import { formatId } from '../domain/ids.ts';
import { tenantOnly, type Tenant } from '../db/queries/clients.ts';
import { duplicateExternalId, insertNumbered, type ItemProblem } from '../db/queries/invoice-bulk.ts';
import { readGroup, writeGroupCreated, type ReadResult } from '../db/queries/invoice-group.ts';
import { prepareFromCatalogue, type Catalogue } from '../db/queries/invoice-prepare.ts';
import type { IdempotencyInput, InvoiceRow, PreparedInvoice } from '../db/queries/invoices.ts';
import { createdItem } from '../db/queries/created-rows.ts';
import { decideStored, KEY_IN_USE, KEY_REUSED } from '../db/queries/idempotency.ts';
import { REPLACEMENT_REFERENCES, replacementTypeError } from '../domain/document-notes.ts';

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

type Outcomes = Map<number, GroupedOutcome>;

/** Records one group in the caller's transaction; one outcome per member, in order. */
async function recordGroup(trx: Knex.Transaction, members: Pending[]): Promise<GroupedOutcome[]> {
  const first = members[0]!;
  const tenant = first.tenant;
  const read = await readGroup(trx, tenant, members);
  const outcomes: Outcomes = new Map();
  decideKeys(read, members, outcomes);
  const prepared = prepareMembers(read, members, outcomes);
  referenceReplaced(read, members, prepared, outcomes);
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
  const replacements = made.filter((x) => x.m.request.replaces !== null);
  const wrote = await writeGroupCreated(
    trx,
    tenant,
    made.map((x) => createdItem(x.body, x.m.idempotency)),
    members.length === 1 ? first.requestId : null,
    made.filter((x) => x.row.status === 'pendiente').map((x) => x.row.id),
    replacements.map((x) => ({ oldId: x.m.request.replaces!, newId: x.row.id })),
  );
  if (wrote.keys !== made.filter((x) => x.m.idempotency).length) throw new IdempotencyRecordExists();
  if (wrote.replaced !== replacements.length) throw new InvoiceReplacedMeanwhile();
  for (const x of made)
    outcomes.set(x.m.position, { kind: 'created', invoiceId: x.row.id, row: x.row, body: x.body });
  return members.map((m) => outcomes.get(m.position)!);
}

/** Idempotency: a key held by another transaction, then the finished requests. */
function decideKeys(read: ReadResult, members: Pending[], outcomes: Outcomes): void {
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
}

/** Each remaining request prepared from the catalogue rows read; an external_id used already fails. */
function prepareMembers(
  read: ReadResult,
  members: Pending[],
  outcomes: Outcomes,
): Map<number, PreparedInvoice> {
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
      outcomes.set(m.position, { kind: 'failed', problem: duplicateExternalId(existing) });
    }
  }
  return prepared;
}

/**
 * A replacement names a rejected invoice of this company and mode, not yet replaced (once: a
 * second request in the same group is refused too), of its own document type; it references it.
 */
function referenceReplaced(
  read: ReadResult,
  members: Pending[],
  prepared: Map<number, PreparedInvoice>,
  outcomes: Outcomes,
): void {
  const replaced = new Map(read.replaced.map((r) => [Number(r.id), r]));
  const replacing = new Set<number>();
  for (const m of members) {
    const p = prepared.get(m.position);
    const id = m.request.replaces;
    if (!p || id === null) continue;
    const old = replaced.get(id);
    const problem = replacementProblem(id, old, p, replacing.has(id));
    if (problem) {
      prepared.delete(m.position);
      outcomes.set(m.position, { kind: 'failed', problem });
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
}

/** Why a request cannot replace invoice `id` (null: it can). */
function replacementProblem(
  id: number,
  old: ReadResult['replaced'][number] | undefined,
  p: PreparedInvoice,
  replacedInGroup: boolean,
): ItemProblem | null {
  if (!old)
    return {
      status: 404,
      code: 'resource_not_found',
      detail: `No invoice with id ${formatId('invoice', id)}`,
    };
  if (old.status !== 'rechazada' || old.replacedById !== null || replacedInGroup || !old.clave)
    return {
      status: 409,
      code: 'invoice_not_replaceable',
      detail:
        old.replacedById !== null || replacedInGroup
          ? `${formatId('invoice', id)} was already replaced`
          : `${formatId('invoice', id)} is ${old.status}: only a rejected invoice can be replaced`,
    };
  const typeError = replacementTypeError(formatId('invoice', id), old.docType, p.docType);
  return typeError
    ? { status: 422, code: 'validation_failed', detail: typeError.message, errors: [typeError] }
    : null;
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
