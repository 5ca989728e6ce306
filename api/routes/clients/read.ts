// GET /api/v1/clients/{id} (cli_ id or UUID) and GET /api/v1/clients with filters: cedula
// (exact after separators are removed; a física written with a leading zero, 01-0456-0789, also
// finds 104560789), name (case- and accent-insensitive contains), balance range, cursor pagination;
// archived clients only with include_archived=true.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getClient, listClients, normalizeNameSearch } from '../../../db/queries/clients.ts';
import { parseId, parseRef } from '../../../domain/ids.ts';
import { identificationSearchNumbers } from '../../../domain/identification.ts';
import { tenantOf } from '../../auth.ts';
import { notFound } from '../../errors.ts';
import { clientObject } from '../../presenters/clients.ts';
import { ClientObject, ListClientsQuery } from '../../schemas/clients.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';

export default async function readClientRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['clients'];

  app.get(
    '/api/v1/clients/:id',
    {
      config: { scope: 'read:clients' },
      schema: {
        tags,
        summary: 'Retrieve a client',
        params: IdParam,
        response: { 200: ClientObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const ref = parseRef('client', request.params.id);
      const client = ref && (await getClient(db, auth, ref));
      if (!client) throw notFound('client', request.params.id);
      return clientObject(client);
    },
  );

  app.get(
    '/api/v1/clients',
    {
      config: { scope: 'read:clients' },
      schema: {
        tags,
        summary: 'List clients',
        querystring: ListClientsQuery,
        response: { 200: ListOf(ClientObject), ...errorResponses(422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const q = request.query;
      const { rows, hasMore } = await listClients(db, auth, {
        idNumbers: q.cedula !== undefined ? identificationSearchNumbers(q.cedula) : undefined,
        nameContains: q.name !== undefined ? normalizeNameSearch(q.name) : undefined,
        balanceGte: q.balance_gte,
        balanceLte: q.balance_lte,
        startingAfter: q.starting_after ? (parseId('client', q.starting_after) ?? undefined) : undefined,
        includeArchived: q.include_archived === true,
        limit: q.limit ?? 20,
      });
      return { object: 'list' as const, data: rows.map(clientObject), has_more: hasMore };
    },
  );
}
