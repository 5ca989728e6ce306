// The outbox relay: moves committed outbox rows to BullMQ. Rows are claimed with
// FOR UPDATE SKIP LOCKED (several workers never take the same row), enqueued in bulk, and
// marked processed in the same transaction; if Redis fails the transaction rolls back and the
// rows wait for the next pass. Deterministic job ids make a repeated enqueue start nothing twice.
// It wakes on NOTIFY outbox (sent at commit by the API) and polls as a fallback.
import type { FlowProducer, Queue } from 'bullmq';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';
import { assignFlowChunks } from '../db/queries/invoice-flow.ts';
import { batchJob } from '../jobs/catalogue.ts';
import { chunkFlow, makeChunks } from '../jobs/flow.ts';
import { addShardedFlows } from '../jobs/shards.ts';

export interface RelayOptions {
  db: Knex;
  databaseUrl: string;
  flows: FlowProducer;
  /** The queue prefix of a company's shard (jobs/shards.ts); absent: the flow producer's own. */
  prefixOf?: (companyId: number) => string;
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

interface OutboxRow {
  id: number;
  kind: string;
  payload: {
    invoiceId?: number;
    retry?: boolean;
    eventId?: number;
    batchId?: number;
    emailId?: number;
    receivedId?: number;
  };
  requestId: string | null;
  /** Of the invoice of an `invoice.flow` row. */
  companyId: number | null;
  livemode: boolean | null;
  traceContext: string | null;
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
      // The invoice's company and mode come with the claim: flows are chunked by them.
      const claimed = await trx.raw(
        `select o.id, o.kind, o.payload, o.request_id, i.company_id, i.livemode, i.trace_context
           from outbox o
           left join invoices i on o.kind = 'invoice.flow' and i.id = (o.payload->>'invoiceId')::bigint
          where o.processed_at is null
          order by o.id
          limit ?
          for update of o skip locked`,
        [batchSize],
      );
      const rows = (claimed.rows as Record<string, unknown>[]).map((r): OutboxRow => ({
        id: Number(r.id),
        kind: r.kind as string,
        payload: r.payload as OutboxRow['payload'],
        requestId: (r.request_id as string | null) ?? null,
        companyId: r.company_id === null ? null : Number(r.company_id),
        livemode: (r.livemode as boolean | null) ?? null,
        traceContext: (r.trace_context as string | null) ?? null,
      }));
      if (rows.length === 0) return 0;
      // Whatever is ready, in chunks: each invoice's chunk is written with the claim, so the
      // reconciler and Hacienda's callback find the jobs that carry it.
      const chunks = makeChunks(
        rows
          .filter((r) => r.kind === 'invoice.flow' && r.payload.invoiceId && r.companyId !== null)
          .map((r) => ({
            invoiceId: r.payload.invoiceId!,
            companyId: r.companyId!,
            livemode: r.livemode!,
            traceContext: r.traceContext,
            ...(r.payload.retry ? { retryOf: r.id } : {}),
          })),
        chunkSize,
      );
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
        await options.batches.addBulk(batchIds.map(batchJob));
      }
      const eventIds = rows
        .filter((r) => r.kind === 'event.dispatch' && r.payload.eventId)
        .map((r) => r.payload.eventId!);
      if (eventIds.length && options.dispatchEvents) await options.dispatchEvents(trx, eventIds);
      const emailIds = rows
        .filter((r) => r.kind === 'email.send' && r.payload.emailId)
        .map((r) => r.payload.emailId!);
      if (emailIds.length && options.dispatchEmails) await options.dispatchEmails(emailIds);
      const answerIds = rows
        .filter((r) => r.kind === 'received.answer' && r.payload.receivedId)
        .map((r) => r.payload.receivedId!);
      if (answerIds.length && options.dispatchAnswers) await options.dispatchAnswers(answerIds);
      await trx('outbox')
        .whereIn(
          'id',
          rows.map((r) => r.id),
        )
        .update({ processedAt: trx.fn.now(), attempts: trx.raw('attempts + 1') });
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
