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

export function invoiceFlow(invoiceId: number, requestId: string | null = null): FlowJob {
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
    ...(children ? { children } : {}),
  });
  return job('status', [job('accounting', [job('submit', [job('sign')])])]);
}
