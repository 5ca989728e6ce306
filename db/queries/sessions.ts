// Sessions of people signed in to the application: looked up by the SHA-256 of the cookie's id,
// valid while not revoked, before their absolute expiry and within the idle time of their last use.
import type { Knex } from 'knex';

export interface SessionRow {
  id: number;
  tokenHash: Buffer;
  userId: number;
  csrfSecret: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
  revokedAt: Date | null;
}

export async function createSession(
  db: Knex,
  input: {
    tokenHash: Buffer;
    userId: number;
    csrfSecret: string;
    absoluteSeconds: number;
    ip: string | null;
    userAgent: string | null;
  },
): Promise<SessionRow> {
  const [row] = await db('sessions')
    .insert({
      tokenHash: input.tokenHash,
      userId: input.userId,
      csrfSecret: input.csrfSecret,
      expiresAt: db.raw(`now() + make_interval(secs => ?)`, [input.absoluteSeconds]),
      ip: input.ip,
      userAgent: input.userAgent?.slice(0, 500) ?? null,
    })
    .returning('*');
  return row as SessionRow;
}

/** The live session of a cookie's hash (not revoked, not expired, used within `idleSeconds`). */
export async function liveSession(
  db: Knex,
  tokenHash: Buffer,
  idleSeconds: number,
): Promise<SessionRow | undefined> {
  return db('sessions')
    .where({ tokenHash })
    .whereNull('revokedAt')
    .where('expiresAt', '>', db.fn.now())
    .where('lastSeenAt', '>', db.raw(`now() - make_interval(secs => ?)`, [idleSeconds]))
    .first();
}

export async function touchSession(db: Knex, id: number): Promise<void> {
  await db('sessions').where({ id }).update({ lastSeenAt: db.fn.now() });
}

/** Revokes one session of a person (false when there is no such live session of theirs). */
export async function revokeSession(db: Knex, userId: number, id: number): Promise<boolean> {
  const n = await db('sessions')
    .where({ id, userId })
    .whereNull('revokedAt')
    .update({ revokedAt: db.fn.now() });
  return n > 0;
}

export async function revokeSessionByHash(db: Knex, tokenHash: Buffer): Promise<void> {
  await db('sessions').where({ tokenHash }).whereNull('revokedAt').update({ revokedAt: db.fn.now() });
}

/** Ends every session of a person (after a password reset). */
export async function revokeUserSessions(db: Knex, userId: number): Promise<void> {
  await db('sessions').where({ userId }).whereNull('revokedAt').update({ revokedAt: db.fn.now() });
}

/** A person's live sessions, newest first. */
export async function listLiveSessions(db: Knex, userId: number, idleSeconds: number): Promise<SessionRow[]> {
  return db('sessions')
    .where({ userId })
    .whereNull('revokedAt')
    .where('expiresAt', '>', db.fn.now())
    .where('lastSeenAt', '>', db.raw(`now() - make_interval(secs => ?)`, [idleSeconds]))
    .orderBy('id', 'desc');
}
