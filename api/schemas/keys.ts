// API key schemas. The secret appears only in the create and roll responses.
import { Type } from 'typebox';
import { SCOPES } from '../../domain/scopes.ts';
import { Timestamp, nameSchemas } from './common.ts';

const ScopeEnum = Type.String({ enum: [...SCOPES] });

export const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    scopes: Type.Array(ScopeEnum, { minItems: 1, uniqueItems: true }),
    rate_limit_per_second: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "The key's own limit in requests per second, at most the company's; the company's limit (all its keys together) still applies",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Tienda en línea', scopes: ['write:invoices', 'read:invoices'] }],
  },
);

export const RollKeyBody = Type.Object(
  {
    grace_period_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 604800,
        default: 86400,
        description: 'How long older secrets keep working',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ grace_period_seconds: 3600 }] },
);

export const KeyObject = Type.Object({
  id: Type.String({ examples: ['key_000000000001'] }),
  object: Type.Literal('api_key'),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  livemode: Type.Boolean(),
  rate_limit_per_second: Type.Union([Type.Integer(), Type.Null()], {
    description: "The key's own requests per second (null: only the company's limit applies)",
  }),
  redacted: Type.String({ examples: ['ik_test_…a1B2'] }),
  secrets: Type.Array(
    Type.Object({
      last4: Type.String(),
      created_at: Timestamp,
      expires_at: Type.Union([Timestamp, Type.Null()]),
    }),
  ),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
  revoked_at: Type.Union([Timestamp, Type.Null()]),
});

export const KeyWithSecret = Type.Intersect([KeyObject, Type.Object({ secret: Type.String() })]);

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({
  CreateKeyRequest: CreateKeyBody,
  RollKeyRequest: RollKeyBody,
  ApiKey: KeyObject,
  ApiKeyWithSecret: KeyWithSecret,
});
