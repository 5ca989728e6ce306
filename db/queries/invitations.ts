// Invitations to a company: an email address, the role it will have, a token (stored as its
// SHA-256) valid 7 days, used once.
import type { Knex } from 'knex';
import type { Role } from '../../domain/roles.ts';

export interface InvitationRow {
  id: number;
  companyId: number;
  email: string;
  role: Role;
  invitedBy: number | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

const COLUMNS = [
  'id',
  'companyId',
  'email',
  'role',
  'invitedBy',
  'expiresAt',
  'acceptedAt',
  'revokedAt',
  'createdAt',
];

export async function createInvitation(
  db: Knex,
  input: {
    companyId: number;
    email: string;
    role: Role;
    tokenHash: Buffer;
    invitedBy: number | null;
    validSeconds: number;
  },
): Promise<InvitationRow> {
  const [row] = await db('invitations')
    .insert({
      companyId: input.companyId,
      email: input.email,
      role: input.role,
      tokenHash: input.tokenHash,
      invitedBy: input.invitedBy,
      expiresAt: db.raw(`now() + make_interval(secs => ?)`, [input.validSeconds]),
    })
    .returning(COLUMNS);
  return row as InvitationRow;
}

/** A company's invitations still open (not accepted, revoked or expired), oldest first. */
export async function openInvitations(db: Knex, companyId: number): Promise<InvitationRow[]> {
  return db('invitations')
    .where({ companyId })
    .whereNull('acceptedAt')
    .whereNull('revokedAt')
    .where('expiresAt', '>', db.fn.now())
    .orderBy('id')
    .select(COLUMNS);
}

/** An open invitation by its token. */
export async function openInvitationByToken(db: Knex, tokenHash: Buffer): Promise<InvitationRow | undefined> {
  return db('invitations')
    .where({ tokenHash })
    .whereNull('acceptedAt')
    .whereNull('revokedAt')
    .where('expiresAt', '>', db.fn.now())
    .first(COLUMNS);
}

/** Marks an open invitation accepted (false when it was no longer open). */
export async function markInvitationAccepted(db: Knex, id: number): Promise<boolean> {
  const n = await db('invitations')
    .where({ id })
    .whereNull('acceptedAt')
    .whereNull('revokedAt')
    .where('expiresAt', '>', db.fn.now())
    .update({ acceptedAt: db.fn.now() });
  return n > 0;
}

export async function revokeInvitation(db: Knex, companyId: number, id: number): Promise<boolean> {
  const n = await db('invitations')
    .where({ companyId, id })
    .whereNull('acceptedAt')
    .whereNull('revokedAt')
    .update({ revokedAt: db.fn.now() });
  return n > 0;
}
