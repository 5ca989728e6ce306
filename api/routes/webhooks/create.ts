// POST /api/v1/webhook_endpoints and POST /api/v1/webhook_endpoints/{id}/rotate_secret: the two
// routes that make a signing secret (`whsec_…`) and show it, once. Secrets are stored sealed.
// Live-mode URLs must resolve to public addresses only; sandbox URLs may be local (unless
// WEBHOOK_SANDBOX_ALLOW_PRIVATE is off, the production default).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { webhookEndpointObject } from '../../presenters/webhooks.ts';
import {
  countEndpoints,
  createEndpoint,
  MAX_ENDPOINTS,
  rotateEndpointSecret,
} from '../../../db/queries/webhooks.ts';
import { generateWebhookSecret } from '../../../domain/webhook-signature.ts';
import { seal } from '../../../hacienda/secret-box.ts';
import { tenantOf } from '../../auth.ts';
import { assertSubscription, assertWebhookUrl } from '../../webhook-endpoint-rules.ts';
import { ApiError, notFound } from '../../errors.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';
import { CreateEndpointBody, EndpointWithSecret } from '../../schemas/webhooks.ts';
import type { AppDeps } from '../../deps.ts';
import { parseId } from '../../../domain/ids.ts';

export default async function createEndpointRoutes(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['webhooks'];

  app.post(
    '/api/v1/webhook_endpoints',
    {
      config: { scope: 'manage:webhooks' },
      schema: {
        tags,
        summary: 'Register a webhook endpoint (the secret is shown once)',
        body: CreateEndpointBody,
        response: { 201: EndpointWithSecret, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const body = request.body;
      assertSubscription(body.events);
      await assertWebhookUrl(body.url, auth.livemode, config);
      if ((await countEndpoints(db, auth)) >= MAX_ENDPOINTS) {
        throw new ApiError(
          'webhook_endpoint_limit',
          `At most ${MAX_ENDPOINTS} webhook endpoints per mode; delete one first`,
        );
      }
      const secret = generateWebhookSecret();
      const row = await createEndpoint(db, auth, {
        url: body.url,
        events: body.events,
        description: body.description ?? null,
        secretEnc: seal(config.secretsKey, Buffer.from(secret, 'utf8')),
      });
      const id = webhookEndpointObject(row).id;
      reply.header('location', `/api/v1/webhook_endpoints/${id}`);
      return reply.code(201).send({ ...webhookEndpointObject(row), secret });
    },
  );

  app.post(
    '/api/v1/webhook_endpoints/:id/rotate_secret',
    {
      config: { scope: 'manage:webhooks' },
      schema: {
        tags,
        summary: 'New signing secret; the previous one keeps signing for 24 hours',
        params: IdParam,
        response: { 200: EndpointWithSecret, ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const id = parseId('webhookEndpoint', request.params.id);
      const secret = generateWebhookSecret();
      const row =
        id === null
          ? undefined
          : await rotateEndpointSecret(db, auth, id, seal(config.secretsKey, Buffer.from(secret, 'utf8')));
      if (!row) throw notFound('webhook endpoint', request.params.id);
      return { ...webhookEndpointObject(row), secret };
    },
  );
}
