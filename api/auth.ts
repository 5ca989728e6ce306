// Authentication and tenancy: resolves `Authorization: Bearer ik_…` to a company, a mode
// (live/sandbox) and a set of scopes, on every /api/v1 request. Routes declare the scope they
// need in `config.scope`; a key without it gets 403. Plans without the API get 403 too.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { findKeyBySecret, touchApiKey } from '../db/queries/api-keys.ts';
import { API_KEY_RE, planIncludesApi, type Scope } from '../domain/scopes.ts';
import { ApiError } from './errors.ts';
import type { KeyLookup } from './key-lookup.ts';
import { isApiRequest } from './request-path.ts';

export interface AuthContext {
  keyId: number;
  companyId: number;
  livemode: boolean;
  scopes: Scope[];
  plan: string;
  rateLimitPerSecond: number | null;
  keyRateLimitPerSecond: number | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** The scope a route requires; routes without one under /api/v1 need only a valid key. */
    scope?: Scope;
    /** Alternative scopes, any of which grants access (checked by the route for finer rules). */
    anyScope?: Scope[];
    /** Routes outside the authenticated API (health, docs). */
    public?: boolean;
  }
}

const challenge = (error: string, description: string) =>
  `Bearer realm="api", error="${error}", error_description="${description}"`;

function unauthorized(
  code: 'missing_api_key' | 'invalid_api_key' | 'api_key_expired' | 'api_key_revoked',
  detail: string,
) {
  const error = code === 'missing_api_key' ? 'invalid_request' : 'invalid_token';
  return new ApiError(code, detail, { headers: { 'www-authenticate': challenge(error, detail) } });
}

export function registerAuth(app: FastifyInstance, db: Knex, keys: KeyLookup | null = null): void {
  app.decorateRequest('auth', null);

  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!isApiRequest(request)) return;
    if (request.routeOptions.config?.public) return;
    const header = request.headers.authorization;
    if (!header) throw unauthorized('missing_api_key', 'Send your API key as Authorization: Bearer <key>');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const secret = match?.[1];
    if (!secret || !API_KEY_RE.test(secret)) {
      throw unauthorized('invalid_api_key', 'The API key is malformed');
    }
    const record = keys ? await keys.find(request, secret) : ((await findKeyBySecret(db, secret)) ?? null);
    if (!record) throw unauthorized('invalid_api_key', 'The API key is not valid');
    if (record.revokedAt) throw unauthorized('api_key_revoked', 'The API key has been revoked');
    if (record.expiresAt && record.expiresAt.getTime() <= Date.now()) {
      throw unauthorized('api_key_expired', 'This secret of the API key has expired; use the rolled secret');
    }
    if (!planIncludesApi(record.plan)) {
      throw new ApiError(
        'plan_not_included',
        `The ${record.plan} plan does not include the API; upgrade to Business or Corporate`,
      );
    }
    request.auth = {
      keyId: record.keyId,
      companyId: record.companyId,
      livemode: record.livemode,
      scopes: record.scopes as Scope[],
      plan: record.plan,
      rateLimitPerSecond: record.rateLimitPerSecond,
      keyRateLimitPerSecond: record.keyRateLimitPerSecond,
    };
    if (!record.lastUsedAt || Date.now() - record.lastUsedAt.getTime() > 60_000) {
      record.lastUsedAt = new Date(); // the cached copy too: one write a minute per key
      touchApiKey(db, record.keyId).catch((err: unknown) =>
        request.log.warn({ err }, 'last_used_at update failed'),
      );
    }
  });

  // Scopes are checked before the body is validated, so a key without the scope learns nothing
  // about the route's input rules.
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    if (!request.auth) return;
    if (config?.scope && !request.auth.scopes.includes(config.scope)) {
      throw new ApiError('insufficient_scope', `This API key lacks the ${config.scope} scope`, {
        fields: { required_scope: config.scope },
      });
    }
    if (config?.anyScope && !config.anyScope.some((s) => request.auth!.scopes.includes(s))) {
      throw new ApiError('insufficient_scope', `This API key needs one of: ${config.anyScope.join(', ')}`, {
        fields: { required_scope: config.anyScope },
      });
    }
  });
}

/** The authenticated context of a request under /api/v1 (always present after the auth hook). */
export function tenantOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new ApiError('missing_api_key', 'Authentication required');
  return request.auth;
}

export type { FastifyReply };
