// PATCH /api/v1/clients/{id} (the create's fields, each given one replacing the stored one, the
// whole then checked like a create: a new identification goes through the identification rules
// again), POST /api/v1/clients/{id}/archive and /unarchive. An archived client is left out of the
// list unless include_archived=true and refused for new documents (422 client_archived).
// A document already signed keeps the receptor it was signed with everywhere: its XML, the request
// sent to Hacienda, its PDF and its emails (invoice_documents.parties, jobs/README.md).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getClient, setClientArchived, updateClient } from '../../../db/queries/clients.ts';
import { parseRef } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { clientInput, duplicateClientProblem, mergedClientBody } from '../../client-fields.ts';
import { notFound } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import { clientObject } from '../../presenters/clients.ts';
import { clientBodyWithLookup } from '../../public-data.ts';
import { ClientObject, UpdateClientBody } from '../../schemas/clients.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';

const UPDATE =
  'Changes the fields given (null clears an optional one; `addresses` replaces them all) and checks ' +
  'the result like a create: a new `cedula` is read again from its shape unless ' +
  '`identification_type` (or `lookup: true`) says its type; its identification taken by another ' +
  'client is 409 duplicate_client. A document already signed keeps the receptor it was signed with: ' +
  'its XML, the request sent to Hacienda, its PDF and its emails (to the address it was signed with) ' +
  'do not change; documents not signed yet take the change.';

export default async function updateClientRoutes(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['clients'];

  app.patch(
    '/api/v1/clients/:id',
    {
      config: { scope: 'write:clients' },
      schema: {
        tags,
        summary: 'Update a client',
        description: UPDATE,
        params: IdParam,
        body: UpdateClientBody,
        response: { 200: ClientObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const ref = parseRef('client', request.params.id);
      const stored = ref && (await getClient(db, auth, ref));
      if (!stored) throw notFound('client', request.params.id);
      const body = await clientBodyWithLookup(db, config, mergedClientBody(stored, request.body));
      const { addresses, ...fields } = clientInput(body);
      try {
        const updated = await updateClient(db, auth, stored.id, {
          ...fields,
          ...(request.body.addresses !== undefined ? { addresses } : {}),
        });
        if (!updated) throw notFound('client', request.params.id);
        return clientObject(updated);
      } catch (err) {
        throw duplicateClientProblem(err, fields.idNumber);
      }
    },
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    app.post(
      `/api/v1/clients/:id/${action}`,
      {
        config: { scope: 'write:clients' },
        schema: {
          tags,
          summary: archived ? 'Archive a client' : 'Unarchive a client',
          description: archived
            ? 'Leaves the client out of lists (unless include_archived=true) and refuses new documents ' +
              'to it (422 client_archived); its documents and balance stay. Archiving twice is harmless.'
            : 'Brings an archived client back into the lists and to new documents.',
          params: IdParam,
          response: { 200: ClientObject, ...errorResponses(404) },
        },
      },
      async (request) => {
        const auth = tenantOf(request);
        const ref = parseRef('client', request.params.id);
        const stored = ref && (await getClient(db, auth, ref));
        const client = stored && (await setClientArchived(db, auth, stored.id, archived));
        if (!client) throw notFound('client', request.params.id);
        return clientObject(client);
      },
    );
  }
}
