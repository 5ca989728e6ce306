// What the reconciler walks: work still in flight according to Postgres, a page at a time in id
// order (so a walk can stop anywhere and go on from the last id). Invoices `pendiente` or
// `enviada` without a permanent processing error (those wait for a person; a failed booking stops
// only the booking, so its invoice is still carried to Hacienda's verdict); batches still
// `processing`. With `staleMs`, only rows that have not moved for that long; without it (after
// Redis lost its data) every one. Both use partial indexes on the id.
import type { Knex } from 'knex';
import { FLOW_STOPPED_SQL } from './processing-error.ts';

export interface InFlightInvoice {
  id: number;
  requestId: string | null;
  companyId: number;
  livemode: boolean;
  status: 'pendiente' | 'enviada';
  signed: boolean;
  accounted: boolean;
  /** The chunk whose flow carries it (null: no flow yet, or one added before chunks). */
  flowChunk: string | null;
}

export async function inFlightInvoicesPage(
  db: Knex,
  afterId: number,
  limit: number,
  staleMs: number | null,
): Promise<InFlightInvoice[]> {
  const q = db('invoices')
    // Literal, so the planner matches invoices_in_flight_id_idx's predicate.
    .whereRaw(`status in ('pendiente', 'enviada')`)
    .where('id', '>', afterId)
    .whereRaw(`not (${FLOW_STOPPED_SQL})`);
  if (staleMs !== null)
    q.where('updated_at', '<', db.raw(`now() - make_interval(secs => ?)`, [staleMs / 1000]));
  const rows = (await q
    .orderBy('id')
    .limit(limit)
    .select(
      'id',
      'request_id',
      'company_id',
      'livemode',
      'status',
      'signed_at',
      'accounted_at',
      'flow_chunk',
    )) as {
    id: string | number;
    requestId: string | null;
    companyId: string | number;
    livemode: boolean;
    flowChunk: string | null;
    status: 'pendiente' | 'enviada';
    signedAt: Date | null;
    accountedAt: Date | null;
  }[];
  return rows.map((r) => ({
    id: Number(r.id),
    requestId: r.requestId,
    companyId: Number(r.companyId),
    livemode: r.livemode,
    flowChunk: r.flowChunk,
    status: r.status,
    signed: r.signedAt !== null,
    accounted: r.accountedAt !== null,
  }));
}

export async function processingBatchesPage(
  db: Knex,
  afterId: number,
  limit: number,
  staleMs: number | null,
): Promise<{ id: number }[]> {
  const q = db('batches').whereRaw(`status = 'processing'`).where('id', '>', afterId);
  if (staleMs !== null)
    q.where('created_at', '<', db.raw(`now() - make_interval(secs => ?)`, [staleMs / 1000]));
  const rows = (await q.orderBy('id').limit(limit).select('id')) as { id: string | number }[];
  return rows.map((r) => ({ id: Number(r.id) }));
}

/** The two int4 keys of the reconciler's advisory lock: "fact"(ura) and the reconciler's number. */
export const RECONCILER_LOCK: readonly [number, number] = [0x66616374, 1];

/**
 * Runs `pass` holding the reconciler's advisory lock (transaction-scoped: Postgres drops it by
 * itself when its holder's connection dies); null when another process holds it.
 */
export async function withReconcilerLock<T>(db: Knex, pass: () => Promise<T>): Promise<T | null> {
  return db.transaction(async (trx) => {
    const lock = await trx.raw('select pg_try_advisory_xact_lock(?, ?) as ok', [...RECONCILER_LOCK]);
    if (!(lock.rows[0] as { ok: boolean }).ok) return null;
    return pass();
  });
}
