// The outbox relay: moves committed outbox rows to BullMQ. Rows are claimed with
// FOR UPDATE SKIP LOCKED (several workers never take the same row), enqueued in bulk, and
// deleted in the same transaction; if Redis fails the transaction rolls back and the
// rows wait for the next pass. Deterministic job ids make a repeated enqueue start nothing twice.
// It wakes on NOTIFY outbox (sent at commit by the API) and polls as a fallback.
import type { FlowProducer, Queue } from 'bullmq';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import { assignFlowChunks } from '../db/queries/invoice-flow.ts';
import { claimOutbox, deleteOutboxRows, flowInvoices, outboxItems } from '../db/queries/outbox.ts';
import { batchJob } from '../jobs/catalogue.ts';
import { batchesAhead } from '../db/queries/queue-places.ts';
import { placeAfter, reachedPlace, withFairPlaces } from '../jobs/fair-share.ts';
import { chunkFlow, makeChunks } from '../jobs/flow.ts';
import { addShardedFlows } from '../jobs/shards.ts';

export interface RelayOptions {
  db: Knex;
  databaseUrl: string;
  flows: FlowProducer;
  /** The queue prefix of a company's shard (jobs/shards.ts); absent: the flow producer's own. */
  prefixOf?: (companyId: number) => string;
  /**
   * The place the sign queue of a company's shard has reached (its lowest waiting priority,
   * jobs/fair-share.ts); absent: 0.
   */
  reached?: (companyId: number) => Promise<number>;
  log: Logger;
  batchSize?: number;
  /** Most invoices in one flow (WORKER_CHUNK_SIZE). */
  chunkSize?: number;
  pollMs?: number;
  /** The batches queue: `batch.process` rows become `batch-<id>` jobs. */
  batches?: Queue;
  /** Fan-out of events to webhook endpoints (added by the webhooks module). */
  dispatchEvents?: (trx: Knex.Transaction, eventIds: number[]) => Promise<void>;
  /** `email.send` rows become `invoice.email` jobs (added by the emails module). */
  dispatchEmails?: (emailIds: number[]) => Promise<void>;
  /** `received.answer` rows become `received_document.answer` jobs (workers/received-runtime.ts). */
  dispatchAnswers?: (receivedIds: number[]) => Promise<void>;
}

export interface Relay {
  /** One pass; returns how many rows it moved. */
  runOnce(): Promise<number>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createRelay(options: RelayOptions): Relay {
  const { db, flows, log } = options;
  const batchSize = options.batchSize ?? 500;
  const chunkSize = options.chunkSize ?? 50;
  const pollMs = options.pollMs ?? 1000;
  let running = false;
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  let listener: pg.Client | null = null;

  async function runOnce(): Promise<number> {
    return db.transaction(async (trx) => {
      const rows = await claimOutbox(trx, batchSize);
      if (rows.length === 0) return 0;
      // Whatever is ready, in chunks by company and mode, each with its place in its company's turn
      // (jobs/fair-share.ts): each invoice's chunk is written with the claim, so the reconciler and
      // Hacienda's callback find the jobs that carry it.
      const flowRows = rows.filter((r) => r.kind === 'invoice.flow');
      const invoices = await flowInvoices(
        trx,
        flowRows.flatMap((r) => outboxItems(r.payload, 'invoiceId')),
      );
      const made = makeChunks(
        flowRows.flatMap((r) =>
          outboxItems(r.payload, 'invoiceId').flatMap((id) => {
            const inv = invoices.get(id);
            if (!inv) return [];
            return [
              {
                invoiceId: id,
                companyId: inv.companyId,
                livemode: inv.livemode,
                traceContext: inv.traceContext,
                ...(r.payload.retry ? { retryOf: r.id } : {}),
              },
            ];
          }),
        ),
        chunkSize,
      );
      const chunks = await withFairPlaces(trx, made, options.reached ?? (async () => 0), options.prefixOf);
      if (chunks.length) {
        await assignFlowChunks(trx, chunks);
        if (options.prefixOf)
          await addShardedFlows(
            flows,
            options.prefixOf,
            chunks.map((c) => ({ companyId: c.companyId, flow: (p) => chunkFlow(c, 'sign', p) })),
          );
        else await flows.addBulk(chunks.map((c) => chunkFlow(c)));
      }
      const batchIds = rows
        .filter((r) => r.kind === 'batch.process' && r.payload.batchId)
        .map((r) => r.payload.batchId!);
      if (batchIds.length && options.batches) {
        // Each after the batches its company already has in progress.
        const ahead = await batchesAhead(trx, batchIds);
        const reached = await reachedPlace(options.batches);
        await options.batches.addBulk(
          batchIds.map((id) => batchJob(id, placeAfter(reached, ahead.get(id) ?? 0))),
        );
      }
      const eventIds = rows
        .filter((r) => r.kind === 'event.dispatch')
        .flatMap((r) => outboxItems(r.payload, 'eventId'));
      if (eventIds.length && options.dispatchEvents) await options.dispatchEvents(trx, eventIds);
      const emailIds = rows
        .filter((r) => r.kind === 'email.send' && r.payload.emailId)
        .map((r) => r.payload.emailId!);
      if (emailIds.length && options.dispatchEmails) await options.dispatchEmails(emailIds);
      const answerIds = rows
        .filter((r) => r.kind === 'received.answer' && r.payload.receivedId)
        .map((r) => Number(r.payload.receivedId));
      if (answerIds.length && options.dispatchAnswers) await options.dispatchAnswers(answerIds);
      await deleteOutboxRows(
        trx,
        rows.map((r) => r.id),
      );
      return rows.length;
    });
  }

  async function listen(): Promise<void> {
    try {
      listener = new pg.Client({ connectionString: options.databaseUrl, application_name: 'factura-relay' });
      listener.on('notification', () => wake?.());
      listener.on('error', (err) => {
        log.warn({ err }, 'outbox listener lost; polling until it reconnects');
        listener = null;
      });
      await listener.connect();
      await listener.query('listen outbox');
    } catch (err) {
      log.warn({ err }, 'outbox listener unavailable; polling');
      listener = null;
    }
  }

  async function main(): Promise<void> {
    let failures = 0;
    while (running) {
      let moved = 0;
      try {
        moved = await runOnce();
        failures = 0;
      } catch (err) {
        failures += 1;
        log.warn({ err, failures }, 'outbox relay pass failed; will retry');
      }
      if (!listener && running) await listen();
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
      await listen();
      loop = main();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      await listener?.end().catch(() => {});
      listener = null;
    },
  };
}
