// The invoice flow's queues (one per step), as the API (Bull Board, callbacks, metrics) and the
// worker processes open them.
import { Queue, type ConnectionOptions } from 'bullmq';
import { QUEUES, type InvoiceStep } from './catalogue.ts';

export function createQueues(connection: ConnectionOptions, prefix: string): Record<InvoiceStep, Queue> {
  return Object.fromEntries(
    (Object.keys(QUEUES) as InvoiceStep[]).map((s) => [s, new Queue(QUEUES[s], { connection, prefix })]),
  ) as Record<InvoiceStep, Queue>;
}
