// invoice.status over a chunk: asks Hacienda for the verdict on each clave still `enviada`, side
// by side, until every one is final, waiting longer between polls (the job moves itself to
// delayed; Hacienda's callback for any of its claves promotes it at once). Acceptance and
// rejection are business outcomes: the chunk's verdicts are recorded with their events in one
// transaction, never thrown; an acceptance keeps Hacienda's observations on the document (its
// `warnings`). A rejection writes the reversing entry and lowers the client's
// balance in the same transaction. A clave Hacienda answers 404 for after receiving it is sent
// again, and past a bound reported as that invoice's processing error (jobs/invoice-flow/lost-document.ts). A
// verdict that cannot be recorded (its reversal does not fit the ledger, …) is that invoice's
// permanent processing error; the chunk's other verdicts are recorded.
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Knex } from 'knex';
import {
  invoicesAwaitingVerdict,
  type CredentialsStamped,
  type EmailsEnabled,
  type VerdictInvoice,
  storeResponseXmls,
  updateHaciendaStates,
} from '../../db/queries/invoice-flow.ts';
import type { InvoiceRow } from '../../db/queries/invoices.ts';
import { scheduleAcceptanceEmails } from '../../db/queries/invoice-emails.ts';
import { clearHaciendaMissing } from '../../db/queries/submissions.ts';
import type { ReceptionClient, StatusResult } from '../../hacienda/client/index.ts';
import { observationsOf, type Observation } from '../../hacienda/observations.ts';
import { explainMensajeHacienda } from '../../hacienda/rejection-reasons.ts';
import type { ChunkJobData } from './queues.ts';
import type { JobContext } from '../context.ts';
import { nextPollDelay } from '../job-options.ts';
import { reverseInvoice, transition } from '../../db/queries/invoice-state.ts';
import { handleMissingClave } from './lost-document.ts';
import { memberError, writeIsolating } from './isolate.ts';
import { mapLimit } from '../../platform/map-limit.ts';
import { recordProcessingError } from '../../db/queries/processing-error.ts';
import { inInvoiceTrace } from '../../platform/tracing.ts';

/** Status requests of one chunk in flight at once. */
const STATUS_CONCURRENCY = 16;

type Found = Extract<StatusResult, { found: true }>;
/** A chunk's invoice as the step read it (invoicesAwaitingVerdict). */
type Awaiting = VerdictInvoice & CredentialsStamped & EmailsEnabled;
type Polled = { invoice: Awaiting; s: StatusResult; resent: boolean; gaveUp: boolean };
type Final = Polled & { s: Found };
const isFinal = (p: Polled): p is Final => p.s.found && p.s.terminal;

/**
 * Hacienda's status of every invoice (a lost document sent again, or given up on). One with no
 * answer (a timeout, a 5xx) is asked again at the next poll with the rest; nobody answering at
 * all means Hacienda (or its network) is away: thrown, retried with the job's backoff.
 */
async function askHacienda(ctx: JobContext, invoices: Awaiting[]): Promise<Polled[]> {
  const clients = new Map<string, Promise<ReceptionClient>>();
  const clientOf = (i: Awaiting) => {
    const key = `${i.companyId}:${i.livemode}`;
    if (!clients.has(key))
      clients.set(key, ctx.hacienda.reception(i.companyId, i.livemode, i.credentialsStamp));
    return clients.get(key)!;
  };
  let unanswered: unknown = null;
  const asked = await mapLimit(invoices, STATUS_CONCURRENCY, (invoice): Promise<Polled | null> =>
    inInvoiceTrace(invoice.traceContext, async () => {
      try {
        const client = await clientOf(invoice);
        const s = await ctx.haciendaCalls.run(() => client.status(invoice.clave!), invoice.companyId);
        if (s.found && invoice.haciendaMissingSince) await clearHaciendaMissing(ctx.db, invoice.id);
        let resent = false;
        let gaveUp = false;
        if (!s.found) {
          try {
            resent = (await handleMissingClave(ctx, client, invoice)) === 'resent';
          } catch (err) {
            // Lost for good: recorded on that invoice (a person looks); the others go on.
            if (!(err instanceof UnrecoverableError)) throw err;
            gaveUp = true;
          }
        }
        return { invoice, s, resent, gaveUp };
      } catch (err) {
        unanswered ??= err;
        return null;
      }
    }),
  );
  const polled = asked.filter((p): p is Polled => p !== null);
  if (!polled.length) throw unanswered;
  return polled;
}

