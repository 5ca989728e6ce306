// POST /api/v1/invoices/{id}/retry: an invoice whose flow stopped for good before Hacienda
// received it (a `pendiente` invoice with a permanent `processing_error`: a certificate that
// expired before signing, say) goes through the pipeline again once its cause is corrected,
// under its own consecutivo and clave. `202` with the invoice (its error cleared); the rule and
// the refusals are in domain/invoice-retry.ts, the transaction in db/queries/invoice-retry.ts.
// No body (an empty one is accepted); Idempotency-Key replays like the other POSTs.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { retryInvoice } from '../../../db/queries/invoice-retry.ts';
import { parseId } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import type { AppDeps } from '../../deps.ts';
import { ApiError, notFound } from '../../errors.ts';
import { requestLanguage } from '../../language.ts';
import { sendReplay } from '../../plugins/idempotency.ts';
import { invoiceObject } from '../../presenters/invoices.ts';
import { errorResponses, IdempotencyHeaders, IdParam } from '../../schemas/common.ts';
import { InvoiceObject } from '../../schemas/invoices.ts';

export default async function retryInvoiceRoute(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/invoices/:id/retry',
    {
      config: { scope: 'write:invoices', idempotency: {} },
      schema: {
        tags: ['invoices'],
        summary: 'Send again an invoice that failed before reaching Hacienda',
        description:
          'For a `pendiente` invoice whose `processing_error` is permanent (its flow stopped before ' +
          'Hacienda received it: no or an expired signing certificate, a document that could not be ' +
          'built). Once the cause is corrected, the same invoice — same consecutivo and clave — is ' +
          'signed, submitted, booked and followed again; `invoice.retried` is recorded. `409 ' +
          'invoice_not_retryable`: a draft, an invoice Hacienda received (`enviada`, `aceptada`, ' +
          '`rechazada` — a rejected one is replaced by a new document with `replaces`), or one still ' +
          'in flight. `409 retry_cause_persists`: the signing certificate is still missing or ' +
          'expired (or, live, the Hacienda API user). No body.',
        params: IdParam,
        headers: IdempotencyHeaders,
        response: { 202: InvoiceObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const invoiceId = parseId('invoice', request.params.id);
      if (invoiceId === null) throw notFound('invoice', request.params.id);
      const outcome = await retryInvoice(db, auth, invoiceId, {
        requestId: request.id,
        idempotency: request.idempotency,
      });
      switch (outcome.kind) {
        case 'not_found':
          throw notFound('invoice', request.params.id);
        case 'replay':
          return sendReplay(reply, outcome.response);
        case 'refused':
          throw new ApiError(
            outcome.refusal.code,
            `Invoice ${request.params.id}: ${outcome.refusal.message}`,
            {
              fields: {
                invoice_status: outcome.invoice.status,
                processing_error: outcome.invoice.processingError,
              },
            },
          );
        case 'retried':
          return reply.code(202).send(invoiceObject(outcome.invoice, requestLanguage(request)));
      }
    },
  );
}
