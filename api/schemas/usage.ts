// Usage schemas: counts per key, route and status class over time (GET /api/v1/usage).
import { Type } from 'typebox';
import { Timestamp, nameSchemas } from './common.ts';

export const GRANULARITIES = ['minute', 'hour', 'day'] as const;

/** Longest range per granularity, so one answer stays small (1,440 minutes, 31 days, 366 days). */
export const MAX_RANGE_MS = {
  minute: 24 * 3600_000,
  hour: 31 * 24 * 3600_000,
  day: 366 * 24 * 3600_000,
} as const;

/** Default range when `from` is absent: the last hour, day or 30 days. */
export const DEFAULT_RANGE_MS = { minute: 3600_000, hour: 24 * 3600_000, day: 30 * 24 * 3600_000 } as const;

export const UsageQuery = Type.Object(
  {
    key_id: Type.Optional(
      Type.String({ pattern: '^key_\\d{12}$', description: 'Only this key (default: every key)' }),
    ),
    from: Type.Optional(
      Type.String({ format: 'date-time', description: 'Start (inclusive); default: one range back' }),
    ),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'End (exclusive); default: now' })),
    granularity: Type.Optional(
      Type.String({
        enum: [...GRANULARITIES],
        default: 'hour',
        description: 'Bucket size: minute (range ≤ 1 day), hour (≤ 31 days) or day (≤ 366 days)',
      }),
    ),
  },
  { additionalProperties: false },
);

const count = (description: string) => Type.Integer({ minimum: 0, description });

const countFields = {
  requests: count('All requests'),
  '2xx': count('Successful responses'),
  '3xx': count('Redirects and 304 Not Modified'),
  '4xx': count('Client errors other than 429'),
  '5xx': count('Server errors'),
  '429': count('Rejected by the rate limit'),
};

export const UsageCounts = Type.Object(countFields);

export const UsageBucket = Type.Object({
  start: Timestamp,
  key_id: Type.String({ examples: ['key_000000000001'] }),
  route: Type.String({ examples: ['POST /api/v1/invoices'] }),
  ...countFields,
});

export const UsageObject = Type.Object(
  {
    object: Type.Literal('usage'),
    livemode: Type.Boolean(),
    key_id: Type.Union([Type.String(), Type.Null()]),
    granularity: Type.String({ enum: [...GRANULARITIES] }),
    from: Timestamp,
    to: Timestamp,
    totals: UsageCounts,
    data: Type.Array(UsageBucket, { description: 'One entry per bucket, key and route with traffic' }),
  },
  {
    examples: [
      {
        object: 'usage',
        livemode: false,
        key_id: null,
        granularity: 'hour',
        from: '2026-11-21T12:00:00.000Z',
        to: '2026-11-22T12:00:00.000Z',
        totals: { requests: 12, '2xx': 10, '3xx': 0, '4xx': 1, '5xx': 0, '429': 1 },
        data: [
          {
            start: '2026-11-22T11:00:00.000Z',
            key_id: 'key_000000000001',
            route: 'POST /api/v1/invoices',
            requests: 12,
            '2xx': 10,
            '3xx': 0,
            '4xx': 1,
            '5xx': 0,
            '429': 1,
          },
        ],
      },
    ],
  },
);

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({
  UsageCounts,
  UsageBucket,
  Usage: UsageObject,
});
