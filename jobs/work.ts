// What one kind of background work is to the rest of the service. Each work module (a folder of
// jobs/, listed in jobs/registry.ts) names its queues, the outbox kind it consumes and the events
// it emits, and starts, in a worker process, its Workers, the relay's dispatch of its outbox rows
// and the work it gives the reconciler to track. The worker runtime, the outbox relay, the
// reconciler, Bull Board and /metrics loop over the registry: a new kind of work is one folder and
// one line there.
import type { ConnectionOptions, Queue, Worker } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { OutboxKind, OutboxRow } from '../db/queries/outbox.ts';
import type { JobContext } from './context.ts';

/** A queue of a work module; a sharded one exists once per shard (platform/shards.ts). */
export interface QueueInfo {
  name: string;
  sharded?: boolean;
}

/** What a work module is handed when a worker process starts it. */
export interface WorkDeps {
  config: Config;
  db: Knex;
  connection: ConnectionOptions;
  log: Logger;
  /** What every handler gets (jobs/context.ts). */
  ctx: JobContext;
  /** The lock of active jobs (a module may ask for longer); a killed worker's jobs return after it. */
  lockDurationMs: number;
  /** Jobs at once per process, by queue name; each module has its defaults. */
  concurrency?: Partial<Record<string, number>>;
}

/** A job that carries a row's work, looked up by its deterministic id. */
export interface JobRef {
  queue: Queue;
  id: string;
}

/**
 * Work the reconciler tracks: a page of what Postgres says is in flight, the jobs that carry one
 * row's work (computed from the row, as every job id is deterministic), and how to add lost work
 * again in bulk.
 */
export interface TrackedWork<Row extends { id: number } = { id: number }> {
  name: string;
  /** Rows in flight after `afterId`, ascending; `staleMs` null means every one, however recent. */
  page(afterId: number, limit: number, staleMs: number | null): Promise<Row[]>;
  jobsOf(row: Row): JobRef[];
  /** Adds the work of these rows again (deterministic job ids: a job that exists is not added twice). */
  recreate(rows: Row[]): Promise<void>;
}

/**
 * How the relay turns a kind's claimed outbox rows into jobs, inside its transaction. (Written as
 * a method's type, so each kind's dispatch stands where any kind's is expected: the relay hands
 * each only rows of its own kind.)
 */
export type Dispatch<K extends OutboxKind = OutboxKind> = {
  dispatch(trx: Knex.Transaction, rows: OutboxRow<K>[]): Promise<void>;
}['dispatch'];

/** Each outbox kind's dispatch (the relay's table; a kind without one: its rows just leave). */
export type Dispatches = { [K in OutboxKind]?: Dispatch<K> };

/** A work module running in a worker process. */
export interface RunningWork<K extends OutboxKind = OutboxKind> {
  /** Its Workers, on every queue (and shard) it consumes. */
  workers: Worker[];
  dispatch(trx: Knex.Transaction, rows: OutboxRow<K>[]): Promise<void>;
  /** What the reconciler walks for it, in pass order. */
  tracked: TrackedWork[];
  close(): Promise<void>;
}

export interface WorkModule<K extends OutboxKind = OutboxKind, R extends RunningWork<K> = RunningWork<K>> {
  name: string;
  queues: readonly QueueInfo[];
  outboxKind: K;
  /** The events its jobs record (for the registry's table). */
  emits: readonly string[];
  /**
   * Its Workers stop taking jobs while the reconciler sweeps after Redis lost its data, so the
   * sweep that every lost job waits on has the machine (the invoice flow and batches).
   */
  holdsForSweep: boolean;
  start(deps: WorkDeps): Promise<R>;
}
