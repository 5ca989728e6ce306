// The flow of one invoice: sign → submit → accounting, then status polling until Hacienda
// answers. BullMQ runs children before parents, so the chain is nested from the last step
// outwards. A child that fails for good fails the chain, visibly.
import type { FlowJob } from 'bullmq';
import {
  DEFAULT_JOB_OPTIONS,
  invoiceJobId,
  JOB_NAMES,
  QUEUES,
  type InvoiceJobData,
  type InvoiceStep,
} from './catalogue.ts';

/** The steps of an invoice's flow, in the order they run. */
export const FLOW_STEPS: readonly InvoiceStep[] = ['sign', 'submit', 'accounting', 'status'];

/**
 * The flow of one invoice from step `from` on (the reconciler re-creates only what an invoice still
 * needs: steps before `from` are done for good, since an invoice's state only moves forward).
 */
export function invoiceFlow(
  invoiceId: number,
  requestId: string | null = null,
  from: InvoiceStep = 'sign',
): FlowJob {
  const data: InvoiceJobData = { v: 1, invoiceId, requestId };
  const job = (step: InvoiceStep, children?: FlowJob[]): FlowJob => ({
    name: JOB_NAMES[step],
    queueName: QUEUES[step],
    data,
    opts: {
      ...DEFAULT_JOB_OPTIONS,
      jobId: invoiceJobId(invoiceId, step),
      ...(step === 'status' ? {} : { failParentOnFailure: true }),
    },
    ...(children?.length ? { children } : {}),
  });
  // Nested from the last step outwards: each step is the parent of the one before it.
  const steps = FLOW_STEPS.slice(FLOW_STEPS.indexOf(from));
  let node: FlowJob | null = null;
  for (const step of steps) node = job(step, node ? [node] : undefined);
  return node!;
}
