// Recording many invoices in one transaction (the batch API): idempotency keys and external_ids
// checked up front, one number reservation per series (last_number + n), one multi-row insert of
// invoices, events and outbox rows. Each item ends created, replayed (its idempotency key was
// already used with the same request) or failed with a problem — never created twice.
import type { Knex } from 'knex';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../../domain/clave.ts';
import { formatId } from '../../domain/ids.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import type { IdempotencyInput, InvoiceRow, PreparedInvoice } from './invoices.ts';
import { decideStored, KEY_IN_USE, KEY_REUSED } from './idempotency.ts';

export interface BulkItem {
  position: number;
  prepared: PreparedInvoice;
  idempotency: IdempotencyInput | null;
  send: boolean;
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
  requestId: string | null;
  /** Per item, when the items are separate API requests (the request ids tag the rows). */
  requestIds?: Map<number, string | null>;
  render: (row: InvoiceRow) => Record<string, unknown>;
  now?: () => Date;
  /**
   * `wait` (batches): a key held by another transaction is waited for, then replayed.
   * `try` (single requests): a key held elsewhere fails that item with idempotency_key_in_use.
   */
  lockMode?: 'wait' | 'try';
}

/**
 * The `invoices` row of one prepared invoice: issued (`pendiente`, with its number, consecutivo
 * and clave) when it has a number, a `borrador` otherwise. request_id tags the row with its item.
 */
export function invoiceInsertRow(
  tenant: Tenant,
  p: PreparedInvoice,
  number: number | undefined,
  now: Date,
  emisorId: string,
  requestId: string,
): Record<string, unknown> {
  const issue =
    number === undefined
      ? { status: 'borrador' }
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
    condition: p.condition,
    condicionVenta: p.condicionVenta,
    conditionOther: p.conditionOther,
    creditDays: p.creditDays,
    paymentMethods: JSON.stringify(p.paymentMethods),
    paymentMethodOther: p.paymentMethodOther,
    paidAtIssue: p.paidAtIssue,
    lines: JSON.stringify(p.lines),
    summary: JSON.stringify(p.totals),
    total: p.totals.summary.totalComprobante,
    balanceDue: p.totals.summary.totalComprobante,
    externalId: p.externalId,
    metadata: JSON.stringify(p.metadata),
    emailRecipients: JSON.stringify(p.emailRecipients),
    requestId,
    ...(p.reference
      ? { reference: JSON.stringify(p.reference), referencedInvoiceId: p.reference.documentId }
      : {}),
    ...(p.supplier ? { supplier: JSON.stringify(p.supplier) } : {}),
    ...issue,
  };
}

