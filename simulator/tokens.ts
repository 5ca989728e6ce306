// Tokens of the simulated IDP: JWT-shaped (like Keycloak's), HMAC-signed with a per-instance secret,
// so nothing is stored per session and a load test does not grow memory. Each token names its
// realm (rut-stag or rut), its kind (Bearer or Refresh) and its user; "revoke all" is a timestamp.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export type Realm = 'rut-stag' | 'rut';
export const REALM_CLIENT: Record<Realm, string> = { 'rut-stag': 'api-stag', rut: 'api-prod' };

export interface TokenClaims {
  exp: number;
  iat: number;
  jti: string;
  realm: Realm;
  typ: 'Bearer' | 'Refresh';
  azp: string;
  preferred_username: string;
  /** Session id, shared by the access and refresh tokens of one login. */
  sid: string;
  /** Revocation generation: "revoke all" bumps the current one. */
  gen: number;
}

export type TokenCheck =
  { ok: true; claims: TokenClaims } | { ok: false; reason: 'malformed' | 'expired' | 'revoked' };

const b64 = (v: object | Buffer) =>
  (Buffer.isBuffer(v) ? v : Buffer.from(JSON.stringify(v))).toString('base64url');
const HEADER = b64({ alg: 'HS256', typ: 'JWT' });

export interface TokenIssuer {
  issue(claims: Omit<TokenClaims, 'iat' | 'exp' | 'jti' | 'gen'>, lifetimeMs: number): string;
  check(token: string, typ: TokenClaims['typ']): TokenCheck;
  /** Invalidates every token issued up to now. */
  revokeAll(): void;
}

export function createTokenIssuer(now: () => number): TokenIssuer {
  const secret = randomBytes(32);
  let generation = 0;
  const sign = (data: string) => createHmac('sha256', secret).update(data).digest();
  return {
    issue(claims, lifetimeMs) {
      const t = now();
      // Seconds with milliseconds kept: NumericDate may be fractional, and short test lifetimes need it.
      const body: TokenClaims = {
        ...claims,
        iat: t / 1000,
        exp: (t + lifetimeMs) / 1000,
        jti: randomUUID(),
        gen: generation,
      };
      const data = `${HEADER}.${b64(body)}`;
      return `${data}.${sign(data).toString('base64url')}`;
    },
    check(token, typ) {
      const parts = token.split('.');
      if (parts.length !== 3) return { ok: false, reason: 'malformed' };
      const [h, p, s] = parts as [string, string, string];
      const expected = sign(`${h}.${p}`);
      const given = Buffer.from(s, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return { ok: false, reason: 'malformed' };
      let claims: TokenClaims;
      try {
        claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as TokenClaims;
      } catch {
        return { ok: false, reason: 'malformed' };
      }
      if (claims.typ !== typ) return { ok: false, reason: 'malformed' };
      if (claims.gen !== generation) return { ok: false, reason: 'revoked' };
      if (now() >= claims.exp * 1000) return { ok: false, reason: 'expired' };
      return { ok: true, claims };
    },
    revokeAll() {
      generation += 1;
    },
  };
}
