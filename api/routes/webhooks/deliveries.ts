// GET /api/v1/webhook_endpoints/{id}/deliveries: what was sent to an endpoint, newest first —
// each delivery with every attempt (time, HTTP status, duration, error, 1 KB of the answer).
// POST /api/v1/webhook_endpoints/{id}/test: a signed test event sent now, answered with its delivery.
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
import { sendTestDelivery } from '../../../jobs/webhooks/test-delivery.ts';

const TEST =
  'Sends one `webhook_endpoint.test` event to this endpoint now, signed and with the headers of every ' +
  'delivery (`Service-Signature` with the current secret, and the previous one while a rotation ' +
  'lasts), even if the endpoint is disabled, and answers its delivery: `status` delivered (2xx) or ' +
  'failed, with the attempt (HTTP status, duration, error, start of the answer). One attempt, no ' +
  'retries; the event goes to no other endpoint. The delivery is listed with the others.';

export default async function deliveryRoutes(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/webhook_endpoints/:id/test',
    {
      config: { scope: 'manage:webhooks' },
      schema: {
        tags: ['webhooks'],
        summary: 'Send a test event to an endpoint now',
        description: TEST,
        params: IdParam,
        response: { 200: DeliveryObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const endpoint = await loadEndpoint(db, auth, request.params.id);
      const sent = await sendTestDelivery(db, config, auth, endpoint, request.id);
      const { rows } = await listDeliveries(db, endpoint.id, { eventId: sent.eventId, limit: 1 });
      return deliveryObject(rows[0]!);
    },
  );

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
