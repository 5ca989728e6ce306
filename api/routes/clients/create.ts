// POST /api/v1/clients: creates a client with its addresses. The identification type (Nota 4)
// is the one given, or taken from Hacienda's register with `lookup: true` (api/public-data.ts,
// with the name when none is given), or read from the number only when one type alone has its
// shape (a 10-digit number may be a jurídica or a NITE: 422 ambiguous_identification,
// domain/identification.ts); a duplicate identification in the company → 409.
// Idempotency-Key works as for invoices: the same request replays the stored 201 (with
// Idempotent-Replayed: true), another body under the key → 422, while the first runs → 409.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createClient } from '../../../db/queries/clients.ts';
import { createClientOnce } from '../../../db/queries/client-create.ts';
import type { Client } from '../../../db/models/index.ts';
import { recordEvents } from '../../../db/queries/events.ts';
import { tenantOf } from '../../auth.ts';
import { clientInput, duplicateClientProblem } from '../../client-fields.ts';
import { clientBodyWithLookup } from '../../public-data.ts';
import { sendReplay } from '../../plugins/idempotency.ts';
import { clientObject } from '../../presenters/clients.ts';
import { ClientObject, CreateClientBody } from '../../schemas/clients.ts';
import { errorResponses, IdempotencyHeaders } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';
import type { Knex } from 'knex';

export default async function createClientRoute(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/clients',
    {
      config: { scope: 'write:clients', idempotency: {} },
      schema: {
        tags: ['clients'],
        summary: 'Create a client',
        body: CreateClientBody,
        headers: IdempotencyHeaders,
        response: { 201: ClientObject, ...errorResponses(409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const body = await clientBodyWithLookup(db, config, request.body);
      const idem = request.idempotency;
      const input = clientInput(body);
      const tenant = { companyId: auth.companyId, livemode: auth.livemode };
      const onCreated = async (trx: Knex.Transaction, created: Client) => {
        created.addresses = (created.addresses ?? []).sort((a, b) => a.position - b.position);
        await recordEvents(trx, [
          {
            ...tenant,
            type: 'client.created',
            data: clientObject(created),
            requestId: request.id,
          },
        ]);
      };
      try {
        if (!idem)
          return reply.code(201).send(clientObject(await createClient(db, tenant, input, onCreated)));
        const outcome = await createClientOnce(db, tenant, input, idem, onCreated, clientObject);
        if (outcome.kind === 'replay') return sendReplay(reply, outcome.response);
        return reply.code(201).send(clientObject(outcome.client));
      } catch (err) {
        throw duplicateClientProblem(err, input.idNumber);
      }
    },
  );
}
