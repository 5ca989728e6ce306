// Submissions of invoices to Hacienda, one row per attempt and per invoice. An attempt is written
// (and committed) before the POST leaves and finished with the answer, so an attempt whose
// worker died mid-POST stays unfinished (`finished_at` null) and the next attempt knows to ask
// Hacienda for the clave before sending. Functions take lists of invoices so that a job over
// many invoices records all its attempts in one statement.
// Also the "Hacienda lost it" clock of an invoice: since when its clave has answered 404.
import type { Knex } from 'knex';

/** Why a document is sent: its first submission (and retries), or again after Hacienda lost it. */
export type SubmissionReason = 'submit' | 'lost';

/**
 * `sending` until the answer is known; then `received` (2xx, or found by a status check: detail
 * says how), `duplicate` (Hacienda already had the clave), `refused` (a 4xx that is not a
 * repeat), `auth_failed`, `unknown` (5xx or timeout: Hacienda may have it) or `unavailable`
 * (nothing was processed: connection refused, rate limited).
 */
export type SubmissionOutcome =
  'sending' | 'received' | 'duplicate' | 'refused' | 'auth_failed' | 'unknown' | 'unavailable';

export interface SubmissionStart {
  invoiceId: number;
  clave: string;
  reason: SubmissionReason;
}

export interface SubmissionEnd {
  outcome: Exclude<SubmissionOutcome, 'sending'>;
  httpStatus: number | null;
  detail: string | null;
}

/** Records attempts about to be sent (autocommit: visible even if the process dies next); ids in order. */
export async function beginSubmissions(db: Knex, attempts: SubmissionStart[]): Promise<number[]> {
  if (!attempts.length) return [];
  const rows = (await db('hacienda_submissions')
    .insert(attempts.map((a) => ({ ...a, outcome: 'sending' })))
    .returning('id')) as { id: string | number }[];
  return rows.map((r) => Number(r.id));
}

export async function finishSubmission(db: Knex, id: number, end: SubmissionEnd): Promise<void> {
  await db('hacienda_submissions')
    .where({ id })
    .update({ ...end, finishedAt: db.fn.now() });
}

/** An attempt settled without sending anything (the status check found the clave). */
export async function recordSettledSubmission(
  db: Knex,
  start: SubmissionStart,
  end: SubmissionEnd,
): Promise<void> {
  await db('hacienda_submissions').insert({ ...start, ...end, finishedAt: db.fn.now() });
}

/**
 * Of these invoices, the ones with an earlier attempt, finished or not: Hacienda may have their
 * document (an unknown outcome, or a worker killed mid-POST), so the next attempt asks first.
 */
export async function invoicesWithAttempts(db: Knex, invoiceIds: number[]): Promise<Set<number>> {
  if (!invoiceIds.length) return new Set();
  const ids = (await db('hacienda_submissions')
    .whereIn('invoice_id', invoiceIds)
    .distinct('invoice_id')
    .pluck('invoice_id')) as (string | number)[];
  return new Set(ids.map(Number));
}

/** Milliseconds since the invoice's latest attempt started (null: never sent). */
export async function msSinceLastAttempt(db: Knex, invoiceId: number): Promise<number | null> {
  const res = await db.raw(
    `select (extract(epoch from now() - max(created_at)) * 1000)::bigint as ms
       from hacienda_submissions where invoice_id = ?`,
    [invoiceId],
  );
  const ms = (res.rows[0] as { ms: string | null }).ms;
  return ms === null ? null : Number(ms);
}

/**
 * Hacienda answered 404 for the clave: starts the invoice's "missing" clock if it is not running
 * and answers how long it has run (ms, by the database's clock), or null when the invoice is no
 * longer `enviada`.
 */
export async function markHaciendaMissing(db: Knex, invoiceId: number): Promise<number | null> {
  const res = await db.raw(
    `update invoices set hacienda_missing_since = coalesce(hacienda_missing_since, now())
      where id = ? and status = 'enviada'
      returning (extract(epoch from now() - hacienda_missing_since) * 1000)::bigint as ms`,
    [invoiceId],
  );
  const row = res.rows[0] as { ms: string } | undefined;
  return row ? Number(row.ms) : null;
}

/** Hacienda knows the clave (again): the clock stops. */
export async function clearHaciendaMissing(db: Knex, invoiceId: number): Promise<void> {
  await db('invoices')
    .where({ id: invoiceId })
    .whereNotNull('hacienda_missing_since')
    .update({ haciendaMissingSince: null });
}

/** How many times the document was sent again after Hacienda lost it. */
export async function countLostResends(db: Knex, invoiceId: number): Promise<number> {
  const r = await db('hacienda_submissions')
    .where({ invoiceId, reason: 'lost' })
    .count<{ n: string }[]>('* as n');
  return Number(r[0]?.n ?? 0);
}
