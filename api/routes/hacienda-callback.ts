// POST /hacienda/callback: Hacienda's (or the simulator's) notice that a clave reached a final
// state. It is a hint, never trusted as the verdict: the invoice's delayed status job is promoted
// so it asks Hacienda at once. The URL carries an HMAC of the clave so strangers cannot prod it.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { chunkJobId, invoiceJobId } from '../../jobs/catalogue.ts';
import { flowOfClave } from '../../db/queries/invoice-flow.ts';
import { callbackToken } from '../../jobs/callback-token.ts';
import { wakeStatusJob } from '../../jobs/status-wake.ts';
import type { AppDeps } from '../app.ts';

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
        querystring: Type.Object({ t: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: { 202: Type.Object({ received: Type.Boolean() }) },
      },
    },
    async (request, reply) => {
      const { clave } = request.body as { clave: string };
      const given = Buffer.from((request.query as { t?: string }).t ?? '');
      const expected = Buffer.from(callbackToken(deps.config.secretsKey, clave));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return reply.code(202).send({ received: false });
      }
      const invoice = await flowOfClave(deps.db, clave);
      if (invoice && deps.statusQueue) {
        // The status job of the chunk that carries the invoice (or of its own flow, before chunks).
        const jobId = invoice.flowChunk
          ? chunkJobId(invoice.flowChunk, 'status')
          : invoiceJobId(invoice.id, 'status');
        const queue =
          typeof deps.statusQueue === 'function' ? deps.statusQueue(invoice.companyId) : deps.statusQueue;
        await wakeStatusJob(queue, deps.redis, jobId);
      }
      return reply.code(202).send({ received: true });
    },
  );
}
