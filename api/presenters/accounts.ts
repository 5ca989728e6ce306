// People, memberships and sessions → their public objects (schemas in api/schemas/accounts.ts).
import type { Static } from 'typebox';
import type { MembershipRow } from '../../db/queries/memberships.ts';
import type { SessionRow } from '../../db/queries/sessions.ts';
import type { UserRow } from '../../db/queries/users.ts';
import { formatId } from '../../domain/ids.ts';
import { ROLE_SCOPES } from '../../domain/roles.ts';
import type { MembershipObject, SessionObject, UserObject } from '../schemas/accounts.ts';

export function userObject(u: UserRow): Static<typeof UserObject> {
  return {
    id: formatId('user', Number(u.id)),
    email: u.email,
    name: u.name,
    locale: u.locale,
    email_confirmed: u.emailConfirmedAt !== null,
    totp_enabled: u.totpSecret !== null,
  };
}

export function membershipObject(m: MembershipRow): Static<typeof MembershipObject> {
  return {
    company: {
      id: formatId('company', Number(m.companyId)),
      name: m.companyName,
      identification: m.idNumber,
      plan: m.plan,
      live_enabled: Boolean(m.liveEnabled),
    },
    role: m.role,
    scopes: [...ROLE_SCOPES[m.role]],
  };
}

export function sessionObject(s: SessionRow, currentId: number): Static<typeof SessionObject> {
  return {
    id: formatId('session', Number(s.id)),
    created_at: new Date(s.createdAt).toISOString(),
    last_seen_at: new Date(s.lastSeenAt).toISOString(),
    ip: s.ip,
    user_agent: s.userAgent,
    current: Number(s.id) === currentId,
  };
}
