// The IDP (Keycloak) of both realms, at Hacienda's real paths (Hacienda's reception API):
//   POST /auth/realms/{rut-stag|rut}/protocol/openid-connect/token   (client api-stag / api-prod)
//   POST /auth/realms/{realm}/protocol/openid-connect/logout
// Grants: password and refresh_token. Errors as Keycloak sends them: 401 invalid_grant "Invalid
// user credentials" for a bad password, 400 invalid_grant "Token is not active" for an expired or
// revoked refresh token, 401 invalid_client for a client_id of another realm.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SimulatorContext } from './context.ts';
import { rateHeaders } from './rate-limit.ts';
import { REALM_CLIENT } from './tokens.ts';
import type { Realm } from './tokens.ts';

type Form = Record<string, string | undefined>;

const oauthError = (reply: FastifyReply, status: number, error: string, description: string) =>
  reply.code(status).send({ error, error_description: description });

export function registerIdpRoutes(app: FastifyInstance, ctx: SimulatorContext): void {
  app.post<{ Params: { realm: string }; Body: Form }>(
    '/auth/realms/:realm/protocol/openid-connect/token',
    async (request, reply) => {
      const realm = request.params.realm;
      const window = ctx.limiter.hit(
        `idp:${request.ip}`,
        ctx.knobs.rateLimitPerWindow,
        ctx.knobs.rateLimitWindowMs,
      );
      void reply.headers(rateHeaders(window));
      if (!window.allowed) {
        ctx.counters.rateLimited += 1;
        const wait = Math.max(1, Math.ceil((window.resetAt - ctx.now()) / 1000));
        return reply.code(429).header('retry-after', String(wait)).send();
      }
      if (!(realm in REALM_CLIENT)) return reply.code(404).send({ error: 'Realm does not exist' });
      const form: Form = typeof request.body === 'object' && request.body !== null ? request.body : {};
      const clientId = REALM_CLIENT[realm as Realm];
      if (form.client_id !== clientId) {
        return oauthError(reply, 401, 'invalid_client', 'Invalid client or Invalid client credentials');
      }
      const k = ctx.knobs;
      const respond = (username: string, sid: string) => {
        const accessMs = k.tokenLifetimeSeconds * 1000;
        const refreshMs = k.refreshLifetimeSeconds * 1000;
        const claims = { realm: realm as Realm, azp: clientId, preferred_username: username, sid };
        return reply.send({
          access_token: ctx.tokens.issue({ ...claims, typ: 'Bearer' }, accessMs),
          // Keycloak reports whole seconds; a fractional lifetime is rounded up, so the client
          // believes the token lives slightly longer than it does (as with clock skew).
          expires_in: Math.ceil(k.tokenLifetimeSeconds),
          refresh_expires_in: Math.ceil(k.refreshLifetimeSeconds),
          refresh_token: ctx.tokens.issue({ ...claims, typ: 'Refresh' }, refreshMs),
          token_type: 'Bearer',
          'not-before-policy': 0,
          session_state: sid,
          scope: 'profile email',
        });
      };
      switch (form.grant_type) {
        case 'password': {
          ctx.counters.passwordGrants += 1;
          const { username, password } = form;
          const known = ctx.users ? ctx.users.get(username ?? '') === password : true;
          if (!username || !password || !known) {
            ctx.counters.invalidGrants += 1;
            return oauthError(reply, 401, 'invalid_grant', 'Invalid user credentials');
          }
          return respond(username, randomUUID());
        }
        case 'refresh_token': {
          ctx.counters.refreshGrants += 1;
          const check = ctx.tokens.check(form.refresh_token ?? '', 'Refresh');
          if (!check.ok || check.claims.realm !== realm || check.claims.azp !== clientId) {
            ctx.counters.invalidGrants += 1;
            return oauthError(reply, 400, 'invalid_grant', 'Token is not active');
          }
          return respond(check.claims.preferred_username, check.claims.sid);
        }
        case undefined:
          return oauthError(reply, 400, 'invalid_request', 'Missing form parameter: grant_type');
        default:
          return oauthError(reply, 400, 'unsupported_grant_type', 'Unsupported grant_type');
      }
    },
  );

  app.post<{ Params: { realm: string } }>(
    '/auth/realms/:realm/protocol/openid-connect/logout',
    async (request, reply) => {
      if (!(request.params.realm in REALM_CLIENT))
        return reply.code(404).send({ error: 'Realm does not exist' });
      return reply.code(204).send();
    },
  );
}
