// POST /api/v1/invoices/{id}/send: issues a draft. The consecutivo is reserved now (drafts never
// consume one) and the flow starts. Sending an invoice already issued answers it as it is.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { issueDraft } from '../../../db/queries/invoices.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError } from '../../errors.ts';
import { requestLanguage } from '../../language.ts';
import { errorResponses, IdParam, PreferWaitHeaders } from '../../schemas/common.ts';
import { InvoiceObject } from '../../schemas/invoices.ts';
import type { AppDeps } from '../../deps.ts';
import { invoiceObject } from '../../presenters/invoices.ts';
import { loadInvoice } from '../../lookups.ts';
import { preferWait, waitForSettled } from '../../prefer-wait.ts';

export default async function sendInvoiceRoute(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/invoices/:id/send',
    {
      config: { scope: 'write:invoices' },
      schema: {
        tags: ['invoices'],
        summary: 'Issue a draft invoice',
        params: IdParam,
        headers: PreferWaitHeaders,
        response: { 200: InvoiceObject, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const lang = requestLanguage(request);
      const draft = await loadInvoice(db, auth, request.params.id);
      if (draft.status !== 'borrador') {
        throw new ApiError(
          'invalid_state',
          `Invoice ${request.params.id} is already issued (status ${draft.status})`,
          {
            fields: { invoice_status: draft.status },
          },
        );
      }
      const company = await request.server.issuing.issuer(auth);
      const issued = await issueDraft(db, auth, draft.id, {
        emisorId: company.idNumber,
        requestId: request.id,
      });
      if (!issued)
        throw new ApiError('invalid_state', `Invoice ${request.params.id} was issued by another request`);
      const wait = preferWait(request);
      if (wait !== null) {
        return invoiceObject(await waitForSettled(request, reply, db, auth, issued.id, wait), lang);
      }
      return invoiceObject(issued, lang);
    },
  );
}
