// A test event sent now to one endpoint, on request (POST /api/v1/webhook_endpoints/{id}/test):
// the same envelope, headers and signature as a real delivery (deliver.ts), one attempt, no
// retry. Its event (webhook_endpoint.test) is recorded without a dispatch row, so it reaches no
// other endpoint; the delivery and its attempt are written once the POST has ended, in one
// transaction, under a delivery id reserved beforehand (the headers name it).
import type { Knex } from 'knex';
import type { Config } from '../../config/index.ts';
import { eventEnvelope } from '../../db/public-objects.ts';
import type { Tenant } from '../../db/queries/clients.ts';
import {
  recordTestDelivery,
  recordTestEvent,
  reserveDeliveryId,
  type EndpointRow,
} from '../../db/queries/webhooks.ts';
import { formatId } from '../../domain/ids.ts';
import { signWebhookPayload } from '../../domain/webhook-signature.ts';
import { signingSecrets, USER_AGENT } from './deliver.ts';
import { postWebhook } from './http.ts';

export interface TestDelivery {
  deliveryId: number;
  eventId: number;
}

/** Sends the test event to the endpoint and records the delivery with its one attempt. */
export async function sendTestDelivery(
  db: Knex,
  config: Config,
  tenant: Tenant,
  endpoint: EndpointRow,
  requestId: string | null,
): Promise<TestDelivery> {
  const data = {
    object: 'webhook_endpoint_test',
    endpoint_id: formatId('webhookEndpoint', endpoint.id),
    message: {
      es: 'Evento de prueba de factura-cr: este punto de recepción recibe y verifica los webhooks.',
      en: 'A factura-cr test event: this endpoint receives and verifies webhooks.',
    },
  };
  const event = await recordTestEvent(db, tenant, data, requestId);
  const deliveryId = await reserveDeliveryId(db);
  const body = JSON.stringify(eventEnvelope(event));
  const startedAt = new Date();
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const signature = signWebhookPayload(
    body,
    signingSecrets({ config, now: () => startedAt }, endpoint),
    timestamp,
  );
  const result = await postWebhook({
    url: endpoint.url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'service-signature': signature,
      'service-event-id': formatId('event', event.id),
      'service-delivery-id': formatId('webhookDelivery', deliveryId),
      'service-delivery-attempt': '1',
    },
    timeoutMs: config.webhooks.timeoutMs,
    publicOnly: endpoint.livemode || !config.webhooks.sandboxAllowPrivate,
  });
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  await recordTestDelivery(
    db,
    tenant,
    { deliveryId, eventId: event.id, endpointId: endpoint.id },
    { startedAt, result, status: ok ? 'delivered' : 'failed' },
  );
  return { deliveryId, eventId: event.id };
}
