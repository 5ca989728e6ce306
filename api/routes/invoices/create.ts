// POST /api/v1/invoices: records an invoice in one transaction and answers 201 `pendiente`
// with its consecutivo and clave (or a `borrador` with send: false); the flow carries it on.
// Idempotency-Key replays, Prefer: wait=N waits for `enviada` or a terminal state. A replay
// answers the invoice as it is now (201, Idempotent-Replayed: true, its Location), under the same
// Prefer: wait rules as the first request, not the stored snapshot of the moment it was recorded.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Knex } from 'knex';
import { getInvoice } from '../../../db/queries/invoices.ts';
import { createInvoiceGrouped } from '../../../operations/invoice-committer.ts';
import { isPurchaseBody } from '../../../domain/document-types/index.ts';
import type { ItemProblem } from '../../../db/queries/invoice-bulk.ts';
import {
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
  type StoredResponse,
} from '../../../db/queries/idempotency.ts';
import { formatId, parseId } from '../../../domain/ids.ts';
import { parseInvoiceRequest } from '../../../domain/invoice-request.ts';
import { tenantOf, type AuthContext } from '../../auth.ts';
import type { AppDeps } from '../../deps.ts';
import { ApiError, validationError } from '../../errors.ts';
import { requestLanguage } from '../../language.ts';
import { findStoredAnswer } from '../../plugins/idempotency.ts';
import { preferWait, waitForSettled } from '../../prefer-wait.ts';
import { invoiceObject, withPublicTotals } from '../../presenters/invoices.ts';
import { errorResponses, IdempotentWaitHeaders } from '../../schemas/common.ts';
import { CreateInvoiceBody, InvoiceObject } from '../../schemas/invoices.ts';
import { requestTraceContext } from '../../tracing.ts';
import { createPurchaseResponse } from './purchase.ts';
import type { Config } from '../../../config/index.ts';
import { formatCrDate } from '../../../domain/cr-time.ts';
import { withDayRate } from '../../../operations/public-data.ts';
import { exchangeRateProblem, publicDataOf } from '../../public-data.ts';

type CreateBody = Static<typeof CreateInvoiceBody>;

const DESCRIPTION =
  'Answers 201 once the invoice is recorded (`pendiente`, or `borrador` with send: false). ' +
  '`Prefer: wait=N` (≤ 30) answers once it is `enviada` or final, or after N seconds. A repeat under ' +
  'the same `Idempotency-Key` answers the same invoice as it is now, with `Idempotent-Replayed: true`, ' +
  'under the same `Prefer: wait` rules.';

/**
 * Answers a create repeated under its Idempotency-Key: the same status, and the invoice as it is
 * now, waited for under Prefer: wait like a first request (an issued invoice until `enviada` or
 * final). Only a stored answer that names no invoice is replayed as stored.
 */
async function replayCreate(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Knex,
  auth: AuthContext,
  stored: StoredResponse,
) {
  reply.header('idempotent-replayed', 'true');
  const ref = typeof stored.body.id === 'string' ? stored.body.id : null;
  const id = ref ? parseId('invoice', ref) : null;
  const row = id !== null ? await getInvoice(db, auth, id) : undefined;
  if (!row) return reply.code(stored.status).send(withPublicTotals(stored.body));
  reply.header('location', `/api/v1/invoices/${formatId('invoice', row.id)}`);
  const wait = preferWait(request);
  const current =
    wait !== null && row.status !== 'borrador'
      ? await waitForSettled(request, reply, db, auth, row.id, wait)
      : row;
  return reply.code(stored.status).send(invoiceObject(current, requestLanguage(request)));
}

