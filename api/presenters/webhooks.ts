// Webhook endpoints, their deliveries and the events → their public objects (schemas
// EndpointObject, DeliveryObject, EventObject in api/schemas/webhooks.ts).
import type { Static } from 'typebox';
import type { EventRow } from '../../db/queries/event-log.ts';
import type { DeliveryWithAttempts, EndpointRow } from '../../db/queries/webhooks.ts';
import { eventEnvelope } from '../../db/public-objects.ts';
import { formatId } from '../../domain/ids.ts';
import type { DeliveryObject, EndpointObject, EventObject } from '../schemas/webhooks.ts';

export type EndpointJson = Static<typeof EndpointObject>;
export type DeliveryJson = Static<typeof DeliveryObject>;
export type EventJson = Static<typeof EventObject>;

const iso = (d: Date | string | null): string | null => (d ? new Date(d).toISOString() : null);

/** A webhook endpoint; never its secrets (they are shown once, by the route that makes them). */
export function webhookEndpointObject(w: EndpointRow): EndpointJson {
  const overlap = w.previousSecretExpiresAt && new Date(w.previousSecretExpiresAt).getTime() > Date.now();
  return {
    id: formatId('webhookEndpoint', w.id),
    object: 'webhook_endpoint' as const,
    url: w.url,
    events: w.events,
    description: w.description,
    status: w.disabledAt ? ('disabled' as const) : ('enabled' as const),
    disabled_reason: w.disabledReason,
    disabled_at: iso(w.disabledAt),
    previous_secret_expires_at: overlap ? iso(w.previousSecretExpiresAt) : null,
    livemode: w.livemode,
    created_at: new Date(w.createdAt).toISOString(),
    updated_at: new Date(w.updatedAt).toISOString(),
  };
}

/** An event as the API shows it: the envelope plus its tenant mode and originating request. */
export function eventObject(e: EventRow): EventJson {
  return { ...eventEnvelope(e), object: 'event' as const, livemode: e.livemode, request_id: e.requestId };
}

export function deliveryObject(d: DeliveryWithAttempts): DeliveryJson {
  return {
    id: formatId('webhookDelivery', d.id),
    object: 'webhook_delivery' as const,
    event_id: formatId('event', d.eventId),
    event: d.eventType,
    endpoint_id: formatId('webhookEndpoint', d.endpointId),
    status: d.status,
    attempt_count: d.attempts,
    redeliveries: d.round,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: iso(d.nextAttemptAt),
    delivered_at: iso(d.deliveredAt),
    created_at: new Date(d.createdAt).toISOString(),
    attempts: d.attemptList.map((a) => ({
      attempt: a.attemptNumber,
      round: a.round,
      started_at: new Date(a.startedAt).toISOString(),
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
  };
}
