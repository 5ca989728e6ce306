// The relay's dispatch of `invoice.flow` outbox rows: whatever is ready, in chunks by company and
// mode (flow.ts), each with its place in its company's turn (jobs/fair-share.ts). Each invoice's
// chunk is written on it in the relay's transaction, so the reconciler and Hacienda's callback
// find the jobs that carry it; the flows go to the shard of their company (platform/shards.ts).
import type { FlowProducer } from 'bullmq';
import type { Knex } from 'knex';
import { assignFlowChunks, flowInvoices } from '../../db/queries/invoice-flow.ts';
import { outboxItems, type OutboxRow } from '../../db/queries/outbox.ts';
import { addShardedFlows } from '../../platform/shards.ts';
import { withFairPlaces } from '../fair-share.ts';
import type { Dispatch } from '../work.ts';
import { chunkFlow, makeChunks, type FlowItem } from './flow.ts';

export interface FlowDispatchOptions {
  flows: FlowProducer;
  /** Most invoices in one flow (WORKER_CHUNK_SIZE). */
  chunkSize?: number;
  /** The queue prefix of a company's shard; absent: the flow producer's own. */
  prefixOf?: (companyId: number) => string;
  /** The place the sign queue of a company's shard has reached (jobs/fair-share.ts); absent: 0. */
  reached?: (companyId: number) => Promise<number>;
}

/**
 * The invoices the rows start, with what chunking needs to know of each, and the places their
 * companies have reached among their chunks still waiting (one statement).
 */
async function flowItems(
  trx: Knex.Transaction,
  rows: OutboxRow<'invoice.flow'>[],
): Promise<{ items: FlowItem[]; waiting: Map<string, number> }> {
  const { invoices, waiting } = await flowInvoices(
    trx,
    rows.flatMap((r) => outboxItems(r.payload, 'invoiceId')),
  );
  const items = rows.flatMap((r) =>
    outboxItems(r.payload, 'invoiceId').flatMap((id) => {
      const inv = invoices.get(id);
      if (!inv) return [];
      const item: FlowItem = {
        invoiceId: id,
        companyId: inv.companyId,
        livemode: inv.livemode,
        traceContext: inv.traceContext,
        ...(r.payload.retry ? { retryOf: r.id } : {}),
      };
      return [item];
    }),
  );
  return { items, waiting };
}

export function flowDispatch(o: FlowDispatchOptions): Dispatch<'invoice.flow'> {
  return async (trx, rows) => {
    const { items, waiting } = await flowItems(trx, rows);
    const made = makeChunks(items, o.chunkSize ?? 50);
    const chunks = await withFairPlaces(trx, made, o.reached ?? (async () => 0), o.prefixOf, waiting);
    if (!chunks.length) return;
    await assignFlowChunks(trx, chunks);
    if (o.prefixOf)
      await addShardedFlows(
        o.flows,
        o.prefixOf,
        chunks.map((c) => ({ companyId: c.companyId, flow: (p) => chunkFlow(c, 'sign', p) })),
      );
    else await o.flows.addBulk(chunks.map((c) => chunkFlow(c)));
  };
}
