// Liveness (/health: the process answers) and readiness (/ready: this instance can serve).
// Readiness follows what a request needs: Postgres is the source of truth, so without it this
// instance cannot serve (503, and a load balancer should take it out). Redis carries work and
// counters, and everything on the request path survives its loss (creates and reads answer,
// rate limits fail open, the outbox keeps the work), and an outage hits every instance at once:
// it is reported as `degraded` with 200, never as a reason to drain the whole API.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { Problem } from '../schemas/common.ts';
import type { AppDeps } from '../app.ts';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')]),
  checks: Type.Object({
    postgres: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    redis: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  }),
});

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
        summary:
          'Readiness: 200 when this instance can serve (Postgres answers; `degraded` when Redis does not), 503 with Retry-After when it cannot',
        response: { 200: Ready, 503: Problem },
      },
    },
    async () => {
      const [pg, redis] = await Promise.allSettled([
        withTimeout(deps.db.raw('select 1'), 2000),
        withTimeout(deps.redis.ping(), 2000),
      ]);
      const checks = {
        postgres: pg.status === 'fulfilled' ? ('ok' as const) : ('unavailable' as const),
        redis: redis.status === 'fulfilled' ? ('ok' as const) : ('unavailable' as const),
      };
      if (checks.postgres !== 'ok') {
        throw new ApiError('service_unavailable', 'Not ready: postgres unavailable', {
          headers: { 'retry-after': '5' },
          fields: { checks },
        });
      }
      if (checks.redis !== 'ok') return { status: 'degraded' as const, checks };
      return { status: 'ready' as const, checks };
    },
  );
}
