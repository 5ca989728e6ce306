// Authentication and tenancy: resolves `Authorization: Bearer ik_…` to a company, a mode
// (live/sandbox) and a set of scopes, on every /api/v1 request. Routes declare the scope they
// need in `config.scope`; a key without it gets 403. Plans without the API get 403 too (keys only).
// A request with no Authorization header but the session cookie is a signed-in person
// (api/sessions.ts): on tenant routes the `Factura-Company` and `Factura-Mode` headers name the
// company (of which the person must be a member) and the mode, and the person's role gives the
// scopes; the same `config.scope` rule then applies. Routes with `config.person` need a person and
// no company.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { findKeyBySecret, touchApiKey } from '../db/queries/api-keys.ts';
import { API_KEY_RE, planIncludesApi, type Scope } from '../domain/scopes.ts';
import { membershipOf } from '../db/queries/memberships.ts';
import { parseId } from '../domain/ids.ts';
import { ROLE_SCOPES, type Role } from '../domain/roles.ts';
import { ApiError } from './errors.ts';
import type { KeyLookup } from './key-lookup.ts';
import { isApiRequest } from './request-path.ts';
import { cookieToken, sessionPerson, type Person } from './sessions.ts';

export type Actor =
  { type: 'key'; keyId: number } | { type: 'user'; userId: number; sessionId: number; role: Role };

export interface AuthContext {
  /** The API key of the request; null when a person acts through a session. */
  keyId: number | null;
  actor: Actor;
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
    if (!header) return authenticatePerson(db, request);
    if (request.routeOptions.config?.person)
      throw new ApiError(
        'session_required',
        'This route is for people signed in to the application, not API keys',
      );
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
      actor: { type: 'key', keyId: record.keyId },
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
      throw new ApiError('insufficient_scope', `${callerName(request)} lacks the ${config.scope} scope`, {
        fields: { required_scope: config.scope },
      });
    }
    if (config?.anyScope && !config.anyScope.some((s) => request.auth!.scopes.includes(s))) {
      throw new ApiError(
        'insufficient_scope',
        `${callerName(request)} needs one of: ${config.anyScope.join(', ')}`,
        {
          fields: { required_scope: config.anyScope },
        },
      );
    }
  });
}

const callerName = (request: FastifyRequest) =>
  request.auth?.actor.type === 'user' ? 'Your role in this company' : 'This API key';

/** A request without Authorization: the session cookie's person, else 401. */
async function authenticatePerson(db: Knex, request: FastifyRequest): Promise<void> {
  const person = await sessionPerson(db, request);
  if (!person) {
    if (cookieToken(request)) throw new ApiError('session_invalid', 'Your session has ended; sign in again');
    throw unauthorized('missing_api_key', 'Send your API key as Authorization: Bearer <key>');
  }
  request.person = person;
  if (request.routeOptions.config?.person) return;
  request.auth = await personContext(db, request, person);
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return typeof v === 'string' ? v.trim() : undefined;
}

/** The company and mode a person acts in (headers Factura-Company, Factura-Mode) with their role's scopes. */
async function personContext(db: Knex, request: FastifyRequest, person: Person): Promise<AuthContext> {
  const given = headerOf(request, 'factura-company');
  if (!given)
    throw new ApiError('company_required', 'Say which company you act for: header Factura-Company: cmp_…', {
      errors: [{ path: 'header:factura-company', code: 'required', message: 'is required' }],
    });
  const companyId = parseId('company', given);
  const member = companyId === null ? undefined : await membershipOf(db, person.userId, companyId);
  if (!member) throw new ApiError('not_a_member', `You are not a member of company ${given}`);
  const mode = headerOf(request, 'factura-mode') ?? 'test';
  if (mode !== 'test' && mode !== 'live')
    throw new ApiError('invalid_request', 'Factura-Mode is test or live', {
      errors: [{ path: 'header:factura-mode', code: 'invalid_value', message: 'must be one of test, live' }],
    });
  if (mode === 'live' && !member.liveEnabled)
    throw new ApiError('live_not_enabled', 'This company has not gone live yet; use Factura-Mode: test');
  return {
    keyId: null,
    actor: { type: 'user', userId: person.userId, sessionId: person.sessionId, role: member.role },
    companyId: Number(member.companyId),
    livemode: mode === 'live',
    scopes: [...ROLE_SCOPES[member.role]],
    plan: member.plan,
    rateLimitPerSecond: member.rateLimitPerSecond,
    keyRateLimitPerSecond: null,
  };
}

/** The signed-in person of a `config.person` route (always present after the auth hook). */
export function personOf(request: FastifyRequest): Person {
  if (!request.person) throw new ApiError('session_required', 'Sign in first');
  return request.person;
}

/** The authenticated context of a request under /api/v1 (always present after the auth hook). */
export function tenantOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new ApiError('missing_api_key', 'Authentication required');
  return request.auth;
}

export type { FastifyReply };
