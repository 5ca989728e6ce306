// POST /api/v1/invoices/{id}/email: email an accepted document to its receptor again (the PDF,
// the signed XML and Hacienda's answer), with optional extra recipients for this email. Recorded
// with an outbox row and sent by the `invoice.email` job: 202 with the email's state; the
// outcome comes as `invoice.emailed` or `email.failed`. Works whether or not the company emails
// accepted documents by itself.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { resendInvoiceEmail } from '../../../db/queries/invoice-emails.ts';
import { formatId } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError } from '../../errors.ts';
import { errorResponses, IdParam, nameSchemas } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';
import { loadInvoice } from '../../lookups.ts';

const ResendBody = Type.Union(
  [
    Type.Object(
      {
        recipients: Type.Optional(
          Type.Array(Type.String({ format: 'email', maxLength: 160 }), {
            maxItems: 10,
            description: "Addresses added to this email, beside the client's and the invoice's",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { examples: [{ recipients: ['contabilidad@valle.example'] }] },
);

const InvoiceEmailObject = Type.Object({
  id: Type.String({ examples: ['eml_000000000007'] }),
  object: Type.Literal('invoice_email'),
  invoice_id: Type.String({ examples: ['inv_000000000042'] }),
  round: Type.Integer({ description: '0: the email at acceptance; 1, 2, …: resends' }),
  status: Type.String({ enum: ['pending', 'sent', 'failed', 'bounced'] }),
  recipients: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
});

export default async function invoiceEmailRoute(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/invoices/:id/email',
    {
      config: { scope: 'write:invoices' },
      schema: {
        tags: ['invoices'],
        summary: 'Email an accepted document to its receptor again',
        params: IdParam,
        body: ResendBody,
        response: { 202: InvoiceEmailObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const row = await loadInvoice(db, auth, request.params.id);
      if (row.status !== 'aceptada')
        throw new ApiError(
          'invalid_state',
          `Invoice ${request.params.id} is ${row.status}: only accepted documents are emailed`,
        );
      const extra = request.body?.recipients ?? [];
      const resent = await resendInvoiceEmail(db, row, extra, request.id);
      if (resent.kind === 'no_recipients')
        throw new ApiError('validation_failed', 'The client has no email address: give recipients', {
          errors: [{ path: '/recipients', code: 'required', message: 'at least one recipient is needed' }],
        });
      const email = resent.email;
      return reply.code(202).send({
        id: formatId('invoiceEmail', email.id),
        object: 'invoice_email' as const,
        invoice_id: formatId('invoice', row.id),
        round: email.round,
        status: email.status,
        recipients: email.recipients,
        created_at: new Date(email.createdAt).toISOString(),
      });
    },
  );
}

// Its name in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({ InvoiceEmail: InvoiceEmailObject });
