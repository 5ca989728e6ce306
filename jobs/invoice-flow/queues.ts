// The invoice flow's queues (one per step), its job names and payload, and the deterministic job
// ids of its chunks, as the API (callbacks) and the worker processes use them. The queues are
// sharded (platform/shards.ts): a company's chunks always go to the same shard.
import type { ConnectionOptions, Queue } from 'bullmq';
import { openQueues, openQueueShards, type QueueShards } from '../../platform/shards.ts';

export const QUEUES = {
  sign: 'invoice-sign',
  submit: 'invoice-submit',
  accounting: 'invoice-accounting',
  status: 'invoice-status',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const JOB_NAMES = {
  sign: 'invoice.sign',
  submit: 'invoice.submit',
  accounting: 'invoice.accounting',
  status: 'invoice.status',
} as const;

export type InvoiceStep = keyof typeof QUEUES;

/**
 * The payload of every invoice step: a chunk of invoices of one company and mode, named by a
 * deterministic id (`chunkName`), so the same chunk added twice starts nothing twice.
 */
export interface ChunkJobData {
  v: 2;
  chunk: string;
  invoiceIds: number[];
  /** Status polls made so far (status job only). */
  polls?: number;
}

/** A chunk's name from its invoices: the same invoices always make the same name. */
export function chunkName(invoiceIds: readonly number[]): string {
  const sorted = [...invoiceIds].sort((a, b) => a - b);
  let h = 0x811c9dc5; // FNV-1a over the ids: short, stable, no collision that matters at this size
  for (const id of sorted) {
    for (const ch of `${id},`) {
      h ^= ch.charCodeAt(0);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return `${sorted[0]}n${sorted.length}h${h.toString(36)}`;
}

export function chunkJobId(chunk: string, step: InvoiceStep): string {
  return `chunk-${chunk}-${step}`;
}

/** The flow's queues under one prefix. */
export function createQueues(connection: ConnectionOptions, prefix: string): Record<InvoiceStep, Queue> {
  return openQueues(connection, prefix, QUEUES);
}

/** The flow's queues of every shard (QUEUE_SHARDS). */
export function openFlowShards(
  connection: ConnectionOptions,
  queuePrefix: string,
  count: number,
): QueueShards<InvoiceStep> {
  return openQueueShards(connection, queuePrefix, count, QUEUES);
}
