// Batches: POST /api/v1/invoices/batch records up to 1,000 invoices (each with its own
// idempotency_key or external_id) and answers 202 with the batch id; a worker records them in
// chunks. GET /api/v1/batches/{id} gives every item's outcome: the invoice (id, status,
// consecutivo, clave) or the problem. One bad item never stops the others; a repeated batch
// replays its items instead of creating them again.
// The batch's own Idempotency-Key is settled in the transaction that records the batch, like a
// single create's: the key is taken with a transaction-level advisory lock (409
// idempotency_key_in_use while another request holds it, in this process or any other), a
// finished request under it is replayed (same body) or refused (422 idempotency_key_reused), and
// the stored answer is written under the key's primary key, which never lets a second outcome in.
// So one key gives exactly one batch, however many requests race.
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
  insertIdempotent,
  lockIdempotencyKey,
  type StoredResponse,
} from '../../../db/queries/idempotency.ts';
import { enqueueOutbox } from '../../../db/queries/events.ts';
import { formatId, parseId } from '../../../domain/ids.ts';
import { parseInvoiceRequest } from '../../../domain/invoice-request.ts';
import { parsePurchaseRequest } from '../../../domain/purchase-request.ts';
import { isPurchaseBody } from '../../../domain/document-types/index.ts';
import { tenantOf } from '../../auth.ts';
import { ajvToFieldError, ApiError, notFound } from '../../errors.ts';
import { idempotencyFromRequest } from '../../idempotency.ts';
import { compileBodyValidator } from '../../validation.ts';
import {
  errorResponses,
  FieldError,
  IdempotencyHeaders,
  IdParam,
  nameSchemas,
} from '../../schemas/common.ts';
import { CreateInvoiceBody } from '../../schemas/invoices.ts';
import type { AppDeps } from '../../app.ts';

export const MAX_BATCH = 1000;

const ItemSchema = {
  ...CreateInvoiceBody,
  properties: {
    ...CreateInvoiceBody.properties,
    idempotency_key: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  },
};
const validateItem = compileBodyValidator(ItemSchema);

