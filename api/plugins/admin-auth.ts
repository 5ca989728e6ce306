// Admin credentials for the operators' pages (Bull Board at /admin/queues, /metrics): HTTP basic
// auth through @fastify/basic-auth against ADMIN_USER / ADMIN_PASSWORD, both compared in constant
// time. Without ADMIN_PASSWORD the admin area is disabled and every request is refused. A refusal
// is problem+json `admin_credentials_required` (401) with the basic challenge, so browsers and
// Prometheus' `basic_auth` know what to send.
import { createHash, timingSafeEqual } from 'node:crypto';
import fastifyBasicAuth from '@fastify/basic-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Config } from '../../config/index.ts';
import { ApiError } from '../errors.ts';

/** The header @fastify/basic-auth sends with `realm: 'admin'` (UTF-8 credentials), sent here too. */
const CHALLENGE = { 'www-authenticate': 'Basic realm="admin", charset="UTF-8"' };

/**
 * Equal secrets, in a time that depends neither on where they differ nor on their lengths: the
 * SHA-256 digests (always 32 bytes) are compared with timingSafeEqual.
 */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Resolves for the admin's credentials; throws an ApiError (401) otherwise. */
export type AdminCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Registers @fastify/basic-auth on `app` (once per app) and returns the check both pages use. */
export async function registerAdminAuth(app: FastifyInstance, admin: Config['admin']): Promise<AdminCheck> {
  await app.register(fastifyBasicAuth, {
    authenticate: { realm: 'admin' },
    // Optional whitespace around the scheme is accepted, as RFC 7235 asks of recipients.
    strictCredentials: false,
    async validate(user, password) {
      if (!admin) return new Error('the admin area is disabled');
      // Both compared, whatever the user name gives: no early exit that times the user name.
      const userOk = sameSecret(user, admin.user);
      const passwordOk = sameSecret(password, admin.password);
      if (!(userOk && passwordOk)) return new Error('wrong admin credentials');
    },
  });
  const basicAuth = app.basicAuth as onRequestHookHandler;
  return async (request, reply) => {
    if (!admin)
      throw new ApiError('admin_credentials_required', 'The admin area is disabled: set ADMIN_PASSWORD', {
        headers: CHALLENGE,
      });
    try {
      await new Promise<void>((resolve, reject) =>
        basicAuth.call(app, request, reply, (err?: Error) => (err ? reject(err) : resolve())),
      );
    } catch {
      throw new ApiError('admin_credentials_required', 'Admin credentials required', { headers: CHALLENGE });
    }
  };
}