/** Runs inside the caller's transaction, so the caller can record outcomes atomically. */
export async function createInvoicesBulk(
  trx: Knex.Transaction,
  tenantIn: Tenant,
  items: BulkItem[],
  opts: BulkOptions,
): Promise<BulkOutcome[]> {
  const tenant = tenantOnly(tenantIn);
  const outcomes = new Map<number, BulkOutcome>();

  // 1. Idempotency keys: serialise with any concurrent request on the same keys, then replay
  //    the finished ones.
  let keyed = items.filter((i) => i.idempotency);
  const lockKeys = [...new Set(keyed.map((i) => i.idempotency!.key))].sort();
  if (lockKeys.length) {
    const fn = opts.lockMode === 'try' ? 'pg_try_advisory_xact_lock' : 'pg_advisory_xact_lock';
    // One statement for every key, taken in sorted order (no deadlocks between batches).
    const res = await trx.raw(
      `select k, ${fn}(?::int, hashtext(? || k))::text as ok from (select unnest(?::text[]) as k order by 1) s`,
      [tenant.companyId % 2_147_483_647, `${tenant.livemode ? 'live' : 'test'}:`, lockKeys],
    );
    const busy = new Set(
      (res.rows as { k: string; ok: string }[]).filter((r) => r.ok === 'false').map((r) => r.k),
    );
    for (const item of keyed) {
      if (!busy.has(item.idempotency!.key)) continue;
      outcomes.set(item.position, { position: item.position, kind: 'failed', problem: { ...KEY_IN_USE } });
    }
    keyed = keyed.filter((i) => !outcomes.has(i.position));
  }
  if (keyed.length) {
    const done = await trx('idempotency_keys')
      .where(tenant)
      .whereIn(
        'key',
        keyed.map((i) => i.idempotency!.key),
      )
      .where('created_at', '>', trx.raw(`now() - interval '24 hours'`))
      .select('key', 'route', 'request_hash', 'response_status', 'response_body');
    const byKey = new Map(done.map((d) => [d.key as string, d]));
    for (const item of keyed) {
      const d = byKey.get(item.idempotency!.key);
      if (!d) continue;
      const decided = decideStored(
        { hash: d.requestHash as Buffer, route: d.route, status: d.responseStatus, body: d.responseBody },
        item.idempotency!,
      );
      outcomes.set(
        item.position,
        decided.kind === 'reused'
          ? { position: item.position, kind: 'failed', problem: { ...KEY_REUSED } }
          : { position: item.position, ...decided },
      );
    }
  }

  // 2. external_id already used.
  const withExt = items.filter((i) => !outcomes.has(i.position) && i.prepared.externalId);
  if (withExt.length) {
    const taken = await trx('invoices')
      .where(tenant)
      .whereIn(
        'external_id',
        withExt.map((i) => i.prepared.externalId!),
      )
      .select('id', 'external_id');
    const byExt = new Map(taken.map((t) => [t.externalId as string, t.id as number]));
    for (const item of withExt) {
      const existing = byExt.get(item.prepared.externalId!);
      if (existing) {
        outcomes.set(item.position, {
          position: item.position,
          kind: 'failed',
          problem: {
            status: 409,
            code: 'duplicate_external_id',
            detail: `external_id is already used by ${formatId('invoice', existing)}`,
            existing_invoice_id: formatId('invoice', existing),
          },
        });
      }
    }
  }

  const todo = items.filter((i) => !outcomes.has(i.position));
  if (todo.length) {
    // 3. One reservation per series for all the issued invoices of this chunk.
    const now = (opts.now ?? (() => new Date()))();
    const numbers = new Map<number, number>();
    const bySeries = new Map<string, BulkItem[]>();
    for (const item of todo.filter((i) => i.send)) {
      const k = `${item.prepared.docType}|${item.prepared.branch}|${item.prepared.terminal}`;
      bySeries.set(k, [...(bySeries.get(k) ?? []), item]);
    }
    for (const [k, group] of bySeries) {
      const [docType, branch, terminal] = k.split('|') as [string, string, string];
      const res = await trx.raw(
        `insert into numbering_series (company_id, livemode, doc_type, branch, terminal, last_number)
         values (?, ?, ?, ?, ?, ?)
         on conflict (company_id, livemode, doc_type, branch, terminal)
         do update set last_number = numbering_series.last_number + excluded.last_number
         returning last_number`,
        [tenant.companyId, tenant.livemode, docType, branch, terminal, group.length],
      );
      const last = Number(res.rows[0].last_number);
      group.forEach((item, i) => numbers.set(item.position, last - group.length + 1 + i));
    }

    // 4. The invoices, in one statement; request_id tags each row with its item.
    // request_id tags each row with its item (the API request's own id for single creates).
    const tag = (position: number) =>
      opts.requestIds?.get(position) ?? `${opts.requestId ?? 'batch'}#${position}`;
    const rows = todo.map((item) =>
      invoiceInsertRow(
        tenant,
        item.prepared,
        numbers.get(item.position),
        now,
        opts.emisorId,
        tag(item.position),
      ),
    );
    const inserted = (await trx('invoices').insert(rows).returning('*')) as InvoiceRow[];
    const byTag = new Map(inserted.map((r) => [r.requestId, r]));

    // 5. Events, outbox rows and idempotency records, one statement each.
    const bodies = todo.map((item) => {
      const row = byTag.get(tag(item.position))!;
      return { item, row, body: opts.render(row) };
    });
    await trx.raw(
      `with e as (
         insert into events (company_id, livemode, type, data, request_id)
         select ?, ?, 'invoice.created', d, ? from jsonb_array_elements(?::jsonb) d
         returning id)
       insert into outbox (kind, payload, request_id)
       select 'event.dispatch', jsonb_build_object('eventIds', jsonb_agg(id order by id)), ? from e
       having count(*) > 0`,
      [
        tenant.companyId,
        tenant.livemode,
        opts.requestId,
        JSON.stringify(bodies.map((b) => b.body)),
        opts.requestId,
      ],
    );
    const flows = bodies.filter((b) => b.row.status === 'pendiente');
    if (flows.length) {
      await trx('outbox').insert({
        kind: 'invoice.flow',
        payload: JSON.stringify({ invoiceIds: flows.map((b) => b.row.id) }),
        requestId: opts.requestId,
      });
    }
    await trx.raw(`select pg_notify('outbox', '')`);
    const idem = bodies.filter((b) => b.item.idempotency);
    if (idem.length) {
      await trx('idempotency_keys')
        .insert(
          idem.map((b) => ({
            ...tenant,
            key: b.item.idempotency!.key,
            route: b.item.idempotency!.route,
            requestHash: b.item.idempotency!.hash,
            responseStatus: 201,
            responseBody: JSON.stringify(b.body),
          })),
        )
        .onConflict(['company_id', 'livemode', 'key'])
        .merge();
    }
    for (const b of bodies)
      outcomes.set(b.item.position, {
        position: b.item.position,
        kind: 'created',
        invoiceId: b.row.id,
        row: b.row,
        body: b.body,
      });
  }
  return items.map((i) => outcomes.get(i.position)!);
}
