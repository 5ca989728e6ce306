// GET /api/v1/webhook_endpoints/{id}/deliveries: what was sent to an endpoint, newest first —
// each delivery with every attempt (time, HTTP status, duration, error, 1 KB of the answer).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deliveryObject } from '../../presenters/webhooks.ts';
import { listDeliveries } from '../../../db/queries/webhooks.ts';
import { parseId } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import { DeliveryObject, ListDeliveriesQuery } from '../../schemas/webhooks.ts';
import type { AppDeps } from '../../deps.ts';
import { loadEndpoint } from '../../lookups.ts';

export default async function deliveryRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/webhook_endpoints/:id/deliveries',
    {
      config: { scope: 'manage:webhooks' },
      schema: {
        tags: ['webhooks'],
        summary: "An endpoint's deliveries and their attempts",
        params: IdParam,
        querystring: ListDeliveriesQuery,
        response: { 200: ListOf(DeliveryObject), ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const endpoint = await loadEndpoint(db, tenantOf(request), request.params.id);
      const q = request.query;
      const { rows, hasMore } = await listDeliveries(db, endpoint.id, {
        status: q.status,
        eventId: q.event_id ? (parseId('event', q.event_id) ?? undefined) : undefined,
        startingAfter: q.starting_after
          ? (parseId('webhookDelivery', q.starting_after) ?? undefined)
          : undefined,
        limit: q.limit ?? 20,
      });
      return { object: 'list' as const, data: rows.map(deliveryObject), has_more: hasMore };
    },
  );
}
