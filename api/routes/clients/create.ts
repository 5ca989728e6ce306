// POST /api/v1/clients: creates a client with its addresses. The identification type (Nota 4)
// is inferred from the number unless given; a duplicate identification in the company → 409.
// Idempotency-Key works as for invoices: the same request replays the stored 201 (with
// Idempotent-Replayed: true), another body under the key → 422, while the first runs → 409.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createClient, DuplicateClientError } from '../../../db/queries/clients.ts';
import { createClientOnce } from '../../../db/queries/client-create.ts';
import {
  findIdempotent,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
} from '../../../db/queries/idempotency.ts';
import type { Client } from '../../../db/models/index.ts';
import { recordEvents } from '../../../db/queries/events.ts';
import { formatId } from '../../../domain/ids.ts';
import { resolveIdentification } from '../../../domain/identification.ts';
import { validateClientFields } from '../../../domain/party-rules.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, validationError } from '../../errors.ts';
import { idempotencyFromRequest } from '../../idempotency.ts';
import { clientObject } from '../../../db/public-objects.ts';
import { ClientObject, CreateClientBody } from '../../schemas/clients.ts';
import { errorResponses, IdempotencyHeaders } from '../../schemas/common.ts';
import type { AppDeps } from '../../app.ts';
import type { FastifyReply } from 'fastify';
import type { Knex } from 'knex';

function replay(reply: FastifyReply, response: { status: number; body: unknown }) {
  return reply
    .code(response.status)
    .header('idempotent-replayed', 'true')
    .send(response.body as never);
}

export const CLIENT_CREATE_ROUTE = 'POST /api/v1/clients';

const reused = () =>
  new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');

export default async function createClientRoute(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/clients',
    {
      config: { scope: 'write:clients' },
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
      const body = request.body;
      const idem = idempotencyFromRequest(request, CLIENT_CREATE_ROUTE);
      // 1. A finished request under this key is replayed before anything else is checked.
      if (idem) {
        const done = await findIdempotent(db, auth, idem);
        if (done) {
          if (!done.hash.equals(idem.hash) || done.route !== idem.route) throw reused();
          return replay(reply, done.response);
        }
      }
      const ident = resolveIdentification(body.cedula, body.identification_type);
      if (!ident.ok) throw validationError([{ path: '/cedula', code: ident.code, message: ident.message }]);
      // The Receptor's XSD facets and the territorial division (domain/party-rules.ts).
      const problems = validateClientFields(body);
      if (problems.length) throw validationError(problems);
      const tenant = { companyId: auth.companyId, livemode: auth.livemode };
      const input = {
        idType: ident.type,
        idNumber: ident.number,
        name: body.name.trim(),
        commercialName: body.commercial_name?.trim() ?? null,
        email: body.email ?? null,
        phone: body.phone ?? null,
        phoneCountry: body.phone ? (body.phone_country_code ?? '506') : null,
        activityCode: body.activity_code ?? null,
        foreignAddress: body.foreign_address?.trim() ?? null,
        metadata: body.metadata ?? {},
        addresses: (body.addresses ?? []).map((a) => ({
          provincia: a.provincia,
          canton: a.canton,
          distrito: a.distrito,
          barrio: a.barrio?.trim() ?? null,
          otrasSenas: a.otras_senas.trim(),
        })),
      };
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
        if (outcome.kind === 'replay') return replay(reply, outcome.response);
        return reply.code(201).send(outcome.response.body as never);
      } catch (err) {
        if (err instanceof IdempotencyKeyInUse) {
          throw new ApiError(
            'idempotency_key_in_use',
            'A request with this Idempotency-Key is still being processed; retry shortly',
            { headers: { 'retry-after': '1' } },
          );
        }
        if (err instanceof IdempotencyKeyReused) throw reused();
        if (err instanceof DuplicateClientError) {
          throw new ApiError(
            'duplicate_client',
            `A client with identification ${ident.number} already exists`,
            {
              fields: { existing_client_id: formatId('client', err.existingId) },
            },
          );
        }
        throw err;
      }
    },
  );
}
