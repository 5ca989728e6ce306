// invoice.submit over a chunk: sends each signed document to Hacienda's reception API and records
// `enviada`. A repeat of the clave is "received", never a failure. The chunk's attempts are
// recorded (with a lease on each invoice) in one transaction before any POST leaves, the POSTs go
// out side by side, and what came of them is written in one transaction: so after an unknown
// outcome — a 5xx, a timeout, or this job's worker killed mid-POST — the next attempt asks
// Hacienda for the clave before sending. One invoice's trouble never holds the others: a refusal
// is recorded on that invoice; a transient failure is retried with the chunk, which then finds
// only the invoices still `pendiente`; an outcome that cannot be written (a check refusing that
// row) is that invoice's permanent processing error (jobs/invoice-flow/isolate.ts), the others are recorded.
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Knex } from 'knex';
import { invoicesToSubmit, type SubmitWork } from '../../db/queries/invoice-flow.ts';
import {
  beginSubmissions,
  finishSubmissions,
  renewSubmissionLeases,
  type SubmissionEnd,
} from '../../db/queries/submissions.ts';
import {
  HaciendaAuthError,
  HaciendaRejectedError,
  submitAndConfirm,
  type ReceptionClient,
} from '../../hacienda/client/index.ts';
import { chunkJobId, type ChunkJobData } from './queues.ts';
import { MissingCredentialsError, type JobContext } from '../context.ts';
import { SUBMISSION_LEASE_MS, submissionFailure, submissionOf } from './hacienda-send.ts';
import { reverseInvoice, transition } from '../../db/queries/invoice-state.ts';
import { mapLimit } from '../../platform/map-limit.ts';
import { isPermanentError, recordProcessingError } from '../../db/queries/processing-error.ts';
import { inInvoiceTrace } from '../../platform/tracing.ts';
import { memberError, writeIsolating } from './isolate.ts';
import { explainErrorCause } from '../../hacienda/rejection-reasons.ts';

/** POSTs of one chunk in flight at once. */
const SUBMIT_CONCURRENCY = 16;

type Sent =
  | { invoiceId: number; attemptId: number; end: SubmissionEnd; ok: true; via: string }
  | { invoiceId: number; attemptId: number; end: SubmissionEnd; ok: false; err: unknown };

type Attempt = { w: SubmitWork; attemptId: number; attemptedBefore: boolean };

/** One reception client per company and mode; no credentials is that company's invoices' problem. */
async function receptionClients(ctx: JobContext, work: SubmitWork[]) {
  const clients = new Map<string, ReceptionClient>();
  const sendable: SubmitWork[] = [];
  let missing = 0;
  for (const w of work.filter((x) => x.signedXml)) {
    const key = `${w.invoice.companyId}:${w.invoice.livemode}`;
    try {
      if (!clients.has(key))
        clients.set(
          key,
          await ctx.hacienda.reception(w.invoice.companyId, w.invoice.livemode, w.credentialsStamp),
        );
      sendable.push(w);
    } catch (err) {
      if (!(err instanceof MissingCredentialsError)) throw err;
      await recordProcessingError(ctx.db, w.invoice.id, 'submit', err, true);
      missing += 1;
    }
  }
  return { clients, sendable, missing };
}

/**
 * Every attempt recorded before anything leaves, each with a lease renewed while the POSTs run
 * (`stop` ends the renewal); invoices another sender holds wait (`busyMs`).
 */
async function beginAttempts(db: Knex, sendable: SubmitWork[]) {
  const begun = await beginSubmissions(
    db,
    sendable.map((w) => ({ invoiceId: w.invoice.id, clave: w.invoice.clave!, reason: 'submit' as const })),
    SUBMISSION_LEASE_MS,
  );
  let busyMs = 0;
  const attempts: Attempt[] = [];
  for (const w of sendable) {
    const b = begun.get(w.invoice.id)!;
    if ('busyMs' in b) busyMs = Math.max(busyMs, b.busyMs);
    else attempts.push({ w, attemptId: b.id, attemptedBefore: b.attemptedBefore });
  }
  const renewal = setInterval(() => {
    renewSubmissionLeases(
      db,
      attempts.map((a) => a.attemptId),
      SUBMISSION_LEASE_MS,
    ).catch(() => {
      // A missed renewal shortens the leases; the next one (or the answers) settles them.
    });
  }, SUBMISSION_LEASE_MS / 3);
  renewal.unref();
  return { attempts, busyMs, stop: () => clearInterval(renewal) };
}

/** One invoice: look first where an earlier attempt may have reached Hacienda, or send it. */
function sendOne(
  ctx: JobContext,
  job: Job<ChunkJobData>,
  client: ReceptionClient,
  a: Attempt,
): Promise<Sent> {
  const { w, attemptId, attemptedBefore } = a;
  return inInvoiceTrace(w.invoice.traceContext, async () => {
    const invoiceId = w.invoice.id;
    try {
      if (
        attemptedBefore &&
        (await ctx.haciendaCalls.run(() => client.status(w.invoice.clave!), w.invoice.companyId)).found
      )
        return {
          invoiceId,
          attemptId,
          ok: true,
          via: 'status',
          end: { outcome: 'received', httpStatus: 200, detail: 'status' },
        };
      // Hacienda's callback wakes this flow's status job, named in the callback URL.
      const statusJobId = chunkJobId(job.data.chunk, 'status');
      const doc = submissionOf(ctx.config, w.invoice, w.emisor, w.receptor, w.signedXml!, {
        companyId: Number(w.invoice.companyId),
        jobId: statusJobId,
      });
      const c = await ctx.haciendaCalls.run(() => submitAndConfirm(client, doc), w.invoice.companyId);
      const duplicate = c.via === 'duplicate';
      return {
        invoiceId,
        attemptId,
        ok: true,
        via: c.via,
        end: {
          outcome: duplicate ? 'duplicate' : 'received',
          httpStatus: duplicate ? 400 : c.via === 'post' ? 202 : 200,
          detail: `${c.via}; ${c.attempts} POST${c.attempts === 1 ? '' : 's'}`,
        },
      };
    } catch (err) {
      return { invoiceId, attemptId, ok: false, err, end: submissionFailure(err) };
    }
  });
}

