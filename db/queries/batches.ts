// Invoice batches (POST /api/v1/invoices/batch): the batch row, its items (each a create request
// or the problem that refused it), and the outbox row that hands it to the batch worker, recorded
// in one transaction that holds the batch's Idempotency-Key from its first statement to its
// commit (db/queries/idempotency.ts): a second request under the key waits for it, then replays
// its answer, so one key gives exactly one batch. Reads: a batch, its counts per item status,
// and its items with the invoice each made. For the batch worker: the items still pending, in
// order (a page at a time), and the batch marked completed once none is left.
import type { Knex } from 'knex';
import type { Tenant } from './clients.ts';
import { enqueueOutbox } from './events.ts';
import {
  insertIdempotent,
  lockIdempotencyKey,
  type IdempotencyInput,
  type StoredResponse,
} from './idempotency.ts';

export interface BatchRow {
  id: number;
  companyId: number;
  livemode: boolean;
  status: string;
  total: number;
  createdAt: Date;
  completedAt: Date | null;
}

/** One item as the request gave it, checked: `pending` for the worker, or `failed` with its problem. */
export interface BatchItemInput {
  position: number;
  idempotencyKey: string | null;
  externalId: string | null;
  /** The item's request body (JSON text). */
  request: string;
  status: 'pending' | 'failed';
  /** The problem that refused it (JSON text), or null. */
  problem: string | null;
}

export type BatchCounts = { pending: number; created: number; replayed: number; failed: number };

/** An item's outcome with the invoice it made (if any). */
export interface BatchItemRow {
  position: number;
  idempotencyKey: string | null;
  externalId: string | null;
  status: string;
  problem: Record<string, unknown> | null;
  invoiceId: number | null;
  invoiceStatus: string | null;
  consecutivo: string | null;
  clave: string | null;
}

const INSERT_CHUNK = 500;

export type BatchOutcome<T> = { kind: 'created'; body: T } | { kind: 'replay'; response: StoredResponse };

/**
 * Records a batch with its items and its outbox row, and stores `answer(batch, counts)` under the
 * Idempotency-Key; a finished request under the key gives its stored answer instead (`replay`).
 */
export async function recordBatch<T extends Record<string, unknown>>(
  db: Knex,
  tenant: Tenant,
  items: BatchItemInput[],
  opts: {
    requestId: string | null;
    idempotency: IdempotencyInput | null;
    answer: (batch: BatchRow, counts: BatchCounts) => T;
  },
): Promise<BatchOutcome<T>> {
  return db.transaction(async (trx): Promise<BatchOutcome<T>> => {
    const replay = opts.idempotency ? await lockIdempotencyKey(trx, tenant, opts.idempotency) : null;
    if (replay) return { kind: 'replay', response: replay };
    const [b] = await trx('batches')
      .insert({
        companyId: tenant.companyId,
        livemode: tenant.livemode,
        total: items.length,
        requestId: opts.requestId,
      })
      .returning('id');
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      await trx('batch_items').insert(items.slice(i, i + INSERT_CHUNK).map((r) => ({ batchId: b.id, ...r })));
    }
    await enqueueOutbox(trx, 'batch.process', { batchId: b.id }, opts.requestId);
    const batch = (await getBatch(trx, b.id))!;
    const body = opts.answer(batch, await batchCounts(trx, b.id));
    if (opts.idempotency) await insertIdempotent(trx, tenant, opts.idempotency, { status: 202, body });
    return { kind: 'created', body };
  });
}

/** A batch of the tenant (undefined: none with that id in its company and mode). */
export async function findBatch(db: Knex, tenant: Tenant, id: number): Promise<BatchRow | undefined> {
  return db('batches').where({ id, companyId: tenant.companyId, livemode: tenant.livemode }).first();
}

export async function getBatch(db: Knex, id: number): Promise<BatchRow | undefined> {
  return db('batches').where({ id }).first();
}

/** How many of a batch's items are in each status. */
export async function batchCounts(db: Knex, id: number): Promise<BatchCounts> {
  const counts = await db('batch_items')
    .where({ batchId: id })
    .groupBy('status')
    .select('status')
    .count('* as n');
  const c: BatchCounts = { pending: 0, created: 0, replayed: 0, failed: 0 };
  for (const r of counts) c[r.status as keyof BatchCounts] = Number(r.n);
  return c;
}

/** A batch's items in request order, each with the invoice it made. */
export async function batchItems(db: Knex, id: number): Promise<BatchItemRow[]> {
  return db('batch_items as i')
    .leftJoin('invoices as v', 'v.id', 'i.invoice_id')
    .where('i.batch_id', id)
    .orderBy('i.position')
    .select(
      'i.position',
      'i.idempotency_key',
      'i.external_id',
      'i.status',
      'i.problem',
      'v.id as invoiceId',
      'v.status as invoiceStatus',
      'v.consecutivo',
      'v.clave',
    );
}

/** An item still pending, as the batch worker reads it. */
export interface PendingBatchItem {
  position: number;
  idempotencyKey: string | null;
  request: Record<string, unknown>;
}

/** The batch's items still pending, in position order, at most `limit`. */
export async function pendingBatchItems(
  db: Knex,
  batchId: number,
  limit: number,
): Promise<PendingBatchItem[]> {
  return (await db('batch_items')
    .where({ batchId, status: 'pending' })
    .orderBy('position')
    .limit(limit)
    .select('position', 'idempotency_key', 'request')) as PendingBatchItem[];
}

/** A batch still processing is completed (a second run finds it so). */
export async function completeBatch(db: Knex, id: number): Promise<void> {
  await db('batches')
    .where({ id, status: 'processing' })
    .update({ status: 'completed', completedAt: db.fn.now() });
}
