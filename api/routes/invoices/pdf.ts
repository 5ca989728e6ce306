// GET /api/v1/invoices/{id}/pdf: the representación gráfica of an issued document, rendered on
// demand and cached until its Hacienda state changes (jobs/invoice-pdf.ts). A draft has no clave
// and no PDF: 409 invalid_state.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DocumentDataError } from '../../../jobs/invoice-document.ts';
import { invoicePdf } from '../../../jobs/invoice-pdf.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError } from '../../errors.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';
import { loadInvoice } from '../../lookups.ts';
import { sendBytes } from '../../byte-answers.ts';

export default async function invoicePdfRoute(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/invoices/:id/pdf',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags: ['invoices'],
        summary: 'The PDF (representación gráfica) of an issued document',
        description:
          'Emisor and receptor, clave with its QR code, consecutivo, lines with taxes and exonerations, ' +
          "totals in the document's currency and its state with Hacienda. Rendered on demand and cached " +
          'until the state changes (`X-Cache: hit` or `miss`). A draft has no PDF (409).',
        params: IdParam,
        response: { 200: Type.String({ description: 'application/pdf' }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const row = await loadInvoice(db, auth, request.params.id);
      if (row.status === 'borrador' || !row.clave)
        throw new ApiError(
          'invalid_state',
          `Invoice ${request.params.id} is a draft: it has no clave and no PDF until it is sent`,
        );
      let result;
      try {
        result = await invoicePdf(db, config, row);
      } catch (err) {
        if (err instanceof DocumentDataError)
          throw new ApiError(
            'invalid_state',
            `The PDF of ${request.params.id} cannot be made: ${err.message}`,
          );
        throw err;
      }
      reply
        .header('content-disposition', `inline; filename="${row.clave}.pdf"`)
        .header('x-cache', result.cached ? 'hit' : 'miss')
        .header('cache-control', 'private, no-cache');
      return sendBytes(reply, 'application/pdf', result.pdf);
    },
  );
}
