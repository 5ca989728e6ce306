// POST /hacienda/callback: Hacienda's (or the simulator's) notice that a clave reached a final
// state. It is a hint, never trusted as the verdict: the invoice's delayed status job is promoted
// so it asks Hacienda at once. The URL carries an HMAC of the clave (and of the status job it
// names, jobs/invoice-flow/callback-token.ts) so strangers cannot prod it.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { chunkJobId } from '../../jobs/invoice-flow/queues.ts';
import { flowOfClave } from '../../db/queries/invoice-flow.ts';
import { callbackToken } from '../../jobs/invoice-flow/callback-token.ts';
import { wakeStatusJob } from '../../jobs/invoice-flow/status-wake.ts';
import type { AppDeps } from '../deps.ts';

const Body = Type.Object(
  { clave: Type.String({ minLength: 50, maxLength: 50 }) },
  {
    additionalProperties: true,
    examples: [{ clave: '50622112600310112345600100001010000000001100000001', 'ind-estado': 'aceptado' }],
  },
);

export default async function haciendaCallbackRoute(app: FastifyInstance, deps: AppDeps): Promise<void> {
  app.post(
    '/hacienda/callback',
    {
      config: { public: true },
      schema: {
        tags: ['operations'],
        summary: "Hacienda's result callback (a hint: the status is confirmed by polling)",
        body: Body,
        querystring: Type.Object({
          t: Type.Optional(Type.String({ maxLength: 64, description: 'HMAC of the clave (and of c and j)' })),
          c: Type.Optional(
            Type.String({ pattern: '^[0-9]{1,18}$', description: 'the company whose status job to wake' }),
          ),
          j: Type.Optional(
            Type.String({ minLength: 1, maxLength: 100, description: 'the status job to wake' }),
          ),
        }),
        response: { 202: Type.Object({ received: Type.Boolean() }) },
      },
    },
    async (request, reply) => {
      const { clave } = request.body as { clave: string };
      const q = request.query as { t?: string; c?: string; j?: string };
      const target =
        q.c !== undefined && q.j !== undefined ? { companyId: Number(q.c), jobId: q.j } : undefined;
      const given = Buffer.from(q.t ?? '');
      const expected = Buffer.from(callbackToken(deps.config.secretsKey, clave, target));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return reply.code(202).send({ received: false });
      }
      if (!deps.statusQueue) return reply.code(202).send({ received: true });
      const queueOf = (companyId: number) =>
        typeof deps.statusQueue === 'function' ? deps.statusQueue(companyId) : deps.statusQueue!;
      if (target) {
        // The URL names the chunk's status job (signed with the clave): no database read.
        await wakeStatusJob(queueOf(target.companyId), deps.redis, target.jobId);
        return reply.code(202).send({ received: true });
      }
      const invoice = await flowOfClave(deps.db, clave);
      if (invoice?.flowChunk) {
        // The status job of the chunk that carries the invoice.
        const jobId = chunkJobId(invoice.flowChunk, 'status');
        await wakeStatusJob(queueOf(invoice.companyId), deps.redis, jobId);
      }
      return reply.code(202).send({ received: true });
    },
  );
}
