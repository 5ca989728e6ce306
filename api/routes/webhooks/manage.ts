// Webhook endpoints: list, retrieve, update (url, events, description, enabled) and delete.
// Everything is scoped to the key's company and mode; another tenant's endpoint is a 404.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { webhookEndpointObject } from '../../presenters/webhooks.ts';
import { deleteEndpoint, listEndpoints, updateEndpoint } from '../../../db/queries/webhooks.ts';
import { tenantOf } from '../../auth.ts';
import { loadEndpoint } from '../../lookups.ts';
import { notFound } from '../../errors.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import { DeletedObject, EndpointObject, UpdateEndpointBody } from '../../schemas/webhooks.ts';
import type { AppDeps } from '../../deps.ts';
import { assertSubscription, assertWebhookUrl } from '../../webhook-endpoint-rules.ts';

const tags = ['webhooks'];
const config = { scope: 'manage:webhooks' as const };

export default async function manageEndpointRoutes(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  readEndpointRoutes(fastify, deps);
  changeEndpointRoutes(fastify, deps);
}

function readEndpointRoutes(fastify: FastifyInstance, { db }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/webhook_endpoints',
    {
      config,
      schema: {
        tags,
        summary: 'List webhook endpoints',
        response: { 200: ListOf(EndpointObject), ...errorResponses() },
      },
    },
    async (request) => {
      const rows = await listEndpoints(db, tenantOf(request));
      return { object: 'list' as const, data: rows.map(webhookEndpointObject), has_more: false };
    },
  );

  app.get(
    '/api/v1/webhook_endpoints/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Retrieve a webhook endpoint',
        params: IdParam,
        response: { 200: EndpointObject, ...errorResponses(404) },
      },
    },
    async (request) => webhookEndpointObject(await loadEndpoint(db, tenantOf(request), request.params.id)),
  );
}

function changeEndpointRoutes(fastify: FastifyInstance, { db, config: appConfig }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/webhook_endpoints/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Update a webhook endpoint (url, events, description, enabled)',
        params: IdParam,
        body: UpdateEndpointBody,
        response: { 200: EndpointObject, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      assertSubscription(request.body.events);
      const current = await loadEndpoint(db, auth, request.params.id);
      if (request.body.url !== undefined) await assertWebhookUrl(request.body.url, auth.livemode, appConfig);
      const row = await updateEndpoint(db, auth, current.id, request.body);
      if (!row) throw notFound('webhook endpoint', request.params.id);
      return webhookEndpointObject(row);
    },
  );

  app.delete(
    '/api/v1/webhook_endpoints/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Delete a webhook endpoint (its delivery history is kept)',
        params: IdParam,
        response: { 200: DeletedObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const current = await loadEndpoint(db, auth, request.params.id);
      if (!(await deleteEndpoint(db, auth, current.id)))
        throw notFound('webhook endpoint', request.params.id);
      return { id: request.params.id, object: 'webhook_endpoint' as const, deleted: true as const };
    },
  );
}
