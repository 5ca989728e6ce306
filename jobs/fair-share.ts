// The workers' capacity shared between companies. BullMQ takes a queue's jobs in order of their
// priority (lowest first; first come first within one), so every chunk's jobs carry a place in
// its company's turn, as in start-time fair queueing: a company's next chunk comes after the later
// of (a) its own last chunk still waiting to be signed and (b) the place the sign queue has
// reached (the lowest priority waiting in it), by as many places as it has invoices. Places count
// invoices, not chunks: a chunk of 50 of a company with a backlog takes 50 places, a single invoice
// of another company one, so the single invoice does not wait behind the backlog but behind at
// most one chunk of each other company; one company's chunks never overtake each other. Once a
// company has nothing waiting its places start again from where the queue is, and once the queue
// is empty from the start. The places are written on the invoices (`flow_priority`) with the
// chunk and are the same for every step of the flow, so submission, booking and status polling
// follow the same turns. Batches and webhook deliveries take places the same way, counted from
// what their company already has waiting. A queue never empty for about two million invoices
// reaches BullMQ's highest priority: from there on places are first come first until it empties.
import type { Queue } from 'bullmq';
import type { Knex } from 'knex';
import { waitingFlowPriorities } from '../db/queries/invoice-flow.ts';

/** What a place is given to: a chunk of a company's invoices (jobs/invoice-flow/flow.ts). */
interface Placed {
  companyId: number;
  livemode: boolean;
  invoiceIds: readonly number[];
}

/** BullMQ's highest priority (2^21 − 1): places beyond it share it, first come first. */
export const MAX_PRIORITY = 2_097_151;

/**
 * The chunks with their places, in their order. `reached(companyId)` is the lowest priority waiting
 * in the sign queue of the company's shard (0 when none waits), asked once per shard
 * (`shardOf(companyId)`, its queue prefix). `known`: the places the chunks' companies have reached
 * among their chunks still waiting to be signed, when the caller read them in its transaction
 * (waitingFlowPriorities' answer); otherwise they are read here.
 */
export async function withFairPlaces<C extends Placed>(
  trx: Knex | Knex.Transaction,
  chunks: C[],
  reached: (companyId: number) => Promise<number>,
  shardOf: (companyId: number) => string = () => '',
  known?: Map<string, number>,
): Promise<(C & { priority: number })[]> {
  if (!chunks.length) return [];
  const key = (c: { companyId: number; livemode: boolean }) => `${c.companyId}:${c.livemode}`;
  const pairs = [...new Map(chunks.map((c) => [key(c), c])).values()];
  const waiting =
    known ??
    (await waitingFlowPriorities(
      trx,
      pairs.map((c) => ({ companyId: c.companyId, livemode: c.livemode })),
    ));
  const reachedBy = new Map<string, Promise<number>>();
  const last = new Map<string, number>();
  const placed: (C & { priority: number })[] = [];
  for (const c of chunks) {
    let before = last.get(key(c));
    if (before === undefined) {
      const shard = shardOf(c.companyId);
      if (!reachedBy.has(shard))
        reachedBy.set(
          shard,
          reached(c.companyId).catch(() => 0),
        );
      before = Math.max(waiting.get(key(c)) ?? 0, await reachedBy.get(shard)!);
    }
    const priority = Math.min(MAX_PRIORITY, before + c.invoiceIds.length);
    last.set(key(c), priority);
    placed.push({ ...c, priority });
  }
  return placed;
}

/** The place a queue has reached: the priority of the first job waiting in it (0: none). */
export async function reachedPlace(queue: Queue): Promise<number> {
  const [head] = await queue.getPrioritized(0, 0);
  return head?.priority ?? 0;
}

/**
 * The place of a job whose company already has `ahead` jobs waiting in a queue that has reached
 * `reached` (batches, webhook deliveries: their order within a company is not promised, so the
 * count of what waits is enough; the place still grows with the company's backlog, so a company
 * with one job waiting goes before the rest of a backlog).
 */
export function placeAfter(reached: number, ahead: number): number {
  return Math.min(MAX_PRIORITY, reached + ahead + 1);
}
