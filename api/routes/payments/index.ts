// Payments of an invoice: POST /api/v1/invoices/{id}/payments (write:payments) records one in a
// single transaction (see operations/payments.ts); Idempotency-Key replays like invoice creation.
// GET /api/v1/invoices/{id}/payments (read:invoices) lists them, oldest first.
// Payable: issued invoices (pendiente, enviada, aceptada); a draft or a rejected invoice → 422
// invoice_not_payable, a paid one → 422 invoice_already_paid, too much → 422 payment_exceeds_balance.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { Decimal } from 'decimal.js';
import { listPayments } from '../../../db/queries/payments.ts';
import { createPayment, PaymentRefused } from '../../../operations/payments.ts';
import { ReceiptRefused } from '../../../db/queries/receipts.ts';
import { documentBalance } from '../../../domain/balance.ts';
import { parseId } from '../../../domain/ids.ts';
import { PAID_AT_SKEW_MS } from '../../../domain/payments.ts';
import type { PaymentMethodName } from '../../../domain/sale-terms.ts';
import { tenantOf } from '../../auth.ts';
import type { AppDeps } from '../../deps.ts';
import { ApiError, notFound, validationError } from '../../errors.ts';
import { loadInvoice } from '../../lookups.ts';
import { sendReplay } from '../../plugins/idempotency.ts';
import { paymentObject } from '../../presenters/invoices.ts';
import { errorResponses, IdParam, ListOf, IdempotencyHeaders } from '../../schemas/common.ts';
import { CreatePaymentBody, PaymentObject } from '../../schemas/payments.ts';

const DESCRIPTION =
  'Books cash against receivables. `issue_receipt: true` on a payment of an accepted credit sale ' +
  'also issues a recibo electrónico de pago (document_type 10, `receipt` on the payment) that ' +
  'references the invoice; refused with `receipt_not_applicable` (not a credit sale) or ' +
  '`reference_not_accepted` (not accepted yet), recording nothing.';

/** Input rules the schema cannot say: a positive amount, paid no later than now. Returns paid_at. */
function checkPaymentInput(body: Static<typeof CreatePaymentBody>): Date {
  if (!/[1-9]/.test(body.amount))
    throw validationError([{ path: '/amount', code: 'out_of_range', message: 'must be greater than 0' }]);
  const paidAt = body.paid_at ? new Date(body.paid_at) : new Date();
  if (paidAt.getTime() > Date.now() + PAID_AT_SKEW_MS)
    throw validationError([{ path: '/paid_at', code: 'out_of_range', message: 'must not be in the future' }]);
  return paidAt;
}

/** What the payment and receipt rules refused, as the problem the caller gets. */
async function refusedAsProblem<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
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
    throw err;
  }
}

export default async function paymentRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['payments'];

  app.post(
    '/api/v1/invoices/:id/payments',
    {
      config: { scope: 'write:payments', idempotency: {} },
      schema: {
        tags,
        summary: 'Record a payment of an invoice',
        description: DESCRIPTION,
        params: IdParam,
        body: CreatePaymentBody,
        headers: IdempotencyHeaders,
        response: { 201: PaymentObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const body = request.body;
      const paidAt = checkPaymentInput(body);
      const invoiceId = parseId('invoice', request.params.id);
      if (invoiceId === null) throw notFound('invoice', request.params.id);
      // A receipt is an issued document: the company must be able to issue (and sign) it.
      const receiptIssuer = body.issue_receipt === true ? await request.server.issuing.issuer(auth) : null;
      const outcome = await refusedAsProblem(
        createPayment(
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
          { requestId: request.id, idempotency: request.idempotency },
        ),
      );
      if (outcome.kind === 'not_found') throw notFound('invoice', request.params.id);
      if (outcome.kind === 'replay') return sendReplay(reply, outcome.response);
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