const BatchBody = Type.Object(
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

const ItemResult = Type.Object({
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

export default async function batchRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1/invoices/batch',
    {
      config: { scope: 'write:invoices' },
      schema: {
        tags: ['invoices'],
        summary: 'Create up to 1,000 invoices in one request (202; results at /api/v1/batches/{id})',
        body: BatchBody,
        headers: IdempotencyHeaders,
        response: { 202: BatchObject, ...errorResponses(409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const route = 'POST /api/v1/invoices/batch';
      const idem = idempotencyFromRequest(request, route);
      // 1. Each item: schema, and an idempotency_key or external_id unique within the batch.
      const seen = { key: new Set<string>(), ext: new Set<string>() };
      const rows = request.body.invoices.map((raw, position) => {
        const item = structuredClone(raw) as Record<string, unknown>;
        const errors: { path: string; code: string; message: string }[] = [];
        if (!validateItem(item))
          errors.push(...(validateItem.errors ?? []).map((e) => ajvToFieldError(e as never, 'body')));
        else {
          // The same rules as a single create (domain/invoice-request.ts), before anything is numbered.
          const { idempotency_key: _k, ...body } = item;
          // A purchase (the factura electrónica de compra) names a supplier instead of a client.
          const parsed = isPurchaseBody(body) ? parsePurchaseRequest(body, '') : parseInvoiceRequest(body);
          if (!parsed.ok) errors.push(...parsed.errors);
        }
        const key = typeof item.idempotency_key === 'string' ? item.idempotency_key : null;
        const ext =
          typeof item.external_id === 'string'
            ? item.external_id
            : typeof item.externalId === 'string'
              ? item.externalId
              : null;
        if (!key && !ext)
          errors.push({
            path: '/idempotency_key',
            code: 'required',
            message: 'each item needs an idempotency_key or an external_id',
          });
        if (key && seen.key.has(key))
          errors.push({ path: '/idempotency_key', code: 'duplicate', message: 'repeated within the batch' });
        if (ext && seen.ext.has(ext))
          errors.push({ path: '/external_id', code: 'duplicate', message: 'repeated within the batch' });
        if (key) seen.key.add(key);
        if (ext) seen.ext.add(ext);
        return {
          position,
          idempotencyKey: key,
          externalId: ext,
          request: JSON.stringify(item),
          status: errors.length ? 'failed' : 'pending',
          problem: errors.length
            ? JSON.stringify({
                status: 422,
                code: 'validation_failed',
                detail: errors.map((e) => `${e.path}: ${e.message}`).join('; '),
                errors,
              })
            : null,
        };
      });
      // 2. Record the batch and its items, and the work for the relay, in one transaction that
      //    holds the Idempotency-Key from its first statement to its commit.
      let outcome: { replay: StoredResponse | null; body?: Awaited<ReturnType<typeof batchObject>> };
      try {
        outcome = await db.transaction(async (trx) => {
          const replay = idem ? await lockIdempotencyKey(trx, auth, idem) : null;
          if (replay) return { replay };
          const [b] = await trx('batches')
            .insert({
              companyId: auth.companyId,
              livemode: auth.livemode,
              total: rows.length,
              requestId: request.id,
            })
            .returning('*');
          for (let i = 0; i < rows.length; i += 500) {
            await trx('batch_items').insert(rows.slice(i, i + 500).map((r) => ({ batchId: b.id, ...r })));
          }
          await enqueueOutbox(trx, 'batch.process', { batchId: b.id }, request.id);
          const body = await batchObject(trx, b.id, false);
          if (idem) await insertIdempotent(trx, auth, idem, { status: 202, body });
          return { replay: null, body };
        });
      } catch (err) {
        if (err instanceof IdempotencyKeyInUse)
          throw new ApiError(
            'idempotency_key_in_use',
            'A request with this Idempotency-Key is still being processed; retry shortly',
            { headers: { 'retry-after': '1' } },
          );
        if (err instanceof IdempotencyKeyReused)
          throw new ApiError(
            'idempotency_key_reused',
            'This Idempotency-Key was used with a different request',
          );
        throw err;
      }
      const body = (outcome.replay?.body ?? outcome.body) as { id: string };
      if (outcome.replay) reply.header('idempotent-replayed', 'true');
      return reply
        .code(202)
        .header('location', `/api/v1/batches/${body.id}`)
        .send(body as never);
    },
  );

  app.get(
    '/api/v1/batches/:id',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags: ['invoices'],
        summary: "A batch's progress and every item's outcome",
        params: IdParam,
        response: { 200: BatchObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const id = parseId('batch', request.params.id);
      const b =
        id === null
          ? undefined
          : await db('batches').where({ id, companyId: auth.companyId, livemode: auth.livemode }).first('id');
      if (!b) throw notFound('batch', request.params.id);
      return batchObject(db, b.id, true);
    },
  );
}

async function batchObject(db: Knex, id: number, withItems: boolean) {
  const b = await db('batches').where({ id }).first();
  const counts = await db('batch_items')
    .where({ batchId: id })
    .groupBy('status')
    .select('status')
    .count('* as n');
  const c = { pending: 0, created: 0, replayed: 0, failed: 0 } as Record<string, number>;
  for (const r of counts) c[r.status as string] = Number(r.n);
  const base = {
    id: formatId('batch', b.id),
    object: 'batch' as const,
    livemode: b.livemode,
    status: b.status,
    total: b.total,
    counts: c as { pending: number; created: number; replayed: number; failed: number },
    created_at: new Date(b.createdAt).toISOString(),
    completed_at: b.completedAt ? new Date(b.completedAt).toISOString() : null,
  };
  if (!withItems) return base;
  const items = await db('batch_items as i')
    .leftJoin('invoices as v', 'v.id', 'i.invoice_id')
    .where('i.batch_id', id)
    .orderBy('i.position')
    .select(
      'i.position',
      'i.idempotency_key',
      'i.external_id',
      'i.status',
      'i.problem',
      'v.id as invoiceId',
      'v.status as invoiceStatus',
      'v.consecutivo',
      'v.clave',
    );
  return {
    ...base,
    items: items.map((r) => ({
      index: r.position,
      idempotency_key: r.idempotencyKey,
      external_id: r.externalId,
      status: r.status,
      invoice: r.invoiceId
        ? {
            id: formatId('invoice', r.invoiceId),
            status: r.invoiceStatus,
            consecutivo: r.consecutivo,
            clave: r.clave,
          }
        : null,
      error: r.problem,
    })),
  };
}

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({ Batch: BatchObject, BatchItem: ItemResult });
