// Shared schema pieces: the problem+json error body, list envelopes, pagination query.
import { Type, type TSchema } from 'typebox';
import { ERROR_CATALOGUE } from '../../domain/errors.ts';

/** One field at fault in a validation problem. */
export const FieldError = Type.Object(
  {
    path: Type.String({
      description:
        'JSON pointer of the field in the request body (or the query/header name), e.g. /lines/0/qty',
      examples: ['/lines/0/qty'],
    }),
    code: Type.String({ description: 'What is wrong with it (stable)', examples: ['invalid_type'] }),
    message: Type.String({ examples: ['must be number,string'] }),
  },
  { title: 'FieldError' },
);

export const Problem = Type.Object(
  {
    type: Type.String({
      description:
        "The code's entry in the error reference (/docs/errors#<code>): what it means, the fields, the fix",
      examples: ['/docs/errors#validation_failed'],
    }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({
      enum: Object.keys(ERROR_CATALOGUE),
      description: 'Stable error code (explained at /docs/errors); branch on this, not on the text',
    }),
    instance: Type.Optional(Type.String()),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(FieldError, {
        description: 'validation_failed: every field at fault, with its path and code',
      }),
    ),
    required_scope: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String())], {
        description: 'insufficient_scope: the scope (or the scopes, any one of which) the call needs',
      }),
    ),
    existing_client_id: Type.Optional(
      Type.String({ description: 'duplicate_client: the client already there' }),
    ),
    existing_invoice_id: Type.Optional(
      Type.String({ description: 'duplicate_external_id: the invoice that has this external_id' }),
    ),
    invoice_status: Type.Optional(
      Type.String({ description: 'invalid_state: the invoice status that refused the call' }),
    ),
    balance_due: Type.Optional(Type.String({ description: 'payment_exceeds_balance: what is still owed' })),
    missing: Type.Optional(
      Type.Array(Type.String(), {
        description: 'company_incomplete: what the company must add before issuing',
      }),
    ),
    limit: Type.Optional(Type.Integer({ description: 'rate_limited: requests per second allowed' })),
    limit_scope: Type.Optional(
      Type.String({ enum: ['key', 'company'], description: 'rate_limited: whose limit was reached' }),
    ),
  },
  { title: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

/** The error responses every authenticated route can give. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const base = [400, 401, 403, 429, 503, ...statuses];
  return Object.fromEntries(base.map((s) => [s, Problem]));
}

/** A page of a list; named `<Item>List` in the OpenAPI document when the item is named. */
export function ListOf<T extends TSchema>(item: T) {
  const name = (item as { title?: unknown }).title;
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      has_more: Type.Boolean({
        description: 'More items follow: ask again with starting_after = the last id',
      }),
    },
    typeof name === 'string' ? { title: `${name}List` } : {},
  );
}

export const Limit = Type.Integer({
  minimum: 1,
  maximum: 100,
  default: 20,
  description: 'Page size (1-100)',
});

export const Decimal2 = Type.String({ pattern: '^-?\\d+\\.\\d{2}$', examples: ['1130.00'] });

export const Timestamp = Type.String({ format: 'date-time' });

/** The headers of a create that honours Idempotency-Key (checked by api/plugins/idempotency.ts). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Up to 255 visible ASCII characters, per company and mode, kept 24 h: the same request again replays ' +
        'the first answer (Idempotent-Replayed: true); another body → 422 idempotency_key_reused; while the ' +
        'first runs → 409 idempotency_key_in_use',
      examples: ['order-2026-000123'],
    }),
  ),
});

const PreferWait = Type.Optional(
  Type.String({
    description:
      'RFC 7240. `wait=N` (seconds, at most 30): answer once the invoice is final with Hacienda (`aceptada` ' +
      'or `rechazada`) or its flow has stopped waiting for a person (`processing_error.permanent`), or ' +
      'after N seconds with its state then (Preference-Applied: wait=N when honoured). Other preferences ' +
      'are ignored.',
    examples: ['wait=10'],
  }),
);

/** The headers of a call that issues an invoice and may wait for Hacienda's answer. */
export const PreferWaitHeaders = Type.Object({ prefer: PreferWait });

/** Idempotency-Key and Prefer: wait, for creating an invoice. */
export const IdempotentWaitHeaders = Type.Object({
  'idempotency-key': IdempotencyHeaders.properties['idempotency-key'],
  prefer: PreferWait,
});

export const IdParam = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

/**
 * Gives schemas their names in the OpenAPI document and the generated client: each becomes a
 * component under its name (api/openapi-components.ts). Called at the end of a schema module,
 * so the names are set before any route uses the schemas.
 */
export function nameSchemas(schemas: Record<string, TSchema>): void {
  for (const [name, schema] of Object.entries(schemas)) (schema as { title?: string }).title = name;
}
