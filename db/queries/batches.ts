// A batch of invoices as its worker reads it: the batch, its items still pending in order (a page
// at a time), and the batch marked completed once none is left.
import type { Knex } from 'knex';

export interface BatchRow {
  id: number;
  companyId: number;
  livemode: boolean;
  status: string;
  total: number;
}

export interface BatchItemRow {
  position: number;
  idempotencyKey: string | null;
  request: Record<string, unknown>;
}

export async function getBatch(db: Knex, id: number): Promise<BatchRow | undefined> {
  return (await db('batches').where({ id }).first()) as BatchRow | undefined;
}

/** The batch's items still pending, in position order, at most `limit`. */
export async function pendingBatchItems(db: Knex, batchId: number, limit: number): Promise<BatchItemRow[]> {
  return (await db('batch_items')
    .where({ batchId, status: 'pending' })
    .orderBy('position')
    .limit(limit)
    .select('position', 'idempotency_key', 'request')) as BatchItemRow[];
}

/** A batch still processing is completed (a second run finds it so). */
export async function completeBatch(db: Knex, id: number): Promise<void> {
  await db('batches')
    .where({ id, status: 'processing' })
    .update({ status: 'completed', completedAt: db.fn.now() });
}
