// POST /api/v1/invoices with `document_type: "08"`: a factura electrónica de compra. The company
// is the receptor and signs it; `supplier` is the emisor (see domain/purchase-request.ts). Lines
// and terms as an invoice's (shape A). Answers 201 like an invoice create; an Idempotency-Key
// replays; `Prefer: wait=N` waits for `enviada` or a final state.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { createPurchase, preparePurchase } from '../../../db/queries/purchases.ts';
import { DomainValidationError } from '../../../domain/errors.ts';
import { formatId } from '../../../domain/ids.ts';
import { parsePurchaseRequest } from '../../../domain/purchase-request.ts';
import type { AuthContext } from '../../auth.ts';
import { validationError } from '../../errors.ts';
import { requestLanguage } from '../../language.ts';
import { findStoredAnswer, sendReplay } from '../../plugins/idempotency.ts';
import { preferWait, waitForSettled } from '../../prefer-wait.ts';
import { invoiceObject } from '../../presenters/invoices.ts';

export async function createPurchaseResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Knex,
  auth: AuthContext,
): Promise<FastifyReply> {
  const body = request.body as Record<string, unknown>;
  const idem = request.idempotency;
  // 1. A finished request under this key is replayed before anything else is checked.
  const stored = await findStoredAnswer(db, request);
  if (stored) return sendReplay(reply, stored);
  // 2. The supplier, then the lines and terms like an invoice's (with a stand-in client).
  const issuing = request.server.issuing;
  const company = await issuing.company(auth);
  const parsed = parsePurchaseRequest(body, company.idNumber);
  if (!parsed.ok) throw validationError(parsed.errors);
  const { request: req, supplier } = parsed.value;
  const send = req.send;
  if (send) await issuing.issuer(auth);

  // 3. Prepared from the catalogue, then recorded in its own series.
  let prepared;
  try {
    prepared = await preparePurchase(db, auth, company, req, supplier);
  } catch (err) {
    if (err instanceof DomainValidationError) throw validationError(err.errors);
    throw err;
  }
  const outcome = await createPurchase(db, auth, prepared, {
    emisorId: company.idNumber,
    send,
    requestId: request.id,
    idempotency: idem,
    render: (row) => invoiceObject(row),
  });
  if (outcome.kind === 'replay') return sendReplay(reply, outcome.response);
  reply.header('location', `/api/v1/invoices/${formatId('invoice', outcome.row.id)}`);
  const wait = preferWait(request);
  const row =
    wait !== null && send
      ? await waitForSettled(request, reply, db, auth, outcome.row.id, wait)
      : outcome.row;
  return reply.code(201).send(invoiceObject(row, requestLanguage(request)));
}
