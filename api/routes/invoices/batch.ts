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
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  batchCounts,
  batchItems,
  findBatch,
  recordBatch,
  type BatchItemInput,
} from '../../../db/queries/batches.ts';
import { parseId } from '../../../domain/ids.ts';
import { parseInvoiceRequest } from '../../../domain/invoice-request.ts';
import { parsePurchaseRequest } from '../../../domain/purchase-request.ts';
import { isPurchaseBody } from '../../../domain/document-types/index.ts';
import type { FieldError } from '../../../domain/errors.ts';
import { tenantOf } from '../../auth.ts';
import type { AppDeps } from '../../deps.ts';
import { ajvToFieldError, notFound } from '../../errors.ts';
import { sendReplay } from '../../plugins/idempotency.ts';
import { batchObject } from '../../presenters/batches.ts';
import { BatchBody, BatchObject } from '../../schemas/batches.ts';
import { errorResponses, IdempotencyHeaders, IdParam } from '../../schemas/common.ts';
import { CreateInvoiceBody } from '../../schemas/invoices.ts';
import { compileBodyValidator } from '../../validation.ts';

const ItemSchema = {
  ...CreateInvoiceBody,
  properties: {
    ...CreateInvoiceBody.properties,
    idempotency_key: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  },
};
const validateItem = compileBodyValidator(ItemSchema);

/** An item's own faults: its schema, then the same rules as a single create (before anything is numbered). */
function itemErrors(item: Record<string, unknown>): FieldError[] {
  if (!validateItem(item)) return (validateItem.errors ?? []).map((e) => ajvToFieldError(e, 'body'));
  const { idempotency_key: _k, ...body } = item;
  // A factura electrónica de compra (08) names a supplier instead of a client.
  const parsed = isPurchaseBody(body) ? parsePurchaseRequest(body, '') : parseInvoiceRequest(body);
  return parsed.ok ? [] : parsed.errors;
}

/** Each item checked: its schema and rules, and an idempotency_key or external_id unique within the batch. */
function checkItems(invoices: readonly object[]): BatchItemInput[] {
  const seen = { key: new Set<string>(), ext: new Set<string>() };
  return invoices.map((raw, position) => {
    const item = structuredClone(raw) as Record<string, unknown>;
    const errors = itemErrors(item);
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
}

export default async function batchRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/v1/invoices/batch',
    {
      // The key is taken in the transaction that records the batch (db/queries/batches.ts).
      config: { scope: 'write:invoices', idempotency: { lookup: 'handler' } },
      schema: {
        tags: ['invoices'],
        summary: 'Create up to 1,000 invoices in one request (202; results at /api/v1/batches/{id})',
        body: BatchBody,
        headers: IdempotencyHeaders,
        response: { 202: BatchObject, ...errorResponses(409, 422) },
      },
    },
    async (request, reply) => {
      const items = checkItems(request.body.invoices);
      const outcome = await recordBatch(db, tenantOf(request), items, {
        requestId: request.id,
        idempotency: request.idempotency,
        answer: (batch, counts) => batchObject(batch, counts),
      });
      if (outcome.kind === 'replay') {
        reply.header('location', `/api/v1/batches/${String(outcome.response.body.id)}`);
        return sendReplay(reply, { status: 202, body: outcome.response.body });
      }
      return reply.code(202).header('location', `/api/v1/batches/${outcome.body.id}`).send(outcome.body);
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
      const batch = id === null ? undefined : await findBatch(db, auth, id);
      if (!batch) throw notFound('batch', request.params.id);
      return batchObject(batch, await batchCounts(db, batch.id), await batchItems(db, batch.id));
    },
  );
}
