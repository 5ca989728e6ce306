// Failed sign-ins (a wrong password or a wrong TOTP code), counted per subject (`email:<address>`,
// `ip:<address unit>`) over a sliding window. In Postgres so the limits hold in every way of
// running (embedded mode has no Redis) and across API processes.
import type { Knex } from 'knex';

export async function recordSignInFailure(db: Knex, subjects: string[]): Promise<void> {
  if (subjects.length) await db('sign_in_failures').insert(subjects.map((subject) => ({ subject })));
}

/** Failures of a subject within the window, and when the oldest of them leaves it. */
export async function signInFailures(
  db: Knex,
  subject: string,
  windowSeconds: number,
): Promise<{ count: number; oldestAt: Date | null }> {
  const row = await db('sign_in_failures')
    .where({ subject })
    .where('at', '>', db.raw(`now() - make_interval(secs => ?)`, [windowSeconds]))
    .first(db.raw('count(*)::int as count'), db.raw('min(at) as oldest_at'));
  return { count: Number(row?.count ?? 0), oldestAt: row?.oldestAt ? new Date(row.oldestAt) : null };
}

/** Forgets the failures older than the window (kept small; called now and then). */
export async function pruneSignInFailures(db: Knex, windowSeconds: number): Promise<void> {
  await db('sign_in_failures')
    .where('at', '<', db.raw(`now() - make_interval(secs => ?)`, [windowSeconds]))
    .delete();
}
