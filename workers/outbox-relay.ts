// The outbox relay: moves committed outbox rows to BullMQ. Rows are claimed with
// FOR UPDATE SKIP LOCKED (several workers never take the same row), handed to the work module
// that consumes their kind (jobs/registry.ts: each turns its rows into jobs in bulk), and deleted
// in the same transaction; if Redis fails the transaction rolls back and the rows wait for the
// next pass. Deterministic job ids make a repeated enqueue start nothing twice. It wakes on
// NOTIFY outbox (sent at commit by the API) and polls as a fallback.
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import { claimOutbox, deleteOutboxRows, type OutboxKind, type OutboxRow } from '../db/queries/outbox.ts';
import type { Dispatch, Dispatches } from '../jobs/work.ts';

export interface RelayOptions {
  db: Knex;
  config: { databaseUrl: string };
  log: Logger;
  /** Each outbox kind's dispatch, in the order they run; rows of a kind without one just leave. */
  dispatch: Dispatches;
  batchSize?: number;
  pollMs?: number;
}

export interface Relay {
  /** One pass; returns how many rows it moved. */
  runOnce(): Promise<number>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** One pass: claims a page of rows, dispatches each kind's, deletes them; how many it moved. */
function relayPass(o: RelayOptions, batchSize: number): () => Promise<number> {
  const kinds = Object.entries(o.dispatch) as [OutboxKind, Dispatch][];
  return () =>
    o.db.transaction(async (trx) => {
      const rows = await claimOutbox(trx, batchSize);
      if (rows.length === 0) return 0;
      for (const [kind, dispatch] of kinds) {
        const mine = rows.filter((r): r is OutboxRow => r.kind === kind);
        if (mine.length) await dispatch(trx, mine);
      }
      await deleteOutboxRows(
        trx,
        rows.map((r) => r.id),
      );
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

export function createRelay(options: RelayOptions): Relay {
  const batchSize = options.batchSize ?? 500;
  const pollMs = options.pollMs ?? 1000;
  const runOnce = relayPass(options, batchSize);
  let running = false;
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  const listener = outboxListener(options, () => wake?.());

  async function main(): Promise<void> {
    let failures = 0;
    while (running) {
      let moved = 0;
      try {
        moved = await runOnce();
        failures = 0;
      } catch (err) {
        failures += 1;
        options.log.warn({ err, failures }, 'outbox relay pass failed; will retry');
      }
      if (!listener.up && running) await listener.listen();
      if (moved >= batchSize) continue;
      const delay = failures ? Math.min(10_000, 250 * 2 ** failures) : pollMs;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = null;
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
      wake?.();
      await loop;
      await listener.end();
    },
  };
}
