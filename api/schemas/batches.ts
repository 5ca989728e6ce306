// Batches of invoices: the request (up to MAX_BATCH create-invoice bodies, each with its own
// idempotency_key or external_id) and the batch object with every item's outcome.
import { Type } from 'typebox';
import { FieldError, nameSchemas } from './common.ts';

export const MAX_BATCH = 1000;

export const BatchBody = Type.Object(
  {
    invoices: Type.Array(
      Type.Object(
        {},
        { additionalProperties: true, description: 'A create-invoice body plus idempotency_key' },
      ),
      {
        minItems: 1,
        maxItems: MAX_BATCH,
      },
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        invoices: [
          {
            idempotency_key: 'order-1001',
            client_id: 'cli_000000000001',
            lines: [{ service_id: 'srv_000000000001', qty: 1 }],
          },
          {
            external_id: 'order-1002',
            client_id: 'cli_000000000001',
            lines: [{ service_id: 'srv_000000000002', qty: 3 }],
          },
        ],
      },
    ],
  },
);

export const ItemResult = Type.Object({
  index: Type.Integer(),
  idempotency_key: Type.Union([Type.String(), Type.Null()]),
  external_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ enum: ['pending', 'created', 'replayed', 'failed'] }),
  invoice: Type.Union([
    Type.Object({
      id: Type.String(),
      status: Type.String(),
      consecutivo: Type.Union([Type.String(), Type.Null()]),
      clave: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
  error: Type.Union([
    Type.Object(
      {
        status: Type.Integer(),
        code: Type.String({ description: 'A code of the error catalogue, as in a Problem' }),
        detail: Type.String(),
        errors: Type.Optional(Type.Array(FieldError)),
      },
      { additionalProperties: true, description: 'Why this item failed (the fields of a Problem)' },
    ),
    Type.Null(),
  ]),
});

export const BatchObject = Type.Object({
  id: Type.String({ examples: ['bat_000000000001'] }),
  object: Type.Literal('batch'),
  livemode: Type.Boolean(),
  status: Type.String({ enum: ['processing', 'completed'] }),
  total: Type.Integer(),
  counts: Type.Object({
    pending: Type.Integer(),
    created: Type.Integer(),
    replayed: Type.Integer(),
    failed: Type.Integer(),
  }),
  created_at: Type.String(),
  completed_at: Type.Union([Type.String(), Type.Null()]),
  items: Type.Optional(Type.Array(ItemResult)),
});

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({ Batch: BatchObject, BatchItem: ItemResult });
