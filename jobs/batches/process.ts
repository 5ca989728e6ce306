// batch.process: records the pending items of a batch in chunks of BATCH_CHUNK (a batch of up to
// 1,000 is at most two chunks). A chunk is read, parsed and prepared against the catalogue (one lookup) outside any
// transaction, then recorded in one transaction of four statements (recordBatchChunk): its
// invoices, their events and outbox rows, the idempotency records and every item's outcome are
// written together, so a batch interrupted anywhere resumes with exactly the items still pending,
// and a second run of the same batch waits for the first one's items and finds them recorded.
// One bad item never stops the others; if a whole chunk cannot be written, its items are recorded
// one by one. A failure of the database itself (unreachable, restarting, a deadlock) is never an
// item's failure: the job throws and BullMQ runs it again, for the items still pending.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { invoiceObject } from '../../db/public-objects.ts';
import { isTransientDatabaseError } from '../../db/connection.ts';
import {
  completeBatch,
  getBatch,
  pendingBatchItems,
  type PendingBatchItem,
} from '../../db/queries/batches.ts';
import { getCompany } from '../../db/queries/companies.ts';
import {
  IdempotencyRecordExists,
  recordBatchChunk,
  type BatchChunk,
  type BulkItem,
  type BulkOptions,
  type ItemProblem,
} from '../../db/queries/invoice-bulk.ts';
import { loadCatalogue, missingEmisorData, prepareFromCatalogue } from '../../db/queries/invoice-prepare.ts';
import type { Company } from '../../db/models/index.ts';
import type { Tenant } from '../../db/queries/clients.ts';
import { DomainValidationError } from '../../domain/errors.ts';
import { parseInvoiceRequest, type InvoiceRequest } from '../../domain/invoice-request.ts';
import { parsePurchaseRequest, type Supplier } from '../../domain/purchase-request.ts';
import { isPurchaseBody } from '../../domain/document-types/index.ts';
import { purchaseFromCatalogue } from '../../db/queries/purchases.ts';
import { INVOICE_CREATE_ROUTE, requestFingerprint } from '../../domain/request-fingerprint.ts';
import type { JobContext } from '../context.ts';
import type { Config } from '../../config/index.ts';
import { publicDataOf, withDayRate } from '../../operations/public-data.ts';
import type { ExchangeRateRow } from '../../db/queries/public-data.ts';
import { PublicDataNotFoundError, PublicDataUnavailableError } from '../../hacienda/public-data/index.ts';

export interface BatchJobData {
  v: 1;
  batchId: number;
  requestId?: string | null;
}

/**
 * Items recorded in one transaction (a batch holds at most 1,000). A chunk's requests, prepared
 * invoices, rows and events are all in memory while it is recorded, and a worker records two
 * batches at once: 500 keeps that under 1,000 invoices, which bounds the worker's peak memory.
 */
export const BATCH_CHUNK = 500;

type ItemRow = PendingBatchItem;

const validation = (errors: { path: string; code: string; message: string }[]): ItemProblem => ({
  status: 422,
  code: 'validation_failed',
  detail: errors.map((e) => `${e.path}: ${e.message}`).join('; '),
  errors,
});

/** The request with the day's dollar rate, or the item's problem when none can be had. */
async function dayRate(
  db: Knex,
  config: Config,
  company: Company,
  req: InvoiceRequest,
  asked: Map<string, Promise<ExchangeRateRow>>,
): Promise<InvoiceRequest | { problem: ItemProblem }> {
  try {
    return await withDayRate(db, publicDataOf(config), company.defaultCurrency, req, new Date(), asked);
  } catch (err) {
    if (!(err instanceof PublicDataUnavailableError || err instanceof PublicDataNotFoundError)) throw err;
    const path = `/${req.exchangeRateKey}`;
    const message = `no dollar exchange rate could be had for today (${err.message}); give exchange_rate`;
    return {
      problem: {
        status: 503,
        code: 'exchange_rate_unavailable',
        detail: message,
        errors: [{ path, code: 'exchange_rate_unavailable', message }],
      },
    };
  }
}