export async function pollChunkStatus(
  job: Job<ChunkJobData>,
  ctx: JobContext,
  token?: string,
): Promise<string> {
  const { db } = ctx;
  // 1. What still waits for a verdict.
  const invoices = await invoicesAwaitingVerdict(db, job.data.invoiceIds);
  if (!invoices.length) return 'all final';

  // 2. Ask Hacienda about every one.
  const polled = await askHacienda(ctx, invoices);

  // 3. The verdicts, in one transaction; one that cannot be recorded fails alone (jobs/invoice-flow/isolate.ts).
  const verdicts = polled.filter(isFinal);
  const unrecorded = await writeIsolating(verdicts, (part) =>
    db.transaction((trx) => recordVerdicts(trx, [...part])),
  );
  for (const u of unrecorded)
    await recordProcessingError(
      db,
      u.member.invoice.id,
      'status',
      memberError(u.err),
      true,
      'verdict_not_recorded',
    );
  const final = verdicts.filter((v) => !unrecorded.some((u) => u.member === v));
  const waiting = polled.filter((p) => !isFinal(p) && !p.gaveUp);
  const moved: { invoiceId: number; state: string }[] = [];
  for (const p of waiting)
    if (p.s.found && p.s.state !== p.invoice.haciendaStatus)
      moved.push({ invoiceId: p.invoice.id, state: p.s.state });
  await updateHaciendaStates(db, moved);

  // 4. Not all final: look again later (soon after a re-send: the count starts again).
  if (waiting.length || polled.length < invoices.length) {
    const polls = waiting.some((p) => p.resent) ? 1 : (job.data.polls ?? 0) + 1;
    await job.updateData({ ...job.data, polls });
    await job.moveToDelayed(
      Date.now() + nextPollDelay(polls - 1, ctx.statusPoll.baseMs, ctx.statusPoll.maxMs),
      token,
    );
    // Hacienda's callback may have come while this job was asking: then it looks again at once.
    await ctx.wakeIfNoted?.(job);
    throw new DelayedError();
  }
  const lost = polled.filter((p) => p.gaveUp);
  if (lost.length && !final.length)
    throw new UnrecoverableError(
      `Hacienda lost ${lost.length} document(s) for good; see their processing errors`,
    );
  const counts = new Map<string, number>();
  for (const p of final) counts.set(p.s.state, (counts.get(p.s.state) ?? 0) + 1);
  if (invoices.length === 1 && final.length === 1) return final[0]!.s.state;
  const summary = [...counts].map(([state, n]) => `${state} ${n}`);
  if (lost.length) summary.push(`lost ${lost.length}`);
  if (unrecorded.length) summary.push(`not recorded ${unrecorded.length}`);
  return summary.join(', ');
}

/** The acceptances grouped by their observations (read from each answer; none without one). */
function byWarnings(acceptances: Final[]): Map<Observation[], number[]> {
  const groups = new Map<string, { warnings: Observation[]; ids: number[] }>();
  for (const { invoice, s } of acceptances) {
    const warnings = s.responseXml ? observationsOf(s.responseXml) : [];
    const key = JSON.stringify(warnings);
    const group = groups.get(key) ?? { warnings, ids: [] };
    group.ids.push(invoice.id);
    groups.set(key, group);
  }
  return new Map([...groups.values()].map((g) => [g.warnings, g.ids]));
}

async function recordVerdicts(trx: Knex.Transaction, final: Final[]): Promise<void> {
  // Acceptances, whatever their number, in a few multi-row statements: the answers, the state
  // change with its events, the emails.
  const acceptances = final.filter((f) => f.s.state === 'aceptado');
  await storeResponseXmls(
    trx,
    acceptances.flatMap(({ invoice, s }) =>
      s.responseXml ? [{ invoiceId: invoice.id, responseXml: s.responseXml }] : [],
    ),
  );
  const accepted: InvoiceRow[] = [];
  // Hacienda's observations (-16 sent late, -37 location…) are written in the update that records
  // the acceptance, so the `invoice.accepted` event carries them: one update for every acceptance
  // with the same observations (all the clean ones together).
  for (const [warnings, ids] of byWarnings(acceptances)) {
    accepted.push(
      ...(await transition(
        trx,
        ids,
        ['enviada'],
        'aceptada',
        { acceptedAt: 'now', haciendaStatus: 'aceptado', warnings },
        'invoice.accepted',
      )),
    );
  }
  // The receptor's email, recorded with the acceptance and sent by its own job: whatever
  // becomes of it, the acceptance and its journal stand.
  await scheduleAcceptanceEmails(
    trx,
    accepted,
    new Set(final.filter((f) => f.invoice.emailsEnabled).map((f) => f.invoice.companyId)),
  );

  for (const { invoice, s } of final) {
    if (s.state === 'aceptado') continue;
    const responseXml = s.responseXml ?? null;
    if (responseXml) await storeResponseXmls(trx, [{ invoiceId: invoice.id, responseXml }]);
    const reason = responseXml
      ? explainMensajeHacienda(responseXml)
      : {
          summary: {
            es: 'Hacienda no pudo procesar el comprobante (estado "error", sin respuesta).',
            en: 'Hacienda could not process the document (state "error", no answer).',
          },
          items: [],
          raw: null,
        };
    const [row] = await transition(
      trx,
      [invoice.id],
      ['enviada'],
      'rechazada',
      {
        rejectedAt: 'now',
        haciendaStatus: s.state,
        rejectionReason: reason,
        balanceDue: 0,
        paymentStatus: 'unpaid_if_paid_at_issue',
      },
      'invoice.rejected',
    );
    if (row) await reverseInvoice(trx, row);
  }
}