/**
 * What came of it, in one transaction: attempts finished, `enviada` with its events, refusals.
 * An invoice whose outcome cannot be recorded fails alone (isolate.ts).
 */
async function recordSent(db: Knex, work: SubmitWork[], sent: Sent[]) {
  const unrecorded = await writeIsolating(sent, (part) =>
    db.transaction((trx) => recordOutcomes(trx, [...part])),
  );
  for (const u of unrecorded)
    await recordProcessingError(
      db,
      u.member.invoiceId,
      'submit',
      memberError(u.err),
      true,
      'result_not_recorded',
    );
  const recorded = sent.filter((x) => !unrecorded.some((u) => u.member === x));
  const received = recorded.filter((x) => x.ok).map((x) => x.invoiceId);
  const refused = recorded.filter((x) => !x.ok && x.err instanceof HaciendaRejectedError);
  const failed = recorded.filter((s) => !s.ok && !(s.err instanceof HaciendaRejectedError)) as Extract<
    Sent,
    { ok: false }
  >[];
  for (const f of failed)
    if (f.err instanceof HaciendaAuthError)
      await recordProcessingError(db, f.invoiceId, 'submit', f.err, false);
  return { unrecorded: unrecorded.length, received, refused, failed };
}

export async function submitChunk(job: Job<ChunkJobData>, ctx: JobContext, token?: string): Promise<string> {
  const { db } = ctx;
  // 1. What is still `pendiente`, with its bytes and identifications: one query.
  const work = await invoicesToSubmit(db, job.data.invoiceIds);
  if (!work.length) return 'already sent';
  const unsigned = work.filter((w) => !w.signedXml && !isPermanentError(w.invoice.processingError));
  let failedForGood = work.filter((w) => !w.signedXml).length - unsigned.length;

  // 2. One reception client per company and mode.
  const { clients, sendable, missing } = await receptionClients(ctx, work);
  failedForGood += missing;

  // 3. Every attempt recorded before anything leaves; invoices another sender holds wait.
  const { attempts, busyMs, stop } = await beginAttempts(db, sendable);

  // 4. Look first where an earlier attempt may have reached Hacienda; send the rest.
  let sent: Sent[];
  try {
    sent = await mapLimit(attempts, SUBMIT_CONCURRENCY, (a) =>
      sendOne(ctx, job, clients.get(`${a.w.invoice.companyId}:${a.w.invoice.livemode}`)!, a),
    );
  } finally {
    stop();
  }

  // 5. What came of it.
  const { unrecorded, received, refused, failed } = await recordSent(db, work, sent);
  failedForGood += unrecorded;

  // 6. How the job ends: waiting for another sender, retried for what failed, or done.
  if (busyMs > 0) {
    await job.moveToDelayed(Date.now() + busyMs + 250, token);
    throw new DelayedError();
  }
  if (failed.length) throw failed[0]!.err; // retried: the next run sends only what is still pendiente
  if (unsigned.length) throw new Error(`${unsigned.length} invoice(s) of the chunk are not signed yet`);
  if (!received.length && refused.length + failedForGood === work.length) {
    const first = refused[0]
      ? `refused at reception: ${(refused[0] as { err: Error }).err.message}`
      : 'no credentials';
    throw new UnrecoverableError(first);
  }
  return `received ${received.length}${refused.length ? `, refused ${refused.length}` : ''}`;
}

/** Finishes the attempts of `sent` and moves their invoices: `enviada`, or `rechazada` when refused. */
async function recordOutcomes(trx: Knex.Transaction, sent: Sent[]): Promise<void> {
  const received = sent.filter((s) => s.ok).map((s) => s.invoiceId);
  const refused = sent.filter((s) => !s.ok && s.err instanceof HaciendaRejectedError);
  await finishSubmissions(
    trx,
    sent.map((s) => ({ id: s.attemptId, ...s.end })),
  );
  await transition(
    trx,
    received,
    ['pendiente'],
    'enviada',
    { submittedAt: 'now', haciendaStatus: 'recibido', processingError: null },
    'invoice.sent',
    true,
  );
  for (const r of refused) {
    // Refused at reception (HTTP 400, not a repeat): the document will never be processed.
    const err = (r as { err: HaciendaRejectedError }).err;
    const [row] = await transition(
      trx,
      [r.invoiceId],
      ['pendiente'],
      'rechazada',
      {
        rejectedAt: 'now',
        haciendaStatus: 'rechazado',
        balanceDue: 0,
        paymentStatus: 'unpaid_if_paid_at_issue',
        // X-Error-Cause explained in Spanish and English (never a raw English cause as the reason).
        rejectionReason: explainErrorCause(err.errorCause, err.status),
      },
      'invoice.rejected',
      true,
    );
    if (row) await reverseInvoice(trx, row);
  }
}
