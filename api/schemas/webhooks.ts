// Webhook endpoint, delivery and event schemas. An endpoint's secret appears only in the create
// and rotate_secret responses.
import { Type } from 'typebox';
import { ALL_EVENTS, EVENT_KINDS } from '../../domain/webhook-events.ts';
import { Limit, Timestamp, nameSchemas } from './common.ts';

export const EventKind = Type.String({ enum: [...EVENT_KINDS] });

/** What an endpoint subscribes to: event kinds, or `"*"` alone for every event (future ones too). */
const Subscription = Type.Array(Type.String({ enum: [ALL_EVENTS, ...EVENT_KINDS] }), {
  minItems: 1,
  uniqueItems: true,
  description: 'Event kinds, or ["*"] for every event, including kinds added later ("*" stands alone)',
});

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'http(s) URL receiving POSTs; live mode: https on a public address (private, loopback and link-local refused)',
  examples: ['https://tienda.example/webhooks/factura'],
});

export const CreateEndpointBody = Type.Object(
  {
    url: Url,
    events: Subscription,
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  {
    additionalProperties: false,
    examples: [
      { url: 'https://tienda.example/webhooks/factura', events: ['invoice.accepted', 'invoice.paid'] },
    ],
  },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Subscription),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables an endpoint disabled by a 410' })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ events: ['invoice.accepted', 'invoice.rejected'] }],
  },
);

export const EndpointObject = Type.Object({
  id: Type.String({ examples: ['we_000000000001'] }),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ enum: ['enabled', 'disabled'] }),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  disabled_at: Type.Union([Timestamp, Type.Null()]),
  previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], {
    description: 'While set, the previous secret still signs (a second v1 in Service-Signature)',
  }),
  livemode: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const EndpointWithSecret = Type.Intersect([
  EndpointObject,
  Type.Object({ secret: Type.String({ description: 'whsec_…, shown only in this response' }) }),
]);

export const DeletedObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_endpoint'),
  deleted: Type.Literal(true),
});

export const ListDeliveriesQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ enum: ['pending', 'delivered', 'failed'] })),
    event_id: Type.Optional(Type.String({ pattern: '^evt_\\d{12}$' })),
    limit: Type.Optional(Limit),
    starting_after: Type.Optional(Type.String({ pattern: '^whd_\\d{12}$' })),
  },
  { additionalProperties: false },
);

const AttemptObject = Type.Object({
  attempt: Type.Integer(),
  round: Type.Integer({ description: '0 for the first delivery, n for the n-th redelivery' }),
  started_at: Timestamp,
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'At most 1 KB of the answer' }),
});

export const DeliveryObject = Type.Object({
  id: Type.String({ examples: ['whd_000000000001'] }),
  object: Type.Literal('webhook_delivery'),
  event_id: Type.String(),
  event: Type.String(),
  endpoint_id: Type.String(),
  status: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
  attempt_count: Type.Integer(),
  redeliveries: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: Type.Union([Timestamp, Type.Null()]),
  delivered_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  attempts: Type.Array(AttemptObject),
});

export const EventObject = Type.Object({
  id: Type.String({ examples: ['evt_000000000001'] }),
  object: Type.Literal('event'),
  event: Type.String(),
  created_at: Timestamp,
  sequence: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description:
      'The place of this event among the events of its document, in the order they happened: 1, 2, 3… ' +
      'The document is the invoice (or other issued document, or received document) the event is about; ' +
      "a payment's events (payment.created, invoice.paid) count among its invoice's. Null for an event " +
      'about no document (client.created, webhook_endpoint.test). Webhook payloads carry it too, and the ' +
      'events of one document reach each endpoint in this order: a later one is sent only once the ' +
      'earlier ones were delivered or given up.',
    examples: [3],
  }),
  data: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'The object the event is about, as the API showed it then: an Invoice for invoice.created, .sent, ' +
        '.accepted, .rejected, .processing_failed, .emailed and email.failed; a Client for client.created; a ' +
        'Payment for payment.created; for invoice.paid { invoice_id, amount, method, currency, payment_id, paid_at }',
    },
  ),
  livemode: Type.Boolean(),
  request_id: Type.Union([Type.String(), Type.Null()]),
});

export const ListEventsQuery = Type.Object(
  {
    type: Type.Optional(EventKind),
    created_gte: Type.Optional(Timestamp),
    created_lt: Type.Optional(Timestamp),
    limit: Type.Optional(Limit),
    starting_after: Type.Optional(Type.String({ pattern: '^evt_\\d{12}$' })),
  },
  { additionalProperties: false },
);

export const RedeliverBody = Type.Object(
  {
    endpoint_id: Type.Optional(
      Type.String({
        pattern: '^we_\\d{12}$',
        description: 'Only this endpoint (default: every subscribed one)',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ endpoint_id: 'we_000000000001' }] },
);

export const RedeliverResponse = Type.Object({
  object: Type.Literal('redelivery'),
  event_id: Type.String(),
  endpoint_ids: Type.Array(Type.String()),
});

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({
  CreateWebhookEndpointRequest: CreateEndpointBody,
  UpdateWebhookEndpointRequest: UpdateEndpointBody,
  WebhookEndpoint: EndpointObject,
  WebhookEndpointWithSecret: EndpointWithSecret,
  DeletedWebhookEndpoint: DeletedObject,
  DeliveryAttempt: AttemptObject,
  WebhookDelivery: DeliveryObject,
  Event: EventObject,
  RedeliverRequest: RedeliverBody,
  Redelivery: RedeliverResponse,
});
