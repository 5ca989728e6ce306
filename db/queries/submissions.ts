// Submissions of invoices to Hacienda, one row per attempt and per invoice. An attempt is written
// (and committed) before the POST leaves and finished with the answer, so an attempt whose
// worker died mid-POST stays unfinished (`finished_at` null) and the next attempt knows to ask
// Hacienda for the clave before sending. While its sender lives, an unfinished attempt holds a
// lease (`lease_until`, renewed every few seconds during a slow call) and nobody else sends the
// invoice; a dead sender's lease runs out within seconds.
// Also the "Hacienda lost it" clock of an invoice: since when its clave has answered 404.
import { prepared } from '../prepared.ts';
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

/** An attempt in flight: how much longer its lease runs (another sender holds the invoice). */
export interface SubmissionBusy {
  busyMs: number;
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

/** The outcome of beginning one invoice's attempt. */
export type BegunSubmission = { id: number; attemptedBefore: boolean } | SubmissionBusy;

/**
 * Records the attempts about to be sent, each holding a lease on its invoice for `leaseMs` (and
 * saying whether the invoice had attempts before: Hacienda may have its document already), in one
 * transaction: every invoice row locked (in id order, so two senders never both start), their
 * earlier attempts read in one query, the new attempts inserted in one statement. An invoice whose
 * unfinished attempt still holds a live lease (its sender may be waiting for Hacienda's answer
 * right now) gets `busyMs`, how long that lease still runs, and no new attempt. The attempts are
 * committed before this returns (visible even if the process dies next).
 */
export async function beginSubmissions(
  db: Knex,
  starts: SubmissionStart[],
  leaseMs: number,
): Promise<Map<number, BegunSubmission>> {
  const result = new Map<number, BegunSubmission>();
  if (!starts.length) return result;
  const ids = starts.map((s) => s.invoiceId);
  return db.transaction(async (trx) => {
    await trx.raw('select 1 from invoices where id = any(?::bigint[]) order by id for update', [ids]);
    const prior = await prepared(
      trx,
      'submissions.prior-leases',
      `select invoice_id,
              ceil(extract(epoch from max(lease_until) filter (where finished_at is null) - now())
                   * 1000)::bigint as ms
         from hacienda_submissions
        where invoice_id = any(?::bigint[])
        group by invoice_id`,
      [ids],
    );
    const before = new Map<number, number | null>(
      (prior.rows as { invoice_id: string; ms: string | null }[]).map((r) => [
        Number(r.invoice_id),
        r.ms === null ? null : Number(r.ms),
      ]),
    );
    const fresh: SubmissionStart[] = [];
    for (const s of starts) {
      const ms = before.get(s.invoiceId);
      if (ms !== undefined && ms !== null && ms > 0) result.set(s.invoiceId, { busyMs: ms });
      else fresh.push(s);
    }
    if (fresh.length) {
      const rows = (await trx('hacienda_submissions')
        .insert(
          fresh.map((s) => ({
            ...s,
            outcome: 'sending',
            leaseUntil: trx.raw(`now() + ? * interval '1 millisecond'`, [leaseMs]),
          })),
        )
        .returning(['id', 'invoice_id'])) as { id: string | number; invoiceId: string | number }[];
      for (const r of rows) {
        const invoiceId = Number(r.invoiceId);
        result.set(invoiceId, { id: Number(r.id), attemptedBefore: before.has(invoiceId) });
      }
    }
    return result;
  });
}

/** The senders of these attempts are alive and still waiting: leases run `leaseMs` from now. */
export async function renewSubmissionLeases(db: Knex, ids: number[], leaseMs: number): Promise<void> {
  if (!ids.length) return;
  await db('hacienda_submissions')
    .whereIn('id', ids)
    .whereNull('finishedAt')
    .update({ leaseUntil: db.raw(`now() + ? * interval '1 millisecond'`, [leaseMs]) });
}

/** Finishes several attempts with what came of each, in one statement. */
export async function finishSubmissions(
  db: Knex | Knex.Transaction,
  ends: (SubmissionEnd & { id: number })[],
): Promise<void> {
  if (!ends.length) return;
  await prepared(
    db,
    'submissions.finish',
    `update hacienda_submissions s
        set outcome = v.outcome, http_status = v.http_status, detail = v.detail,
            finished_at = now(), lease_until = null
       from (select * from unnest(?::bigint[], ?::text[], ?::int[], ?::text[])
               as t(id, outcome, http_status, detail)) v
      where s.id = v.id`,
    [
      ends.map((e) => e.id),
      ends.map((e) => e.outcome),
      ends.map((e) => e.httpStatus),
      ends.map((e) => e.detail),
    ] as unknown as readonly Knex.Value[],
  );
}
