// A batch, its counts and (when asked) its items → the public `batch` object (schema BatchObject,
// api/schemas/batches.ts): each item's outcome, the invoice it made or the problem that refused it.
import type { Static } from 'typebox';
import type { BatchCounts, BatchItemRow, BatchRow } from '../../db/queries/batches.ts';
import { formatId } from '../../domain/ids.ts';
import type { BatchObject, ItemResult } from '../schemas/batches.ts';

export type BatchJson = Static<typeof BatchObject>;
type ItemJson = Static<typeof ItemResult>;

function itemObject(r: BatchItemRow): ItemJson {
  return {
    index: r.position,
    idempotency_key: r.idempotencyKey,
    external_id: r.externalId,
    status: r.status,
    invoice: r.invoiceId
      ? {
          id: formatId('invoice', r.invoiceId),
          status: r.invoiceStatus!,
          consecutivo: r.consecutivo,
          clave: r.clave,
        }
      : null,
    error: r.problem as ItemJson['error'],
  };
}

export function batchObject(b: BatchRow, counts: BatchCounts, items?: BatchItemRow[]): BatchJson {
  const base: BatchJson = {
    id: formatId('batch', b.id),
    object: 'batch',
    livemode: b.livemode,
    status: b.status,
    total: b.total,
    counts,
    created_at: new Date(b.createdAt).toISOString(),
    completed_at: b.completedAt ? new Date(b.completedAt).toISOString() : null,
  };
  return items ? { ...base, items: items.map(itemObject) } : base;
}
