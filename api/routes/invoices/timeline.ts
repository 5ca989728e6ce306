// GET /api/v1/invoices/{id}/timeline: what happened to one document, oldest first — recorded,
// signed, submitted, Hacienda's answer, each email to the receptor, each payment, and the notes
// that credit it (db/queries/invoice-timeline.ts). Read with read:invoices, like the invoice itself:
// the invoice browser draws its document page from this and GET /api/v1/invoices/{id}.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { invoiceTimeline } from '../../../db/queries/invoice-timeline.ts';
import { tenantOf } from '../../auth.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';
import { TimelineList } from '../../schemas/invoices.ts';
import type { AppDeps } from '../../deps.ts';
import { loadInvoice } from '../../lookups.ts';

export default async function invoiceTimelineRoute(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/invoices/:id/timeline',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags: ['invoices'],
        summary: "An invoice's timeline, oldest first",
        description:
          'Recorded, signed, submitted, answered by Hacienda, emailed (each email), paid (each payment) and ' +
          'credited (each credit note referencing it in the last 30 days). Always the whole timeline: ' +
          '`has_more` is false.',
        params: IdParam,
        response: { 200: TimelineList, ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const row = await loadInvoice(db, auth, request.params.id);
      const entries = await invoiceTimeline(db, auth, row);
      return {
        object: 'list' as const,
        data: entries.map((e) => ({ object: 'timeline_entry' as const, ...e })),
        has_more: false,
      };
    },
  );
}
