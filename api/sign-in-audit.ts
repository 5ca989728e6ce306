// Signing in, out and failing to sign in are recorded in the audit log of every company the
// person belongs to (in test mode: the mode a session starts in), as the person. A person of no
// company, or an email with no person behind it, gets one event of no company (kept, never
// listed). Recording never fails or delays the answer beyond the insert: a failure is logged.
import type { FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { recordAuditEvent } from '../db/queries/audit.ts';
import { membershipsOf } from '../db/queries/memberships.ts';

export type SignInAction = 'session.create' | 'session.delete' | 'session.failed';

export interface SignInActor {
  id: number;
  name: string;
}

/** Records one sign-in event per company of the person (or one of no company). */
export async function recordSignInEvent(
  db: Knex,
  request: FastifyRequest,
  action: SignInAction,
  person: SignInActor | null,
): Promise<void> {
  try {
    const companies = person ? (await membershipsOf(db, person.id)).map((m) => Number(m.companyId)) : [];
    const actor = { type: 'user' as const, id: person?.id ?? null, name: person?.name ?? null };
    const base = { actor, action, target: null, ip: request.ip ?? null, requestId: request.id };
    if (companies.length === 0) {
      await recordAuditEvent(db, { ...base, companyId: null, livemode: null });
      return;
    }
    for (const companyId of companies) await recordAuditEvent(db, { ...base, companyId, livemode: false });
  } catch (err) {
    request.log.warn({ err, action }, 'sign-in audit event not recorded');
  }
}
