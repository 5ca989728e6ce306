// Every kind of background work, in the order the relay dispatches and the reconciler walks them.
// Batches come first in a reconciler pass: a lost batch holds up to 1,000 invoices that do not
// exist yet, so it must not wait behind a long invoice walk. The worker runtime starts each,
// the relay hands each its outbox kind, the reconciler walks each one's tracked work, and the
// API shows each queue in Bull Board and /metrics (see README.md for the table).
import { Queue, type ConnectionOptions, type Worker } from 'bullmq';
import { shardPrefixes } from '../platform/shards.ts';
import { batchesWork } from './batches/work.ts';
import { emailsWork } from './emails/work.ts';
import { invoiceFlowWork } from './invoice-flow/work.ts';
import { receivedAnswersWork } from './received-answers/work.ts';
import { webhooksWork } from './webhooks/work.ts';
import { setCompletedRetention } from './job-options.ts';
import type { Dispatches, TrackedWork, WorkDeps } from './work.ts';

export const WORK = {
  batches: batchesWork,
  invoiceFlow: invoiceFlowWork,
  webhooks: webhooksWork,
  emails: emailsWork,
  receivedAnswers: receivedAnswersWork,
} as const;

export type WorkName = keyof typeof WORK;

/** Every queue of every kind of work, and whether it is sharded. */
export function registryQueues(): { name: string; sharded: boolean }[] {
  return Object.values(WORK).flatMap((w) =>
    w.queues.map((q) => ({ name: q.name, sharded: q.sharded === true })),
  );
}

/** Every queue of the registry, on every shard (a sharded queue once per shard), for Bull Board. */
export function openRegistryQueues(
  connection: ConnectionOptions,
  queuePrefix: string,
  shardCount: number,
): Queue[] {
  return registryQueues().flatMap((q) =>
    (q.sharded ? shardPrefixes(queuePrefix, shardCount) : [queuePrefix]).map(
      (prefix) => new Queue(q.name, { connection, prefix }),
    ),
  );
}

/** Every work module running in one worker process, by its registry name. */
export type RunningRegistry = { [K in WorkName]: Awaited<ReturnType<(typeof WORK)[K]['start']>> };

/** Starts every work module, in registry order. */
export async function startAllWork(deps: WorkDeps): Promise<RunningRegistry> {
  // Every job added from here on keeps its completed record as configured (job-options.ts).
  setCompletedRetention(deps.config.queueKeepCompleted);
  const running: Partial<Record<WorkName, unknown>> = {};
  for (const name of Object.keys(WORK) as WorkName[]) running[name] = await WORK[name].start(deps);
  return running as RunningRegistry;
}

/** The relay's dispatch of each outbox kind: the running module that consumes it. */
export function dispatchByKind(running: RunningRegistry): Dispatches {
  return Object.fromEntries(
    (Object.keys(WORK) as WorkName[]).map((name) => [WORK[name].outboxKind, running[name].dispatch]),
  );
}

/** What the reconciler walks, in registry order, and the Workers that hold back during a sweep. */
export function reconcilerWork(running: RunningRegistry): { tracked: TrackedWork[]; holding: Worker[] } {
  const names = Object.keys(WORK) as WorkName[];
  return {
    tracked: names.flatMap((name) => running[name].tracked),
    holding: names.flatMap((name) => (WORK[name].holdsForSweep ? running[name].workers : [])),
  };
}
