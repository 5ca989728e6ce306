// Queue shards. BullMQ keeps a queue's keys in one Redis Cluster slot by its hash-tagged prefix,
// and a flow's jobs must share a slot too (a flow is added in one atomic call), so every queue of
// a flow has the same prefix. One prefix for everything would put every queue on one master:
// the invoice flow's queues are therefore split into QUEUE_SHARDS shards, each under its own hash
// tag (`{factura}` → `{factura:q0}`, `{factura:q1}`, …), and a company's chunks always go to the
// same shard (company id modulo the shard count). Workers consume every shard. With one shard
// (the default) the queues keep the plain prefix, exactly as before shards existed. Which queues
// are sharded is the work module's choice (jobs/registry.ts); the others stay under the plain
// prefix (their own slot).
import { Queue, type ConnectionOptions, type FlowJob, type FlowProducer } from 'bullmq';
import { taggedPrefix } from './redis-keys.ts';

/** Each shard's prefix: the plain prefix for one shard, a hash tag per shard otherwise. */
export function shardPrefixes(queuePrefix: string, shards: number): string[] {
  if (shards <= 1) return [queuePrefix];
  return Array.from({ length: shards }, (_, i) => taggedPrefix(queuePrefix, `q${i}`));
}

/** The shard that carries a company's flows. */
export function shardOf(companyId: number, shards: number): number {
  return shards <= 1 ? 0 : companyId % shards;
}

/** One queue per name under one prefix, keyed as the names are. */
export function openQueues<K extends string>(
  connection: ConnectionOptions,
  prefix: string,
  names: Record<K, string>,
): Record<K, Queue> {
  return Object.fromEntries(
    (Object.keys(names) as K[]).map((k) => [k, new Queue(names[k], { connection, prefix })]),
  ) as Record<K, Queue>;
}

export interface QueueShards<K extends string = string> {
  prefixes: string[];
  /** The sharded queues of each shard, in shard order. */
  shards: Record<K, Queue>[];
  prefixOf(companyId: number): string;
  of(companyId: number): Record<K, Queue>;
  /** The shard whose prefix this is (a job's `prefix`); shard 0 for an unknown one. */
  byPrefix(prefix: string): Record<K, Queue>;
  /** Every queue of every shard. */
  all(): Queue[];
  close(): Promise<void>;
}

export function openQueueShards<K extends string>(
  connection: ConnectionOptions,
  queuePrefix: string,
  count: number,
  names: Record<K, string>,
): QueueShards<K> {
  const prefixes = shardPrefixes(queuePrefix, count);
  const shards = prefixes.map((p) => openQueues(connection, p, names));
  const index = new Map(prefixes.map((p, i) => [p, i]));
  return {
    prefixes,
    shards,
    prefixOf: (companyId) => prefixes[shardOf(companyId, prefixes.length)]!,
    of: (companyId) => shards[shardOf(companyId, prefixes.length)]!,
    byPrefix: (prefix) => shards[index.get(prefix) ?? 0]!,
    all: () => shards.flatMap((s) => Object.values<Queue>(s)),
    async close() {
      await Promise.all(shards.flatMap((s) => Object.values<Queue>(s).map((q) => q.close())));
    },
  };
}

/**
 * Adds flows shard by shard: one atomic addBulk per prefix (on a Cluster an atomic call must stay
 * in one slot). Each flow comes with the company whose shard carries it.
 */
export async function addShardedFlows(
  flows: FlowProducer,
  prefixOf: (companyId: number) => string,
  items: { companyId: number; flow: (prefix: string) => FlowJob }[],
): Promise<void> {
  const byPrefix = new Map<string, FlowJob[]>();
  for (const item of items) {
    const prefix = prefixOf(item.companyId);
    const list = byPrefix.get(prefix) ?? [];
    list.push(item.flow(prefix));
    byPrefix.set(prefix, list);
  }
  await Promise.all([...byPrefix.values()].map((list) => flows.addBulk(list)));
}
