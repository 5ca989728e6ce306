// Reading received documents: one (`rcv_…`), and the list, newest first with cursor pagination
// (`starting_after`, `limit`, `has_more`) and an answer-state filter. A company sees only its own,
// in the mode of its key.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listReceivedDocuments } from '../../../db/queries/received-documents.ts';
import { receivedDocumentObject } from '../../../db/received-document-object.ts';
import { parseId } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { loadReceivedDocument } from '../../lookups.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import { ListReceivedDocumentsQuery, ReceivedDocumentObject } from '../../schemas/received-documents.ts';
import type { AppDeps } from '../../deps.ts';

export default async function readReceivedDocumentRoutes(
  fastify: FastifyInstance,
  { db }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['received documents'];

  app.get(
    '/api/v1/received_documents/:id',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags,
        summary: 'Retrieve a received document and its answer',
        params: IdParam,
        response: { 200: ReceivedDocumentObject, ...errorResponses(404) },
      },
    },
    async (request) =>
      receivedDocumentObject(await loadReceivedDocument(db, tenantOf(request), request.params.id)),
  );

  app.get(
    '/api/v1/received_documents',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags,
        summary: 'List received documents, newest first',
        querystring: ListReceivedDocumentsQuery,
        response: { 200: ListOf(ReceivedDocumentObject), ...errorResponses(422) },
      },
    },
    async (request) => {
      const q = request.query;
      const { rows, hasMore } = await listReceivedDocuments(db, tenantOf(request), {
        answerStatus: q.answer_status === 'unanswered' ? undefined : q.answer_status,
        unanswered: q.answer_status === 'unanswered',
        startingAfter: q.starting_after
          ? (parseId('receivedDocument', q.starting_after) ?? undefined)
          : undefined,
        limit: q.limit ?? 20,
      });
      return { object: 'list' as const, data: rows.map(receivedDocumentObject), has_more: hasMore };
    },
  );
}
