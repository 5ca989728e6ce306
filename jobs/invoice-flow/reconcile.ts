// The work the reconciler tracks, each kind as: a page of what Postgres says is in flight, the
// jobs that carry one row's work (computed from its id, as every job id is deterministic), and
// how to add lost work again in bulk. Batches come first in a pass: a lost batch holds up to
// 1,000 invoices that do not exist yet, so it must not wait behind a long invoice walk.
import type { FlowProducer, Queue } from 'bullmq';
import type { Knex } from 'knex';
import {
  inFlightInvoicesPage,
  processingBatchesPage,
  type InFlightInvoice,
} from '../db/queries/in-flight.ts';
import { assignFlowChunks } from '../db/queries/invoice-flow.ts';
import { batchJob, chunkJobId, invoiceJobId, type InvoiceStep } from '../jobs/catalogue.ts';
import { batchesAhead } from '../db/queries/queue-places.ts';
import { placeAfter, reachedPlace, withFairPlaces } from '../jobs/fair-share.ts';
import { chunkFlow, FLOW_STEPS, makeChunks } from '../jobs/flow.ts';
import { addShardedFlows, type QueueShards } from '../jobs/shards.ts';
import type { JobRef } from './reconcile-detect.ts';

export interface TrackedWork<Row extends { id: number }> {
  name: string;
  /** Rows in flight after `afterId`, ascending; `staleMs` null means every one, however recent. */
  page(afterId: number, limit: number, staleMs: number | null): Promise<Row[]>;
  jobsOf(row: Row): JobRef[];
  /** Adds the work of these rows again (deterministic job ids: a job that exists is not added twice). */
  recreate(rows: Row[]): Promise<void>;
}

/**
 * The first step an in-flight invoice still needs, from what Postgres says (a snapshot is safe:
 * the state only moves forward, so a step it shows done stays done).
 */
export function remainingFrom(row: InFlightInvoice): InvoiceStep {
  if (row.status === 'enviada') return row.accounted ? 'status' : 'accounting';
  return row.signed ? 'submit' : 'sign';
}

export function batchWork(db: Knex, batches: Queue): TrackedWork<{ id: number }> {
  return {
    name: 'batches',
    page: (afterId, limit, staleMs) => processingBatchesPage(db, afterId, limit, staleMs),
    jobsOf: (row) => [{ queue: batches, id: batchJob(row.id).opts.jobId }],
    async recreate(rows) {
      const ids = rows.map((r) => r.id);
      const [ahead, reached] = await Promise.all([batchesAhead(db, ids), reachedPlace(batches)]);
      await batches.addBulk(ids.map((id) => batchJob(id, placeAfter(reached, ahead.get(id) ?? 0))));
    },
  };
}

/**
 * Invoices travel in chunks (flow.ts): an invoice's work is carried by the four step jobs of the
 * chunk written on it (`flow_chunk`; flows added before chunks used the invoice's own id). Lost
 * invoices are gathered into new chunks by company, mode and the first step still needed (fewer
 * jobs to add, none that would only find its work done), written on the invoices, then added.
 */
export function invoiceWork(
  db: Knex,
  flows: FlowProducer,
  /** The queues of each company's shard (jobs/shards.ts): where its jobs are looked for and added. */
  shards: Pick<QueueShards, 'of' | 'prefixOf'>,
  chunkSize: number,
): TrackedWork<InFlightInvoice> {
  return {
    name: 'invoices',
    page: (afterId, limit, staleMs) => inFlightInvoicesPage(db, afterId, limit, staleMs),
    jobsOf: (row) =>
      FLOW_STEPS.map((step) => ({
        queue: shards.of(row.companyId)[step],
        id: row.flowChunk ? chunkJobId(row.flowChunk, step) : invoiceJobId(row.id, step),
      })),
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
