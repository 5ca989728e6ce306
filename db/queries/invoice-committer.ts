// Group commit for single invoice creates. Every create on a series must hold that series' row
// lock until its COMMIT, and each COMMIT waits for its WAL flush: one transaction per request
// would serialise the whole series behind one disk flush per invoice. Instead, requests for the
// same series that arrive while a transaction is in flight are recorded together in the next one
// (numbers reserved at once, one multi-row insert, one COMMIT), with no added wait when the
// series is idle. Each request still gets exactly its own outcome; if a shared transaction fails
// as a whole, its requests are retried one by one so one bad request cannot fail the others.
import type { Knex } from 'knex';
import { tenantOnly, type Tenant } from './clients.ts';
import { createInvoicesBulk, type BulkItem, type BulkOutcome } from './invoice-bulk.ts';
import type { IdempotencyInput, InvoiceRow, PreparedInvoice } from './invoices.ts';

/** Most invoices one shared transaction records. */
const MAX_GROUP = 64;

interface Pending {
  tenant: Tenant;
  item: BulkItem;
  emisorId: string;
  requestId: string | null;
  render: (row: InvoiceRow) => Record<string, unknown>;
  resolve: (o: BulkOutcome) => void;
  reject: (err: unknown) => void;
}

class SeriesCommitter {
  private readonly queues = new Map<string, Pending[]>();
  private readonly busy = new Set<string>();
  private seq = 0;

  constructor(private readonly db: Knex) {}

  submit(
    tenant: Tenant,
    prepared: PreparedInvoice,
    send: boolean,
    idempotency: IdempotencyInput | null,
    o: { emisorId: string; requestId: string | null; render: (row: InvoiceRow) => Record<string, unknown> },
  ): Promise<BulkOutcome> {
    const t = tenantOnly(tenant);
    const key = `${t.companyId}|${t.livemode}|${prepared.docType}|${prepared.branch}|${prepared.terminal}|${o.emisorId}`;
    return new Promise((resolve, reject) => {
      const item: BulkItem = { position: ++this.seq, prepared, send, idempotency };
      const list = this.queues.get(key) ?? [];
      list.push({
        tenant: t,
        item,
        emisorId: o.emisorId,
        requestId: o.requestId,
        render: o.render,
        resolve,
        reject,
      });
      this.queues.set(key, list);
      if (!this.busy.has(key)) void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    this.busy.add(key);
    try {
      for (;;) {
        const queue = this.queues.get(key) ?? [];
        if (!queue.length) break;
        // One request per idempotency key, request id and external_id per group; the others
        // wait for the next group (and then see the first one committed).
        const group: Pending[] = [];
        const rest: Pending[] = [];
        const keys = new Set<string>();
        const ids = new Set<string>();
        const exts = new Set<string>();
        for (const p of queue) {
          const k = p.item.idempotency?.key;
          const ext = p.item.prepared.externalId;
          const clash =
            group.length >= MAX_GROUP ||
            (k !== undefined && keys.has(k)) ||
            (p.requestId !== null && ids.has(p.requestId)) ||
            (ext !== null && exts.has(ext));
          if (clash) {
            rest.push(p);
            continue;
          }
          group.push(p);
          if (k !== undefined) keys.add(k);
          if (p.requestId !== null) ids.add(p.requestId);
          if (ext !== null) exts.add(ext);
        }
        this.queues.set(key, rest);
        await this.record(group);
      }
    } finally {
      this.busy.delete(key);
      this.queues.delete(key);
    }
  }

  private async record(group: Pending[]): Promise<void> {
    const first = group[0]!;
    const run = (members: Pending[]) =>
      this.db.transaction((trx) =>
        createInvoicesBulk(
          trx,
          first.tenant,
          members.map((m) => m.item),
          {
            emisorId: first.emisorId,
            requestId: members.length === 1 ? members[0]!.requestId : null,
            requestIds: new Map(members.map((m) => [m.item.position, m.requestId])),
            render: first.render,
            lockMode: 'try',
          },
        ),
      );
    try {
      const outcomes = await run(group);
      group.forEach((m, i) => m.resolve(outcomes[i]!));
    } catch (err) {
      if (group.length === 1) {
        first.reject(err);
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

const committers = new WeakMap<Knex, SeriesCommitter>();

/** Records one invoice through its series' group committer. */
export function createInvoiceGrouped(
  db: Knex,
  tenant: Tenant,
  prepared: PreparedInvoice,
  send: boolean,
  idempotency: IdempotencyInput | null,
  o: { emisorId: string; requestId: string | null; render: (row: InvoiceRow) => Record<string, unknown> },
): Promise<BulkOutcome> {
  let c = committers.get(db);
  if (!c) {
    c = new SeriesCommitter(db);
    committers.set(db, c);
  }
  return c.submit(tenant, prepared, send, idempotency, o);
}
