// One-time tokens of people's accounts (email confirmation, password reset, invitations) and
// session ids: 32 random bytes, base64url. Only the SHA-256 of a token is stored, so a copy of the
// database holds nothing that signs anyone in.
import { createHash, randomBytes } from 'node:crypto';

export function newToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A token as handed out: 43 base64url characters (anything else is not looked up). */
export const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
