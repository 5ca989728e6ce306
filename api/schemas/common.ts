// Shared schema pieces: the problem+json error body, list envelopes, pagination query.
import { Type, type TSchema } from 'typebox';

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    instance: Type.Optional(Type.String()),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), code: Type.String(), message: Type.String() })),
    ),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details' },
);

/** The error responses every authenticated route can give. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const base = [400, 401, 403, 429, 503, ...statuses];
  return Object.fromEntries(base.map((s) => [s, Problem]));
}

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
  });
}

export const Limit = Type.Integer({
  minimum: 1,
  maximum: 100,
  default: 20,
  description: 'Page size (1-100)',
});

export const Decimal2 = Type.String({ pattern: '^-?\\d+\\.\\d{2}$', examples: ['1130.00'] });

export const Timestamp = Type.String({ format: 'date-time' });

/** The headers of a create that honours Idempotency-Key (checked by api/idempotency.ts). */
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

export const IdParam = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
