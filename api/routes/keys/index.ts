// /api/v1/keys: create, list, roll and revoke API keys of the caller's company and mode.
// A key can only hand out scopes it holds itself, and can only roll or revoke a key whose every
// scope it holds (403 insufficient_scope naming the missing ones, nothing changed): a
// `manage:keys` key must not take over or lock out a more powerful key. Reads show keys
// redacted only (name, scopes, last four characters), never a secret.
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  createApiKey,
  getApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
} from '../../../db/queries/api-keys.ts';
import { parseId } from '../../../domain/ids.ts';
import { missingScopes } from '../../../domain/scopes.ts';
import { tenantOf, type AuthContext } from '../../auth.ts';
import { ApiError, notFound } from '../../errors.ts';
import { keyObject } from '../../presenters/keys.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import { CreateKeyBody, KeyObject, KeyWithSecret, RollKeyBody } from '../../schemas/keys.ts';
import type { AppDeps } from '../../deps.ts';
import { announceKeyChange } from '../../../platform/redis-keys.ts';
import { checkKeyLimit } from '../../rate-limit.ts';

const tags = ['keys'];

export default async function keyRoutes(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  createAndListRoutes(fastify, deps);
  rollAndRevokeRoutes(fastify, deps);
}

/** The caller's key of this id, which the caller must be allowed to act on (see the header). */
async function loadKey(db: Knex, auth: AuthContext, raw: string, action: 'roll' | 'revoke') {
  const id = parseId('apiKey', raw);
  const key = id === null ? undefined : await getApiKey(db, auth.companyId, auth.livemode, id);
  if (!key) throw notFound('API key', raw);
  requireScopesOf(auth.scopes, key.scopes, action);
  return key;
}

function createAndListRoutes(fastify: FastifyInstance, { db, redis, config }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/keys',
    {
      config: { scope: 'manage:keys' },
      schema: {
        tags,
        summary: 'Create an API key',
        body: CreateKeyBody,
        response: { 201: KeyWithSecret, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      requireScopesOf(auth.scopes, request.body.scopes, 'grant');
      const rateLimitPerSecond = checkKeyLimit(auth, request.body.rate_limit_per_second);
      const { key, secret } = await createApiKey(db, {
        companyId: auth.companyId,
        livemode: auth.livemode,
        name: request.body.name ?? '',
        scopes: request.body.scopes,
        rateLimitPerSecond,
      });
      await announceKeyChange(redis, config.queuePrefix); // API processes forget the secrets they knew as unknown
      return reply.code(201).send({ ...keyObject(key), secret });
    },
  );

  app.get(
    '/api/v1/keys',
    {
      config: { scope: 'manage:keys' },
      schema: { tags, summary: 'List API keys', response: { 200: ListOf(KeyObject), ...errorResponses() } },
    },
    async (request) => {
      const auth = tenantOf(request);
      const keys = await listApiKeys(db, auth.companyId, auth.livemode);
      return { object: 'list' as const, data: keys.map(keyObject), has_more: false };
    },
  );
}

function rollAndRevokeRoutes(fastify: FastifyInstance, { db, redis, config }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/keys/:id/roll',
    {
      config: { scope: 'manage:keys' },
      schema: {
        tags,
        summary: 'Roll an API key: a new secret, older ones expire after a grace period',
        params: IdParam,
        body: RollKeyBody,
        response: { 200: KeyWithSecret, ...errorResponses(404, 409, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const key = await loadKey(db, auth, request.params.id, 'roll');
      if (key.revokedAt) throw new ApiError('invalid_state', 'A revoked key cannot be rolled');
      const secret = await rollApiKey(db, key, request.body.grace_period_seconds ?? 86_400);
      await announceKeyChange(redis, config.queuePrefix);
      const fresh = (await getApiKey(db, auth.companyId, auth.livemode, key.id))!;
      return { ...keyObject(fresh), secret };
    },
  );

  app.delete(
    '/api/v1/keys/:id',
    {
      config: { scope: 'manage:keys' },
      schema: {
        tags,
        summary: 'Revoke an API key',
        params: IdParam,
        response: { 200: KeyObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const key = await loadKey(db, auth, request.params.id, 'revoke');
      await revokeApiKey(db, key.id);
      await announceKeyChange(redis, config.queuePrefix);
      return keyObject((await getApiKey(db, auth.companyId, auth.livemode, key.id))!);
    },
  );
}

const ACTION_TEXT = {
  grant: 'A key cannot grant scopes it does not hold',
  roll: 'A key can only roll keys whose every scope it holds; it lacks',
  revoke: 'A key can only revoke keys whose every scope it holds; it lacks',
};

/** 403 insufficient_scope naming what the caller lacks of `wanted`; nothing has been changed yet. */
function requireScopesOf(
  held: readonly string[],
  wanted: readonly string[],
  action: keyof typeof ACTION_TEXT,
): void {
  const missing = missingScopes(held, wanted);
  if (missing.length)
    throw new ApiError('insufficient_scope', `${ACTION_TEXT[action]}: ${missing.join(', ')}`, {
      fields: { required_scope: missing },
    });
}
