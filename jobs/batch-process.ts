// batch.process: records the pending items of a batch in chunks. Each chunk is one transaction:
// its invoices (createInvoicesBulk) and the items' outcomes are written together, so a batch
// interrupted anywhere resumes with exactly the items still pending. One bad item never stops
// the others; if a whole chunk cannot be written, its items are retried one by one.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Knex } from 'knex';
import { invoiceObject } from '../db/public-objects.ts';
import { getCompany } from '../db/queries/companies.ts';
import {
  createInvoicesBulk,
  type BulkItem,
  type BulkOutcome,
  type ItemProblem,
} from '../db/queries/invoice-bulk.ts';
import { loadCatalogue, missingEmisorData, prepareFromCatalogue } from '../db/queries/invoice-prepare.ts';
import { DomainValidationError } from '../domain/errors.ts';
import { parseInvoiceRequest, type InvoiceRequest } from '../domain/invoice-request.ts';
import { parsePurchaseRequest, type Supplier } from '../domain/purchase-request.ts';
import { purchaseFromCatalogue } from '../db/queries/purchases.ts';
import { INVOICE_CREATE_ROUTE, requestFingerprint } from '../domain/request-fingerprint.ts';
import type { JobContext } from './context.ts';

export interface BatchJobData {
  v: 1;
  batchId: number;
  requestId?: string | null;
}

export const BATCH_CHUNK = 200;

interface ItemRow {
  position: number;
  idempotencyKey: string | null;
  request: Record<string, unknown>;
}

const validation = (errors: { path: string; code: string; message: string }[]): ItemProblem => ({
  status: 422,
  code: 'validation_failed',
  detail: errors.map((e) => `${e.path}: ${e.message}`).join('; '),
  errors,
});

async function recordOutcomes(
  trx: Knex.Transaction,
  batchId: number,
  outcomes: BulkOutcome[],
): Promise<void> {
  if (!outcomes.length) return;
  await trx.raw(
    `update batch_items b set status = o.status, invoice_id = o.invoice_id, problem = o.problem
     from jsonb_to_recordset(?::jsonb) as o(position int, status text, invoice_id bigint, problem jsonb)
     where b.batch_id = ? and b.position = o.position and b.status = 'pending'`,
    [
      JSON.stringify(
        outcomes.map((o) => ({
          position: o.position,
          status: o.kind,
          invoice_id: o.kind === 'failed' ? null : o.invoiceId,
          problem: o.kind === 'failed' ? o.problem : null,
        })),
      ),
      batchId,
    ],
  );
}

export async function processBatch(job: Job<BatchJobData>, ctx: JobContext): Promise<string> {
  const { db } = ctx;
  const batch = await db('batches').where({ id: job.data.batchId }).first();
  if (!batch) throw new UnrecoverableError(`batch ${job.data.batchId} does not exist`);
  if (batch.status === 'completed') return 'already completed';
  const tenant = { companyId: batch.companyId as number, livemode: batch.livemode as boolean };
  const company = (await getCompany(db, tenant.companyId))!;
  const incomplete = missingEmisorData(company);

  for (;;) {
    const items = (await db('batch_items')
      .where({ batchId: batch.id, status: 'pending' })
      .orderBy('position')
      .limit(BATCH_CHUNK)
      .select('position', 'idempotency_key', 'request')) as ItemRow[];
    if (!items.length) break;

    // 1. Parse each item; keep failures apart.
    const failed: BulkOutcome[] = [];
    const parsed: { row: ItemRow; req: InvoiceRequest; supplier?: Supplier }[] = [];
    for (const row of items) {
      const { idempotency_key: _k, ...body } = row.request as Record<string, unknown> & {
        idempotency_key?: string;
      };
      // A factura electrónica de compra (08) names its supplier instead of a client.
      const r =
        body.document_type === '08'
          ? parsePurchaseRequest(body, company.idNumber)
          : parseInvoiceRequest(body as never);
      if (!r.ok) failed.push({ position: row.position, kind: 'failed', problem: validation(r.errors) });
      else if (incomplete.length && ('request' in r.value ? r.value.request : r.value).send) {
        failed.push({
          position: row.position,
          kind: 'failed',
          problem: { status: 409, code: 'company_incomplete', detail: `missing: ${incomplete.join(', ')}` },
        });
      } else if ('request' in r.value) parsed.push({ row, req: r.value.request, supplier: r.value.supplier });
      else parsed.push({ row, req: r.value });
    }
    // 2. Prepare against the catalogue (one lookup for the whole chunk).
    const catalogue = await loadCatalogue(
      db,
      tenant,
      parsed.map((p) => p.req),
    );
    const bulk: BulkItem[] = [];
    const seenExt = new Set<string>();
    for (const { row, req, supplier } of parsed) {
      try {
        const prepared = supplier
          ? purchaseFromCatalogue(company, req, supplier, catalogue)
          : prepareFromCatalogue(company, req, catalogue);
        if (prepared.externalId && seenExt.has(prepared.externalId)) {
          failed.push({
            position: row.position,
            kind: 'failed',
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
        bulk.push({
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
        failed.push({ position: row.position, kind: 'failed', problem: validation(err.errors) });
      }
    }
    // 3. Record the chunk with its outcomes; on an unexpected failure, item by item.
    const opts = {
      emisorId: company.idNumber,
      requestId: job.data.requestId ?? null,
      render: (r: Parameters<typeof invoiceObject>[0]) => invoiceObject(r),
    };
    try {
      await db.transaction(async (trx) => {
        const outcomes = await createInvoicesBulk(trx, tenant, bulk, opts);
        await recordOutcomes(trx, batch.id, [...failed, ...outcomes]);
      });
    } catch (err) {
      ctx.log.warn(
        { err, batchId: batch.id },
        'batch chunk failed as a whole; recording its items one by one',
      );
      await db.transaction((trx) => recordOutcomes(trx, batch.id, failed));
      for (const item of bulk) {
        try {
          await db.transaction(async (trx) =>
            recordOutcomes(trx, batch.id, await createInvoicesBulk(trx, tenant, [item], opts)),
          );
        } catch (itemErr) {
          await db.transaction((trx) =>
            recordOutcomes(trx, batch.id, [
              {
                position: item.position,
                kind: 'failed',
                problem: {
                  status: 500,
                  code: 'internal_error',
                  detail: (itemErr as Error).message.slice(0, 200),
                },
              },
            ]),
          );
        }
      }
    }
    await job.updateProgress({ done: items.at(-1)!.position + 1, total: batch.total });
  }
  await db('batches')
    .where({ id: batch.id, status: 'processing' })
    .update({ status: 'completed', completedAt: db.fn.now() });
  return 'completed';
}
