// Payments of an invoice: POST /api/v1/invoices/{id}/payments (write:payments) records one in a
// single transaction (see operations/payments.ts); Idempotency-Key replays like invoice creation.
// GET /api/v1/invoices/{id}/payments (read:invoices) lists them, oldest first.
// Payable: issued invoices (pendiente, enviada, aceptada); a draft or a rejected invoice → 422
// invoice_not_payable, a paid one → 422 invoice_already_paid, too much → 422 payment_exceeds_balance.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Decimal } from 'decimal.js';
import { paymentObject } from '../../../db/public-objects.ts';
import {
  findIdempotent,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
} from '../../../db/queries/idempotency.ts';
import { listPayments } from '../../../db/queries/payments.ts';
import { createPayment, PaymentRefused } from '../../../operations/payments.ts';
import { ReceiptRefused } from '../../../db/queries/receipts.ts';
import { getCompany } from '../../../db/queries/companies.ts';
import { assertCanIssue } from '../invoices/create.ts';
import { documentBalance } from '../../../domain/balance.ts';
import { parseId } from '../../../domain/ids.ts';
import { PAID_AT_SKEW_MS } from '../../../domain/payments.ts';
import type { PaymentMethodName } from '../../../domain/sale-terms.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, notFound, validationError } from '../../errors.ts';
import { idempotencyFromRequest } from '../../idempotency.ts';
import { errorResponses, IdParam, ListOf, IdempotencyHeaders } from '../../schemas/common.ts';
import { CreatePaymentBody, PaymentObject } from '../../schemas/payments.ts';
import type { AppDeps } from '../../app.ts';
import { loadInvoice } from '../invoices/read.ts';

const reused = () =>
  new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');

export default async function paymentRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['payments'];

  app.post(
    '/api/v1/invoices/:id/payments',
    {
      config: { scope: 'write:payments' },
      schema: {
        tags,
        summary: 'Record a payment of an invoice',
        description:
          'Books cash against receivables. `issue_receipt: true` on a payment of an accepted credit sale ' +
          'also issues a recibo electrónico de pago (document_type 10, `receipt` on the payment) that ' +
          'references the invoice; refused with `receipt_not_applicable` (not a credit sale) or ' +
          '`reference_not_accepted` (not accepted yet), recording nothing.',
        params: IdParam,
        body: CreatePaymentBody,
        headers: IdempotencyHeaders,
        response: { 201: PaymentObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const body = request.body;
      const idem = idempotencyFromRequest(request, `POST /api/v1/invoices/${request.params.id}/payments`);
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
      // 2. Input rules the schema cannot say.
      if (!/[1-9]/.test(body.amount))
        throw validationError([{ path: '/amount', code: 'out_of_range', message: 'must be greater than 0' }]);
      const paidAt = body.paid_at ? new Date(body.paid_at) : new Date();
      if (paidAt.getTime() > Date.now() + PAID_AT_SKEW_MS)
        throw validationError([
          { path: '/paid_at', code: 'out_of_range', message: 'must not be in the future' },
        ]);
      const invoiceId = parseId('invoice', request.params.id);
      if (invoiceId === null) throw notFound('invoice', request.params.id);
      // A receipt is an issued document: the company must be able to issue (and sign) it.
      let receiptIssuer = null;
      if (body.issue_receipt === true) {
        receiptIssuer = (await getCompany(db, auth.companyId))!;
        await assertCanIssue(db, receiptIssuer, auth);
      }

      // 3. Record.
      let outcome;
      try {
        outcome = await createPayment(
          db,
          auth,
          invoiceId,
          {
            amount: body.amount,
            method: body.method as PaymentMethodName,
            paidAt,
            reference: body.reference ?? null,
            receiptIssuer,
          },
          { requestId: request.id, idempotency: idem },
        );
      } catch (err) {
        if (err instanceof PaymentRefused) {
          const r = err.refusal;
          throw new ApiError(r.code, r.message, {
            fields: r.code === 'payment_exceeds_balance' ? { balance_due: r.balanceDue } : {},
            errors:
              r.code === 'payment_exceeds_balance'
                ? [{ path: '/amount', code: r.code, message: r.message }]
                : undefined,
          });
        }
        if (err instanceof ReceiptRefused)
          throw new ApiError(err.code, err.message, {
            errors: [{ path: '/issue_receipt', code: err.code, message: err.message }],
          });
        if (err instanceof IdempotencyKeyInUse) {
          throw new ApiError(
            'idempotency_key_in_use',
            'A request with this Idempotency-Key is still being processed; retry shortly',
            { headers: { 'retry-after': '1' } },
          );
        }
        if (err instanceof IdempotencyKeyReused) throw reused();
        throw err;
      }
      if (outcome.kind === 'not_found') throw notFound('invoice', request.params.id);
      if (outcome.kind === 'replay') {
        return reply
          .code(outcome.response.status as 201)
          .header('idempotent-replayed', 'true')
          .send(outcome.response.body as never);
      }
      return reply.code(201).send(paymentObject(outcome.payment, outcome.invoice));
    },
  );

  app.get(
    '/api/v1/invoices/:id/payments',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags,
        summary: "An invoice's payments, oldest first",
        params: IdParam,
        response: { 200: ListOf(PaymentObject), ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const invoice = await loadInvoice(db, auth, request.params.id);
      const rows = await listPayments(db, auth, invoice.id);
      // Each payment shows the balance right after it, computed as the invoice's is: the total
      // less the document's credits and the payments up to that one (the last shows the invoice's).
      let applied = '0';
      const data = rows.map((p) => {
        applied = new Decimal(applied).plus(p.appliedAmount).toFixed(5);
        return paymentObject(
          p,
          documentBalance({ ...invoice, applied, annulled: invoice.annulledAt != null }),
        );
      });
      return { object: 'list' as const, data, has_more: false };
    },
  );
}
