// POST /api/v1/invoices with `document_type: "08"`: a factura electrónica de compra. The company
// is the receptor and signs it; `supplier` is the emisor (see domain/purchase-request.ts). Lines
// and terms as an invoice's (shape A). Answers 201 like an invoice create; an Idempotency-Key
// replays; `Prefer: wait=N` waits for `enviada` or a final state.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { getCompany } from '../../../db/queries/companies.ts';
import {
  findIdempotent,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
} from '../../../db/queries/idempotency.ts';
import { createPurchase, preparePurchase } from '../../../db/queries/purchases.ts';
import { invoiceObject } from '../../../db/public-objects.ts';
import { DomainValidationError } from '../../../domain/errors.ts';
import { formatId } from '../../../domain/ids.ts';
import { parsePurchaseRequest } from '../../../domain/purchase-request.ts';
import { INVOICE_CREATE_ROUTE } from '../../../domain/request-fingerprint.ts';
import type { AuthContext } from '../../auth.ts';
import { ApiError, validationError } from '../../errors.ts';
import { idempotencyFromRequest, preferWait, requestLanguage } from '../../idempotency.ts';
import { assertCanIssue } from './create.ts';
import { waitForSettled } from './wait.ts';

const reused = () =>
  new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');

export async function createPurchaseResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Knex,
  auth: AuthContext,
): Promise<FastifyReply> {
  const body = request.body as Record<string, unknown>;
  const idem = idempotencyFromRequest(request, INVOICE_CREATE_ROUTE);
  // 1. A finished request under this key is replayed before anything else is checked.
  if (idem) {
    const done = await findIdempotent(db, auth, idem);
    if (done) {
      if (!done.hash.equals(idem.hash) || done.route !== idem.route) throw reused();
      return reply
        .code(done.response.status as 201)
        .header('idempotent-replayed', 'true')
        .send(done.response.body as never);
    }
  }
  // 2. The supplier, then the lines and terms like an invoice's (with a stand-in client).
  const company = (await getCompany(db, auth.companyId))!;
  const parsed = parsePurchaseRequest(body, company.idNumber);
  if (!parsed.ok) throw validationError(parsed.errors);
  const { request: req, supplier } = parsed.value;
  const send = req.send;
  if (send) await assertCanIssue(db, company, auth);

  // 3. Prepared from the catalogue, then recorded in its own series.
  let prepared;
  try {
    prepared = await preparePurchase(db, auth, company, req, supplier);
  } catch (err) {
    if (err instanceof DomainValidationError) throw validationError(err.errors);
    throw err;
  }
  let outcome;
  try {
    outcome = await createPurchase(db, auth, prepared, {
      emisorId: company.idNumber,
      send,
      requestId: request.id,
      idempotency: idem,
      render: (row) => invoiceObject(row),
    });
  } catch (err) {
    if (err instanceof IdempotencyKeyInUse)
      throw new ApiError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed; retry shortly',
        { headers: { 'retry-after': '1' } },
      );
    if (err instanceof IdempotencyKeyReused) throw reused();
    if ((err as { constraint?: string }).constraint === 'invoices_external_id_key')
      throw new ApiError('duplicate_external_id', 'external_id is already used by another document');
    throw err;
  }
  if (outcome.kind === 'replay')
    return reply
      .code(outcome.response.status as 201)
      .header('idempotent-replayed', 'true')
      .send(outcome.response.body as never);
  reply.header('location', `/api/v1/invoices/${formatId('invoice', outcome.row.id)}`);
  const wait = preferWait(request);
  const row =
    wait !== null && send
      ? await waitForSettled(request, reply, db, auth, outcome.row.id, wait)
      : outcome.row;
  return reply.code(201).send(invoiceObject(row, requestLanguage(request)) as never);
}
