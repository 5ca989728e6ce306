// GET /api/v1/usage and GET /api/v1/usage/keys (scope read:usage): requests per key, route and
// status class over time for the caller's company and mode, and the keys to chart them by.
// Reading first flushes the counters still in Redis, so the answer includes the last seconds.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { getApiKey, listApiKeys } from '../../../db/queries/api-keys.ts';
import { readUsage, type Granularity } from '../../../db/queries/usage.ts';
import { keyObject } from '../../presenters/keys.ts';
import { usageSeries } from '../../presenters/usage.ts';
import { formatId, parseId } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { notFound, validationError } from '../../errors.ts';
import { errorResponses, ListOf } from '../../schemas/common.ts';
import { KeyObject } from '../../schemas/keys.ts';
import { DEFAULT_RANGE_MS, MAX_RANGE_MS, UsageObject, UsageQuery } from '../../schemas/usage.ts';
import type { AppDeps } from '../../deps.ts';
import type { UsageRecorder } from '../../usage/recorder.ts';

type UsageDeps = AppDeps & { usage: UsageRecorder };
const tags = ['usage'];

/** The series' granularity and time range: `to` now and `from` a default span before, unless given. */
function usageRange(q: Static<typeof UsageQuery>) {
  const granularity = (q.granularity ?? 'hour') as Granularity;
  const to = q.to ? new Date(q.to) : new Date();
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - DEFAULT_RANGE_MS[granularity]);
  if (from.getTime() >= to.getTime())
    throw validationError([
      { path: 'querystring:/from', code: 'out_of_range', message: 'must be before to' },
    ]);
  if (to.getTime() - from.getTime() > MAX_RANGE_MS[granularity])
    throw validationError([
      {
        path: 'querystring:/from',
        code: 'out_of_range',
        message: `a ${granularity} series spans at most ${MAX_RANGE_MS[granularity] / 86_400_000} day(s)`,
      },
    ]);
  return { granularity, from, to };
}

export default async function usageRoutes(fastify: FastifyInstance, deps: UsageDeps): Promise<void> {
  usageSeriesRoute(fastify, deps);
  usageKeysRoute(fastify, deps);
}

function usageSeriesRoute(fastify: FastifyInstance, { db, usage }: UsageDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/usage',
    {
      config: { scope: 'read:usage' },
      schema: {
        tags,
        summary: 'Requests per key, route and status class over time',
        querystring: UsageQuery,
        response: { 200: UsageObject, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const q = request.query;
      const { granularity, from, to } = usageRange(q);
      let keyId: number | undefined;
      if (q.key_id !== undefined) {
        keyId = parseId('apiKey', q.key_id) ?? undefined;
        if (keyId === undefined || !(await getApiKey(db, auth.companyId, auth.livemode, keyId)))
          throw notFound('API key', q.key_id);
      }
      await usage.flush().catch((err: unknown) => request.log.warn({ err }, 'usage flush failed'));
      const rows = await readUsage(db, {
        companyId: auth.companyId,
        livemode: auth.livemode,
        keyId,
        from,
        to,
        granularity,
      });
      const { totals, data } = usageSeries(rows);
      return {
        object: 'usage' as const,
        livemode: auth.livemode,
        key_id: keyId !== undefined ? formatId('apiKey', keyId) : null,
        granularity,
        from: from.toISOString(),
        to: to.toISOString(),
        totals,
        data,
      };
    },
  );
}

function usageKeysRoute(fastify: FastifyInstance, { db }: UsageDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/usage/keys',
    {
      config: { scope: 'read:usage' },
      schema: {
        tags,
        summary: "The company's API keys in this mode (redacted), for usage by key",
        response: { 200: ListOf(KeyObject), ...errorResponses() },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const keys = await listApiKeys(db, auth.companyId, auth.livemode);
      return { object: 'list' as const, data: keys.map(keyObject), has_more: false };
    },
  );
}
