// The reconciler: Postgres is the source of truth, Redis only carries work. Invoices left
// `pendiente` or `enviada` longer than a threshold whose flow is gone (Redis lost, workers dead)
// or failed for a transient reason get their flow again. Handlers are idempotent, so a re-created
// flow only finishes what was left.
import type { FlowProducer, Queue } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { batchJob, invoiceJobId, type InvoiceStep } from './catalogue.ts';
import { invoiceFlow } from './flow.ts';

export interface ReconcilerOptions {
  db: Knex;
  flows: FlowProducer;
  queues: Record<InvoiceStep, Queue>;
  log: Logger;
  /** The batches queue (batches whose job was lost are re-queued). */
  batches?: Queue;
  /** How long an invoice may sit without progress before it is looked at. */
  staleMs?: number;
  batchSize?: number;
}

const STEPS: InvoiceStep[] = ['sign', 'submit', 'accounting', 'status'];

/** A job still able to run: waiting, delayed, active or waiting for its children. */
function isAlive(state: string): boolean {
  return state !== 'missing' && state !== 'failed' && state !== 'completed' && state !== 'unknown';
}

export async function reconcileOnce(o: ReconcilerOptions): Promise<number> {
  const staleMs = o.staleMs ?? 60_000;
  const pageSize = o.batchSize ?? 200;
  let recreated = 0;
  // Every stale in-flight invoice is looked at, a page at a time (ids ascending), up to a bound
  // per pass so one pass never runs for long.
  let afterId = 0;
  for (let page = 0; page < 50; page++) {
    const rows: { id: number; processingError: { permanent?: boolean } | null }[] = await o
      .db('invoices')
      .whereIn('status', ['pendiente', 'enviada'])
      .where('updated_at', '<', o.db.raw(`now() - make_interval(secs => ?)`, [staleMs / 1000]))
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(pageSize)
      .select('id', 'processing_error');
    if (!rows.length) break;
    afterId = rows.at(-1)!.id;
    recreated += await reconcileInvoices(o, rows);
  }
  recreated += await reconcileBatches(o, staleMs);
  if (recreated) o.log.info({ recreated }, 'reconciler re-created lost work');
  return recreated;
}

/** Batches still `processing` whose job is gone or failed get their job again. */
async function reconcileBatches(o: ReconcilerOptions, staleMs: number): Promise<number> {
  if (!o.batches) return 0;
  const rows: { id: number }[] = await o
    .db('batches')
    .where({ status: 'processing' })
    .where('created_at', '<', o.db.raw(`now() - make_interval(secs => ?)`, [staleMs / 1000]))
    .orderBy('id')
    .limit(100)
    .select('id');
  let n = 0;
  for (const row of rows) {
    const spec = batchJob(row.id);
    const job = await o.batches.getJob(spec.opts.jobId);
    if (isAlive(job ? await job.getState() : 'missing')) continue;
    if (job) await job.remove().catch(() => {});
    await o.batches.add(spec.name, spec.data, spec.opts);
    n += 1;
  }
  return n;
}

async function reconcileInvoices(
  o: ReconcilerOptions,
  rows: { id: number; processingError: { permanent?: boolean } | null }[],
): Promise<number> {
  let recreated = 0;
  for (const row of rows) {
    if (row.processingError?.permanent) continue;
    const jobs = await Promise.all(STEPS.map((s) => o.queues[s].getJob(invoiceJobId(row.id, s))));
    const states = await Promise.all(jobs.map((j) => (j ? j.getState() : Promise.resolve('missing'))));
    const alive = states.some(isAlive);
    if (alive) continue;
    // Failed or lost: clear what is left of the flow and add it again.
    for (const j of jobs) if (j) await j.remove().catch(() => {});
    await o.flows.add(invoiceFlow(row.id));
    recreated += 1;
  }
  return recreated;
}
