// The flow of a chunk of invoices: sign → submit → accounting, then status polling until
// Hacienda answers every one. BullMQ runs children before parents, so the chain is nested from the
// last step outwards. Each step is one job over the whole chunk; a step that fails for good
// fails the chain, visibly. Which invoices a step still has to do is read from Postgres (their
// state columns), never from the job: a chunk retried or re-created redoes only what is left.
import type { FlowJob } from 'bullmq';
import { DEFAULT_JOB_OPTIONS } from '../job-options.ts';
import { chunkJobId, chunkName, JOB_NAMES, QUEUES, type ChunkJobData, type InvoiceStep } from './queues.ts';

/** The steps of an invoice's flow, in the order they run. */
export const FLOW_STEPS: readonly InvoiceStep[] = ['sign', 'submit', 'accounting', 'status'];

/** An invoice ready for a flow: what chunking needs to know about it. */
export interface FlowItem {
  invoiceId: number;
  companyId: number;
  livemode: boolean;
  /** The invoice's stored trace context (platform/tracing.ts), when it has one. */
  traceContext?: string | null;
  /**
   * The outbox row of a retry (POST /api/v1/invoices/{id}/retry): the invoice has been in a
   * chunk before, whose finished jobs keep their ids, so a retried invoice travels in a chunk of
   * retries whose name carries the row's id (`…r<id>`) and collides with no earlier chunk.
   */
  retryOf?: number;
}

export interface Chunk {
  name: string;
  invoiceIds: number[];
  /** The company of every invoice of the chunk (its queue shard follows from it). */
  companyId: number;
  livemode: boolean;
  /** Its place in its company's turn (jobs/fair-share.ts): the priority of every job of its flow. */
  priority?: number;
  /** The trace the chunk's jobs are spans of: its first invoice's that has one. */
  traceContext?: string | null;
}

/**
 * Whatever is ready, grouped by company and mode (one signer and one Hacienda account per chunk),
 * in order, cut into chunks of at most `size`. One ready invoice makes a chunk of one. Retried
 * invoices are chunked apart from the others (see `retryOf`).
 */
export function makeChunks(items: readonly FlowItem[], size: number): Chunk[] {
  const groups = new Map<string, FlowItem[]>();
  for (const item of items) {
    const key = `${item.companyId}:${item.livemode}${item.retryOf ? ':retry' : ''}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  const chunks: Chunk[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.length; i += size) {
      const part = group.slice(i, i + size);
      const invoiceIds = [...new Set(part.map((p) => p.invoiceId))].sort((a, b) => a - b);
      const traceContext = part.find((p) => p.traceContext)?.traceContext;
      const retries = part.flatMap((p) => (p.retryOf ? [p.retryOf] : []));
      const suffix = retries.length ? `r${Math.min(...retries)}` : '';
      chunks.push({
        name: `${chunkName(invoiceIds)}${suffix}`,
        invoiceIds,
        companyId: part[0]!.companyId,
        livemode: part[0]!.livemode,
        ...(traceContext ? { traceContext } : {}),
      });
    }
  }
  return chunks;
}

/**
 * The flow of one chunk from step `from` on (the reconciler re-creates only what its invoices
 * still need: steps before `from` are done for good, since an invoice's state only moves forward),
 * under the queue prefix of the chunk's shard (platform/shards.ts) when one is given.
 */
export function chunkFlow(chunk: Chunk, from: InvoiceStep = 'sign', prefix?: string): FlowJob {
  const data: ChunkJobData = { v: 2, chunk: chunk.name, invoiceIds: chunk.invoiceIds };
  const job = (step: InvoiceStep, children?: FlowJob[]): FlowJob => ({
    name: JOB_NAMES[step],
    queueName: QUEUES[step],
    data,
    ...(prefix ? { prefix } : {}),
    opts: {
      ...DEFAULT_JOB_OPTIONS,
      jobId: chunkJobId(chunk.name, step),
      ...(chunk.priority ? { priority: chunk.priority } : {}),
      ...(step === 'status' ? {} : { failParentOnFailure: true }),
      ...(chunk.traceContext ? { telemetry: { metadata: chunk.traceContext } } : {}),
    },
    ...(children?.length ? { children } : {}),
  });
  const steps = FLOW_STEPS.slice(FLOW_STEPS.indexOf(from));
  let node: FlowJob | null = null;
  for (const step of steps) node = job(step, node ? [node] : undefined);
  return node!;
}
