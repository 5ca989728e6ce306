// People's sessions: the `factura_session` cookie holds a random id (32 bytes); Postgres holds its
// SHA-256 with the person, the times, the address, the browser and the CSRF secret. A session
// lives 30 days at most and 12 hours without use; every sign-in makes a new id (the cookie sent
// with the sign-in, if any, is revoked), so an id planted before sign-in is worth nothing after.
// CSRF: @fastify/csrf-protection keeps its secret in `request.session._csrf` (its
// '@fastify/session' mode); this module fills that from the session row, so an unsafe request
// authenticated by the cookie must carry a token made from its own session's secret.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import type { Knex } from 'knex';
import type { Config } from '../config/index.ts';
import { hashToken, newToken, TOKEN_RE } from '../domain/account-tokens.ts';
import { createSession, liveSession, revokeSessionByHash, touchSession } from '../db/queries/sessions.ts';

export const SESSION_COOKIE = 'factura_session';
export const IDLE_SECONDS = 12 * 3600;
export const ABSOLUTE_SECONDS = 30 * 86_400;
const TOUCH_EVERY_MS = 60_000;

export interface Person {
  userId: number;
  sessionId: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person of a cookie-authenticated request (null for keys and public routes). */
    person: Person | null;
    /** What @fastify/csrf-protection reads its secret from (the session row's). */
    session: { _csrf?: string } | null;
  }
  interface FastifyContextConfig {
    /** Routes for a signed-in person that need no company (keys are refused). */
    person?: boolean;
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function cookieOptions(config: Pick<Config, 'publicUrl' | 'env'>) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure: config.publicUrl.startsWith('https:') || config.env === 'production',
    maxAge: ABSOLUTE_SECONDS,
  };
}

/** Cookies and CSRF tokens; the CSRF check runs on unsafe cookie-authenticated requests. */
export async function registerSessions(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie);
  await app.register(fastifyCsrf, {
    sessionPlugin: '@fastify/session',
    getToken: (req: FastifyRequest) => {
      const v = req.headers['x-csrf-token'];
      return typeof v === 'string' ? v : undefined;
    },
  });
  app.decorateRequest('person', null);
  app.decorateRequest('session', null);
}

/** Call after authentication: refuses an unsafe cookie-authenticated request without its token. */
export function registerCsrfCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.person || !UNSAFE.has(request.method)) return done();
    app.csrfProtection(request, reply, done);
  });
}

/** The cookie's session id, when it has the shape of one. */
export function cookieToken(request: FastifyRequest): string | null {
  const v = request.cookies?.[SESSION_COOKIE];
  return v && TOKEN_RE.test(v) ? v : null;
}

/** The person of the request's cookie, or null (no cookie, unknown, revoked or expired). */
export async function sessionPerson(db: Knex, request: FastifyRequest): Promise<Person | null> {
  const token = cookieToken(request);
  if (!token) return null;
  const row = await liveSession(db, hashToken(token), IDLE_SECONDS);
  if (!row) return null;
  request.session = { _csrf: row.csrfSecret };
  if (Date.now() - new Date(row.lastSeenAt).getTime() > TOUCH_EVERY_MS)
    touchSession(db, row.id).catch((err: unknown) => request.log.warn({ err }, 'session touch failed'));
  return { userId: Number(row.userId), sessionId: Number(row.id) };
}

/**
 * Signs a person in: a new session (the request's old one, if any, revoked), its cookie, and a
 * CSRF token for it.
 */
export async function startSession(
  db: Knex,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
): Promise<{ person: Person; csrfToken: string }> {
  const old = cookieToken(request);
  if (old) await revokeSessionByHash(db, hashToken(old));
  request.session = {};
  const csrfToken = reply.generateCsrf();
  const { token, hash } = newToken();
  const row = await createSession(db, {
    tokenHash: hash,
    userId,
    csrfSecret: request.session._csrf!,
    absoluteSeconds: ABSOLUTE_SECONDS,
    ip: request.ip ?? null,
    userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
  });
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(config));
  const person = { userId, sessionId: Number(row.id) };
  request.person = person;
  return { person, csrfToken };
}

/** Ends the request's session and clears its cookie. */
export async function endSession(db: Knex, config: Config, request: FastifyRequest, reply: FastifyReply) {
  const token = cookieToken(request);
  if (token) await revokeSessionByHash(db, hashToken(token));
  const { maxAge: _maxAge, ...opts } = cookieOptions(config);
  reply.clearCookie(SESSION_COOKIE, opts);
}
