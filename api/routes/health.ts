// Liveness (/health: the process answers) and readiness (/ready: Postgres and Redis answer).
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { Problem } from '../schemas/common.ts';
import type { AppDeps } from '../app.ts';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.String()) });

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export default async function healthRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.get(
    '/health',
    {
      config: { public: true },
      schema: { tags: ['operations'], summary: 'Liveness: the process answers', response: { 200: Health } },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/ready',
    {
      config: { public: true },
      schema: {
        tags: ['operations'],
        summary: 'Readiness: Postgres and Redis answer (503 with Retry-After when not)',
        response: { 200: Ready, 503: Problem },
      },
    },
    async () => {
      const checks: Record<string, string> = {};
      const [pg, redis] = await Promise.allSettled([
        withTimeout(deps.db.raw('select 1'), 2000),
        withTimeout(deps.redis.ping(), 2000),
      ]);
      checks.postgres = pg.status === 'fulfilled' ? 'ok' : 'unavailable';
      checks.redis = redis.status === 'fulfilled' ? 'ok' : 'unavailable';
      if (checks.postgres !== 'ok' || checks.redis !== 'ok') {
        const down = Object.entries(checks)
          .filter(([, v]) => v !== 'ok')
          .map(([k]) => k);
        throw new ApiError('service_unavailable', `Not ready: ${down.join(' and ')} unavailable`, {
          headers: { 'retry-after': '5' },
          fields: { checks },
        });
      }
      return { status: 'ready', checks };
    },
  );
}
