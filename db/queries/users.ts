// People (users) and their one-time tokens (email confirmation, password reset). Emails are
// unique case-insensitively; tokens are stored as their SHA-256 and used once.
import type { Knex } from 'knex';

export interface UserRow {
  id: number;
  email: string;
  name: string;
  locale: string;
  passwordHash: string;
  emailConfirmedAt: Date | null;
  totpSecret: Buffer | null;
  totpPending: Buffer | null;
  createdAt: Date;
  updatedAt: Date;
}

export type UserTokenKind = 'confirm_email' | 'password_reset';

/** Thrown by createUser when the email address already has an account. */
export class EmailTaken extends Error {
  constructor() {
    super('email already registered');
    this.name = 'EmailTaken';
  }
}

export async function createUser(
  db: Knex,
  input: { email: string; name: string; locale: string; passwordHash: string; confirmed: boolean },
): Promise<UserRow> {
  try {
    const [row] = await db('users')
      .insert({
        email: input.email,
        name: input.name,
        locale: input.locale,
        passwordHash: input.passwordHash,
        emailConfirmedAt: input.confirmed ? db.fn.now() : null,
      })
      .returning('*');
    return row as UserRow;
  } catch (err) {
    if ((err as { constraint?: string }).constraint === 'users_email_key') throw new EmailTaken();
    throw err;
  }
}

export async function userByEmail(db: Knex, email: string): Promise<UserRow | undefined> {
  return db('users').whereRaw('lower(email) = lower(?)', [email]).first();
}

export async function userById(db: Knex, id: number): Promise<UserRow | undefined> {
  return db('users').where({ id }).first();
}

export async function updateUser(
  db: Knex,
  id: number,
  patch: Partial<
    Pick<UserRow, 'name' | 'locale' | 'passwordHash' | 'emailConfirmedAt' | 'totpSecret' | 'totpPending'>
  >,
): Promise<UserRow> {
  const [row] = await db('users')
    .where({ id })
    .update({ ...patch, updatedAt: db.fn.now() })
    .returning('*');
  return row as UserRow;
}

export async function createUserToken(
  db: Knex,
  userId: number,
  kind: UserTokenKind,
  tokenHash: Buffer,
  validSeconds: number,
): Promise<void> {
  await db('user_tokens').insert({
    userId,
    kind,
    tokenHash,
    expiresAt: db.raw(`now() + make_interval(secs => ?)`, [validSeconds]),
  });
}

/**
 * Uses a token once: marks it used and answers its user id, or null when it is unknown, of another
 * kind, expired or already used (one guarded update, so two requests cannot both use it).
 */
export async function useUserToken(db: Knex, kind: UserTokenKind, tokenHash: Buffer): Promise<number | null> {
  const [row] = await db('user_tokens')
    .where({ kind, tokenHash })
    .whereNull('usedAt')
    .where('expiresAt', '>', db.fn.now())
    .update({ usedAt: db.fn.now() })
    .returning('userId');
  return row ? Number(row.userId) : null;
}

/** The person an unused, unexpired token of this kind belongs to (without using it). */
export async function userTokenOwner(
  db: Knex,
  kind: UserTokenKind,
  tokenHash: Buffer,
): Promise<number | null> {
  const row = await db('user_tokens')
    .where({ kind, tokenHash })
    .whereNull('usedAt')
    .where('expiresAt', '>', db.fn.now())
    .first('userId');
  return row ? Number(row.userId) : null;
}