/** Parses and prepares a chunk's items: what can be recorded, and each refused item's problem. */
async function prepareChunk(
  db: Knex,
  config: Config,
  tenant: Tenant,
  company: Company,
  batchId: number,
  rows: ItemRow[],
): Promise<BatchChunk> {
  const incomplete = missingEmisorData(company);
  // 1. Parse each item; keep failures apart.
  const failed: BatchChunk['failed'] = [];
  const parsed: { row: ItemRow; req: InvoiceRequest; supplier?: Supplier }[] = [];
  const rates = new Map<string, Promise<ExchangeRateRow>>();
  for (const row of rows) {
    const { idempotency_key: _k, ...body } = row.request as Record<string, unknown> & {
      idempotency_key?: string;
    };
    // A purchase (the factura electrónica de compra) names its supplier instead of a client.
    const r = isPurchaseBody(body) ? parsePurchaseRequest(body, company.idNumber) : parseInvoiceRequest(body);
    if (!r.ok) failed.push({ position: row.position, problem: validation(r.errors) });
    else if (incomplete.length && ('request' in r.value ? r.value.request : r.value).send) {
      failed.push({
        position: row.position,
        problem: { status: 409, code: 'company_incomplete', detail: `missing: ${incomplete.join(', ')}` },
      });
    } else if ('request' in r.value) parsed.push({ row, req: r.value.request, supplier: r.value.supplier });
    else {
      // A dollar invoice without a rate takes the day's reference rate (cached: one call a day).
      const withRate = await dayRate(db, config, company, r.value, rates);
      if ('problem' in withRate) failed.push({ position: row.position, problem: withRate.problem });
      else parsed.push({ row, req: withRate });
    }
  }
  // 2. Prepare against the catalogue (one lookup for the whole chunk).
  const catalogue = await loadCatalogue(
    db,
    tenant,
    parsed.map((p) => p.req),
  );
  const items: BulkItem[] = [];
  const seenExt = new Set<string>();
  for (const { row, req, supplier } of parsed) {
    try {
      const prepared = supplier
        ? purchaseFromCatalogue(company, req, supplier, catalogue)
        : prepareFromCatalogue(company, req, catalogue);
      if (prepared.externalId && seenExt.has(prepared.externalId)) {
        failed.push({
          position: row.position,
          problem: {
            status: 409,
            code: 'duplicate_external_id',
            detail: 'external_id repeated within the batch',
          },
        });
        continue;
      }
      if (prepared.externalId) seenExt.add(prepared.externalId);
      const { idempotency_key: _k, ...body } = row.request as Record<string, unknown>;
      items.push({
        position: row.position,
        prepared,
        send: req.send,
        idempotency: row.idempotencyKey
          ? {
              key: row.idempotencyKey,
              route: INVOICE_CREATE_ROUTE,
              hash: requestFingerprint(INVOICE_CREATE_ROUTE, body),
            }
          : null,
      });
    } catch (err) {
      if (!(err instanceof DomainValidationError)) throw err;
      failed.push({ position: row.position, problem: validation(err.errors) });
    }
  }
  return { batchId, items, failed };
}

/**
 * Records a chunk in one transaction; if that fails as a whole because of an item, item by item.
 * A transient database failure throws at once, at the chunk or at any item: what was committed
 * stays, and the job's next attempt records exactly the items still pending.
 */
async function recordChunk(
  db: Knex,
  tenant: Tenant,
  chunk: BatchChunk,
  opts: BulkOptions,
  log: Logger,
): Promise<void> {
  const run = (c: BatchChunk) => db.transaction((trx) => recordBatchChunk(trx, tenant, c, opts));
  try {
    await run(chunk);
    return;
  } catch (err) {
    if (isTransientDatabaseError(err)) throw err;
    if (!(err instanceof IdempotencyRecordExists))
      log.warn(
        { err, batchId: chunk.batchId },
        'batch chunk failed as a whole; recording its items one by one',
      );
  }
  if (chunk.failed.length) await run({ ...chunk, items: [] });
  for (const item of chunk.items) {
    const one = { batchId: chunk.batchId, items: [item], failed: [] };
    try {
      // A key finished meanwhile by another request is replayed on the second try.
      await run(one).catch((err: unknown) => {
        if (err instanceof IdempotencyRecordExists) return run(one);
        throw err;
      });
    } catch (itemErr) {
      if (isTransientDatabaseError(itemErr)) throw itemErr;
      await run({
        batchId: chunk.batchId,
        items: [],
        failed: [
          {
            position: item.position,
            problem: {
              status: 500,
              code: 'internal_error',
              detail: (itemErr as Error).message.slice(0, 200),
            },
          },
        ],
      });
    }
  }
}

export async function processBatch(job: Job<BatchJobData>, ctx: JobContext): Promise<string> {
  const { db } = ctx;
  const batch = await getBatch(db, job.data.batchId);
  if (!batch) throw new UnrecoverableError(`batch ${job.data.batchId} does not exist`);
  if (batch.status === 'completed') return 'already completed';
  const tenant = { companyId: batch.companyId, livemode: batch.livemode };
  const company = (await getCompany(db, tenant.companyId))!;
  const opts: BulkOptions = {
    emisorId: company.idNumber,
    requestId: job.data.requestId ?? null,
    render: (r) => invoiceObject(r),
  };

  for (;;) {
    const rows = await pendingBatchItems(db, batch.id, BATCH_CHUNK);
    if (!rows.length) break;
    const chunk = await prepareChunk(db, ctx.config, tenant, company, batch.id, rows);
    await recordChunk(db, tenant, chunk, opts, ctx.log);
    await job.updateProgress({ done: rows.at(-1)!.position + 1, total: batch.total });
  }
  await completeBatch(db, batch.id);
  return 'completed';
}
