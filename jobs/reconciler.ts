// The reconciler: Postgres is the source of truth, Redis only carries work. Invoices left
// `pendiente` or `enviada` longer than a threshold whose flow is gone (Redis lost, workers dead)
// or failed for a transient reason get their flow again. Handlers are idempotent, so a re-created
// flow only finishes what was left.
import type { FlowProducer, Queue } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { invoiceJobId, type InvoiceStep } from './catalogue.ts';
import { invoiceFlow } from './flow.ts';

export interface ReconcilerOptions {
  db: Knex;
  flows: FlowProducer;
  queues: Record<InvoiceStep, Queue>;
  log: Logger;
  /** How long an invoice may sit without progress before it is looked at. */
  staleMs?: number;
  batchSize?: number;
}

const STEPS: InvoiceStep[] = ['sign', 'submit', 'accounting', 'status'];

export async function reconcileOnce(o: ReconcilerOptions): Promise<number> {
  const staleMs = o.staleMs ?? 60_000;
  const rows: { id: number; processingError: { permanent?: boolean } | null }[] = await o
    .db('invoices')
    .whereIn('status', ['pendiente', 'enviada'])
    .where('updated_at', '<', o.db.raw(`now() - make_interval(secs => ?)`, [staleMs / 1000]))
    .orderBy('updated_at')
    .limit(o.batchSize ?? 200)
    .select('id', 'processing_error');
  let recreated = 0;
  for (const row of rows) {
    if (row.processingError?.permanent) continue;
    const jobs = await Promise.all(STEPS.map((s) => o.queues[s].getJob(invoiceJobId(row.id, s))));
    const states = await Promise.all(jobs.map((j) => (j ? j.getState() : Promise.resolve('missing'))));
    const alive = states.some(
      (s) => s !== 'missing' && s !== 'failed' && s !== 'completed' && s !== 'unknown',
    );
    if (alive) continue;
    // Failed or lost: clear what is left of the flow and add it again.
    for (const j of jobs) if (j) await j.remove().catch(() => {});
    await o.flows.add(invoiceFlow(row.id));
    recreated += 1;
  }
  if (recreated) o.log.info({ recreated }, 'reconciler re-created invoice flows');
  return recreated;
}