/** A request the group commit refused, as the problem the caller gets. */
function refusal(p: ItemProblem): Error {
  if (p.code === 'idempotency_key_in_use') return new IdempotencyKeyInUse();
  if (p.code === 'idempotency_key_reused') return new IdempotencyKeyReused();
  if (p.code === 'duplicate_external_id')
    return new ApiError('duplicate_external_id', p.detail, {
      fields: { existing_invoice_id: p.existing_invoice_id },
    });
  if (p.code === 'invoice_not_replaceable' || p.code === 'resource_not_found')
    return new ApiError(p.code, p.detail, {
      errors: [{ path: '/replaces', code: p.code, message: p.detail }],
    });
  return new ApiError('validation_failed', p.detail, p.errors ? { errors: p.errors } : {});
}

/**
 * An invoice (shape A or B) recorded with concurrent creates on the same series. A finished
 * request under the Idempotency-Key is replayed before anything else is checked: the group commit
 * looks the key up first; a request that fails before it gets there looks it up here, so a
 * replay never answers with a later check's error.
 */
async function createInvoiceResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Knex,
  config: Config,
  body: CreateBody,
  send: boolean,
) {
  const auth = tenantOf(request);
  const replayOr = async (err: unknown) => {
    const stored = await findStoredAnswer(db, request);
    if (stored) return replayCreate(request, reply, db, auth, stored);
    throw err;
  };
  // Validated without database work: the company and its readiness are cached.
  const parsed = parseInvoiceRequest(body, { allowReplaces: true });
  if (!parsed.ok) return replayOr(validationError(parsed.errors));
  const issuing = request.server.issuing;
  let company;
  try {
    company = send ? await issuing.issuer(auth) : await issuing.company(auth);
  } catch (err) {
    return replayOr(err);
  }
  // A dollar invoice without a rate takes the day's reference rate, before a number is taken.
  let request_;
  try {
    request_ = await withDayRate(db, publicDataOf(config), company.defaultCurrency, parsed.value);
  } catch (err) {
    return replayOr(exchangeRateProblem(err, formatCrDate(new Date()), `/${parsed.value.exchangeRateKey}`));
  }
  // Looked up, prepared and recorded with concurrent creates on the same series: one transaction
  // of a few statements for all of them.
  const grouped = await createInvoiceGrouped(db, auth, {
    company,
    request: request_,
    send,
    idempotency: request.idempotency,
    requestId: request.id,
    traceContext: requestTraceContext(request),
    render: invoiceObject,
  });
  if (grouped.kind === 'invalid') throw grouped.error;
  if (grouped.kind === 'failed') throw refusal(grouped.problem);
  if (grouped.kind === 'replayed') return replayCreate(request, reply, db, auth, grouped.response);
  reply.header('location', `/api/v1/invoices/${formatId('invoice', grouped.row.id)}`);
  const lang = requestLanguage(request);
  const wait = preferWait(request);
  if (wait !== null && send) {
    const row = await waitForSettled(request, reply, db, auth, grouped.row.id, wait);
    return reply.code(201).send(invoiceObject(row, lang));
  }
  // The Spanish object was rendered when it was recorded.
  return reply.code(201).send(lang === 'es' ? grouped.body : invoiceObject(grouped.row, lang));
}

export default async function createInvoiceRoute(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/invoices',
    {
      config: { anyScope: ['write:invoices', 'write:drafts'], idempotency: { lookup: 'handler' } },
      schema: {
        tags: ['invoices'],
        summary: 'Create an invoice (shape A or B)',
        description: DESCRIPTION,
        body: CreateInvoiceBody,
        headers: IdempotentWaitHeaders,
        response: { 200: InvoiceObject, 201: InvoiceObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const send = request.body.send !== false;
      if (send && !auth.scopes.includes('write:invoices')) {
        throw new ApiError(
          'insufficient_scope',
          'Issuing needs write:invoices; this key may only create drafts (send: false)',
          { fields: { required_scope: 'write:invoices' } },
        );
      }
      // A purchase (the factura electrónica de compra) has a supplier instead of a client: purchase.ts.
      if (isPurchaseBody(request.body)) return createPurchaseResponse(request, reply, db, auth);
      return createInvoiceResponse(request, reply, db, config, request.body, send);
    },
  );
}
