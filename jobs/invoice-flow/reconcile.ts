// The reconciler's hook of the invoice flow: invoices `pendiente` or `enviada` that no live job
// carries (Redis lost it, or its jobs failed for a transient reason) get a flow again, from the
// first step each still needs.
import type { FlowProducer, Queue } from 'bullmq';
import type { Knex } from 'knex';
import { inFlightInvoicesPage, type InFlightInvoice } from '../../db/queries/in-flight.ts';
import { assignFlowChunks } from '../../db/queries/invoice-flow.ts';
import { addShardedFlows } from '../../platform/shards.ts';
import { reachedPlace, withFairPlaces } from '../fair-share.ts';
import type { TrackedWork } from '../work.ts';
import { chunkFlow, FLOW_STEPS, makeChunks } from './flow.ts';
import { chunkJobId, type InvoiceStep } from './queues.ts';

/**
 * The first step an in-flight invoice still needs, from what Postgres says (a snapshot is safe:
 * the state only moves forward, so a step it shows done stays done).
 */
export function remainingFrom(row: InFlightInvoice): InvoiceStep {
  if (row.status === 'enviada') return row.accounted ? 'status' : 'accounting';
  return row.signed ? 'submit' : 'sign';
}

/**
 * Invoices travel in chunks (flow.ts): an invoice's work is carried by the four step jobs of the
 * chunk written on it (`flow_chunk`). Lost
 * invoices are gathered into new chunks by company, mode and the first step still needed (fewer
 * jobs to add, none that would only find its work done), written on the invoices, then added.
 */
export function invoiceWork(
  db: Knex,
  flows: FlowProducer,
  /** The queues of each company's shard (platform/shards.ts): where its jobs are looked for and added. */
  shards: { of(companyId: number): Record<InvoiceStep, Queue>; prefixOf(companyId: number): string },
  chunkSize: number,
): TrackedWork<InFlightInvoice> {
  return {
    name: 'invoices',
    page: (afterId, limit, staleMs) => inFlightInvoicesPage(db, afterId, limit, staleMs),
    jobsOf: (row) =>
      // No chunk written on it yet: no job carries it.
      row.flowChunk
        ? FLOW_STEPS.map((step) => ({
            queue: shards.of(row.companyId)[step],
            id: chunkJobId(row.flowChunk!, step),
          }))
        : [],
    async recreate(rows) {
      const byStep = new Map<InvoiceStep, InFlightInvoice[]>();
      for (const r of rows) {
        const step = remainingFrom(r);
        byStep.set(step, [...(byStep.get(step) ?? []), r]);
      }
      // Each lost chunk takes its place in its company's turn, as the relay's chunks do.
      const reached = (companyId: number) => reachedPlace(shards.of(companyId).sign);
      const added = await Promise.all(
        [...byStep].map(async ([step, group]) => ({
          step,
          chunks: await withFairPlaces(
            db,
            makeChunks(
              group.map((r) => ({ invoiceId: r.id, companyId: r.companyId, livemode: r.livemode })),
              chunkSize,
            ),
            reached,
            shards.prefixOf,
          ),
        })),
      );
      await assignFlowChunks(
        db,
        added.flatMap((a) => a.chunks),
      );
      await addShardedFlows(
        flows,
        shards.prefixOf,
        added.flatMap((a) =>
          a.chunks.map((c) => ({ companyId: c.companyId, flow: (p: string) => chunkFlow(c, a.step, p) })),
        ),
      );
    },
  };
}
