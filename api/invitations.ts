// Accepting an invitation: the person whose email it was sent to becomes a member of the company
// with the invitation's role (an existing membership keeps its role), once.
import type { Knex } from 'knex';
import { addMembership } from '../db/queries/memberships.ts';
import {
  markInvitationAccepted,
  openInvitationByToken,
  type InvitationRow,
} from '../db/queries/invitations.ts';
import { hashToken, TOKEN_RE } from '../domain/account-tokens.ts';
import { normalEmail } from '../domain/passwords.ts';
import { ApiError } from './errors.ts';

export function invalidToken(field: string): ApiError {
  return new ApiError(
    'token_invalid',
    'El enlace no es válido, venció o ya se usó (the link is invalid, expired or used)',
    {
      errors: [{ path: `/${field}`, code: 'token_invalid', message: 'is invalid, expired or already used' }],
    },
  );
}

/** The open invitation of a token sent to `email`: 400 token_invalid, 403 invitation_other_email. */
export async function invitationFor(
  db: Knex,
  token: string,
  email: string,
  field = 'invitation_token',
): Promise<InvitationRow> {
  const inv = TOKEN_RE.test(token) ? await openInvitationByToken(db, hashToken(token)) : undefined;
  if (!inv) throw invalidToken(field);
  if (normalEmail(inv.email) !== normalEmail(email))
    throw new ApiError('invitation_other_email', 'This invitation was sent to another email address');
  return inv;
}

export async function acceptInvitation(db: Knex, inv: InvitationRow, userId: number): Promise<void> {
  await db.transaction(async (trx) => {
    if (!(await markInvitationAccepted(trx, inv.id))) throw invalidToken('token');
    await addMembership(trx, Number(inv.companyId), userId, inv.role);
  });
}
