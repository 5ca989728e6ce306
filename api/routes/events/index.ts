// Events: GET /api/v1/events (the last 30 days; filters type, created_gte, created_lt; cursor
// pagination), GET /api/v1/events/{id}, and POST /api/v1/events/{id}/redeliver, which sends the
// event again, now, with the same id, to the subscribed enabled endpoints (or one of them).
// Scope: manage:webhooks — events carry invoice, client and payment data alike, exactly what the
// webhook endpoints receive, so they are read with the scope that manages those endpoints.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { eventObject } from '../../presenters/webhooks.ts';
import { listEvents } from '../../../db/queries/event-log.ts';
import { requestRedelivery } from '../../../db/queries/webhooks.ts';
import { formatId, parseId } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { loadEndpoint, loadEvent } from '../../lookups.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import { EventObject, ListEventsQuery, RedeliverBody, RedeliverResponse } from '../../schemas/webhooks.ts';
import type { AppDeps } from '../../deps.ts';

const tags = ['events'];
const config = { scope: 'manage:webhooks' as const };

export default async function eventRoutes(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  readEventRoutes(fastify, deps);
  redeliverRoute(fastify, deps);
}

function readEventRoutes(fastify: FastifyInstance, { db }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/events',
    {
      config,
      schema: {
        tags,
        summary: 'List events of the last 30 days, newest first',
        querystring: ListEventsQuery,
        response: { 200: ListOf(EventObject), ...errorResponses(422) },
      },
    },
    async (request) => {
      const q = request.query;
      const { rows, hasMore } = await listEvents(db, tenantOf(request), {
        type: q.type,
        createdGte: q.created_gte,
        createdLt: q.created_lt,
        startingAfter: q.starting_after ? (parseId('event', q.starting_after) ?? undefined) : undefined,
        limit: q.limit ?? 20,
      });
      return { object: 'list' as const, data: rows.map(eventObject), has_more: hasMore };
    },
  );

  app.get(
    '/api/v1/events/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Retrieve an event',
        params: IdParam,
        response: { 200: EventObject, ...errorResponses(404) },
      },
    },
    async (request) => eventObject(await loadEvent(db, tenantOf(request), request.params.id)),
  );
}

function redeliverRoute(fastify: FastifyInstance, { db }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/events/:id/redeliver',
    {
      config,
      schema: {
        tags,
        summary: 'Send an event again now (same id) to its subscribed endpoints',
        params: IdParam,
        body: RedeliverBody,
        response: { 202: RedeliverResponse, ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const event = await loadEvent(db, auth, request.params.id);
      const only =
        request.body.endpoint_id === undefined
          ? null
          : (await loadEndpoint(db, auth, request.body.endpoint_id)).id;
      const endpointIds = await requestRedelivery(db, auth, event, only, request.id);
      return reply.code(202).send({
        object: 'redelivery' as const,
        event_id: formatId('event', event.id),
        endpoint_ids: endpointIds.map((id) => formatId('webhookEndpoint', id)),
      });
    },
  );
}
