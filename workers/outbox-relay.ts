// The outbox relay: moves committed outbox rows to BullMQ. Rows are claimed with
// FOR UPDATE SKIP LOCKED (several workers never take the same row) and deleted by the same
// statement, then handed to the work module that consumes their kind (jobs/registry.ts: each
// turns its rows into jobs in bulk) in the same transaction; if Redis fails the transaction rolls
// back and the rows wait for the next pass. Deterministic job ids make a repeated enqueue start nothing twice. It wakes on
// NOTIFY outbox (sent at commit by the API) and polls as a fallback: every `pollMs` while the
// LISTEN connection is down, every `listeningPollMs` while it is up (a notification missed all the
// same waits at most that long). Under a steady light load, a notification that comes less than
// `gatherMs` after a pass that moved rows waits out the rest of that time, so invoices arriving
// close together share a chunk (one flow, one job per step) instead of a chunk each; one arriving
// after a quiet moment goes at once, and a full page goes on without waiting.
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import { takeOutbox, type OutboxKind, type OutboxRow } from '../db/queries/outbox.ts';
import type { Dispatch, Dispatches } from '../jobs/work.ts';

export interface RelayOptions {
  db: Knex;
  config: { databaseUrl: string };
  log: Logger;
  /** Each outbox kind's dispatch, in the order they run; rows of a kind without one just leave. */
  dispatch: Dispatches;
  batchSize?: number;
  /** Fallback poll while the LISTEN connection is down. */
  pollMs?: number;
  /** Fallback poll while it is up (a notification lost on the way). */
  listeningPollMs?: number;
  /** Least time from a pass that moved rows to the next one started by a notification. */
  gatherMs?: number;
}

export interface Relay {
  /** One pass; returns how many rows it moved. */
  runOnce(): Promise<number>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One pass: takes a page of rows (claimed and deleted in one statement) and dispatches each
 * kind's, in one transaction; how many it moved.
 */
function relayPass(o: RelayOptions, batchSize: number): () => Promise<number> {
  const kinds = Object.entries(o.dispatch) as [OutboxKind, Dispatch][];
  return () =>
    o.db.transaction(async (trx) => {
      const rows = await takeOutbox(trx, batchSize);
      for (const [kind, dispatch] of kinds) {
        const mine = rows.filter((r): r is OutboxRow => r.kind === kind);
        if (mine.length) await dispatch(trx, mine);
      }
      return rows.length;
    });
}

/** The LISTEN connection that wakes the relay at every commit that wrote outbox rows. */
function outboxListener(o: RelayOptions, onNotify: () => void) {
  let client: pg.Client | null = null;
  return {
    get up() {
      return client !== null;
    },
    async listen(): Promise<void> {
      try {
        client = new pg.Client({ connectionString: o.config.databaseUrl, application_name: 'factura-relay' });
        client.on('notification', onNotify);
        client.on('error', (err) => {
          o.log.warn({ err }, 'outbox listener lost; polling until it reconnects');
          client = null;
          // A pass now, and listening again right after it, rather than at the end of a long wait.
          onNotify();
        });
        await client.connect();
        await client.query('listen outbox');
      } catch (err) {
        o.log.warn({ err }, 'outbox listener unavailable; polling');
        client = null;
      }
    },
    async end(): Promise<void> {
      await client?.end().catch(() => {});
      client = null;
    },
  };
}

/** A wait that a notification may cut short (`wake`) and stopping always does (`interrupt`). */
function pauses() {
  let wake: (() => void) | null = null;
  let interrupt: (() => void) | null = null;
  return {
    wake: () => wake?.(),
    interrupt: () => interrupt?.(),
    /** Resolves true when a notification ended it. */
    wait(ms: number, wakeable: boolean): Promise<boolean> {
      return new Promise<boolean>((resolve) => {
        const end = (woken: boolean) => {
          clearTimeout(t);
          wake = interrupt = null;
          resolve(woken);
        };
        const t = setTimeout(() => end(false), ms);
        interrupt = () => end(false);
        if (wakeable) wake = () => end(true);
      });
    },
  };
}

export function createRelay(options: RelayOptions): Relay {
  const batchSize = options.batchSize ?? 500;
  const pollMs = options.pollMs ?? 1000;
  const listeningPollMs = Math.max(pollMs, options.listeningPollMs ?? pollMs);
  const gatherMs = options.gatherMs ?? 0;
  const runOnce = relayPass(options, batchSize);
  let running = false;
  let loop: Promise<void> | null = null;
  const pause = pauses();
  // A notification that came during a pass may be for a row that pass did not see.
  let notified = false;
  const listener = outboxListener(options, () => {
    notified = true;
    pause.wake();
  });

  async function main(): Promise<void> {
    let failures = 0;
    let movedAt = -Infinity;
    while (running) {
      let moved = 0;
      notified = false;
      try {
        moved = await runOnce();
        failures = 0;
      } catch (err) {
        failures += 1;
        options.log.warn({ err, failures }, 'outbox relay pass failed; will retry');
      }
      if (moved > 0) movedAt = Date.now();
      if (!listener.up && running) await listener.listen();
      if (moved >= batchSize || !running) continue;
      const poll = listener.up ? listeningPollMs : pollMs;
      const delay = failures ? Math.min(10_000, 250 * 2 ** failures) : poll;
      const woken = (notified && !failures) || (await pause.wait(delay, true));
      const gather = movedAt + gatherMs - Date.now();
      if (woken && gather > 0 && running) await pause.wait(gather, false);
    }
  }

  return {
    runOnce,
    async start() {
      if (running) return;
      running = true;
      await listener.listen();
      loop = main();
    },
    async stop() {
      running = false;
      pause.interrupt();
      await loop;
      await listener.end();
    },
  };
}
