// Liveness (/health: the process answers) and readiness (/ready: this instance can serve).
// Readiness follows what a request needs: Postgres is the source of truth, so without it this
// instance cannot serve (503, and a load balancer should take it out). Redis carries work and
// counters, and everything on the request path survives its loss (creates and reads answer,
// rate limits fail open, the outbox keeps the work), and an outage hits every instance at once:
// it is reported as `degraded` with 200, never as a reason to drain the whole API. Only an
// instance that has not reached Redis even once since it started is not ready (503): its
// REDIS_URL is not shown to be right yet; it comes into service as soon as Redis answers.
// /ready answers from the last result of a background probe (../readiness.ts), within
// milliseconds whatever Postgres and Redis do.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { Problem } from '../schemas/common.ts';
import type { AppDeps } from '../deps.ts';
import { Readiness } from '../readiness.ts';

/** Longest /ready waits for the first probe of a process that has just started. */
const FIRST_PROBE_WAIT_MS = 50;

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')]),
  checks: Type.Object({
    postgres: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    redis: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  }),
});

export default async function healthRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const readiness = new Readiness(deps);
  app.addHook('onReady', async () => readiness.start());
  app.addHook('onClose', async () => readiness.stop());

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
      const { redisReached, ...checks } = await readiness.snapshot(FIRST_PROBE_WAIT_MS);
      if (checks.postgres !== 'ok' || !redisReached) {
        const why = checks.postgres !== 'ok' ? 'postgres unavailable' : 'redis not reached since start';
        throw new ApiError('service_unavailable', `Not ready: ${why}`, {
          headers: { 'retry-after': '5' },
          fields: { checks },
        });
      }
      if (checks.redis !== 'ok') return { status: 'degraded' as const, checks };
      return { status: 'ready' as const, checks };
    },
  );
}
