// /api/v1/keys: create, list, roll and revoke API keys of the caller's company and mode.
// A key can only hand out scopes it holds itself.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  createApiKey,
  getApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
} from '../../../db/queries/api-keys.ts';
import { parseId } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, notFound } from '../../errors.ts';
import { keyObject } from '../../../db/public-objects.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import { CreateKeyBody, KeyObject, KeyWithSecret, RollKeyBody } from '../../schemas/keys.ts';
import type { AppDeps } from '../../app.ts';
import { announceKeyChange } from '../../../jobs/redis.ts';

export default async function keyRoutes(fastify: FastifyInstance, { db, redis }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['keys'];

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
      const missing = request.body.scopes.filter((s) => !(auth.scopes as string[]).includes(s));
      if (missing.length) {
        throw new ApiError(
          'insufficient_scope',
          `A key cannot grant scopes it does not hold: ${missing.join(', ')}`,
          {
            fields: { required_scope: missing },
          },
        );
      }
      const { key, secret } = await createApiKey(db, {
        companyId: auth.companyId,
        livemode: auth.livemode,
        name: request.body.name ?? '',
        scopes: request.body.scopes,
      });
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

  const loadKey = async (companyId: number, livemode: boolean, raw: string) => {
    const id = parseId('apiKey', raw);
    const key = id === null ? undefined : await getApiKey(db, companyId, livemode, id);
    if (!key) throw notFound('API key', raw);
    return key;
  };

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
      const key = await loadKey(auth.companyId, auth.livemode, request.params.id);
      if (key.revokedAt) throw new ApiError('invalid_state', 'A revoked key cannot be rolled');
      const secret = await rollApiKey(db, key, request.body.grace_period_seconds ?? 86_400);
      await announceKeyChange(redis);
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
      const key = await loadKey(auth.companyId, auth.livemode, request.params.id);
      await revokeApiKey(db, key.id);
      await announceKeyChange(redis);
      return keyObject((await getApiKey(db, auth.companyId, auth.livemode, key.id))!);
    },
  );
}
