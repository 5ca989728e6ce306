// POST /api/v1/received_documents/{id}/answer: the company's answer to a received document,
// sent to Hacienda as a MensajeReceptor (accepted → Mensaje 1, tipo 05; partially_accepted → 2,
// 06; rejected → 3, 07). The rules of reason, IVA credit, expense and tax condition are
// domain/received-answer.ts (422 validation_failed, naming the field). The answer is recorded once
// with its job (through the outbox) and answered 202; the worker signs, sends and polls it
// (jobs/received-answers/answer.ts) and `received_document.answered` tells the verdict. A second answer
// request, whatever it says, is 409 already_answered and changes nothing. Scope write:invoices or
// answer:received (a role that answers received documents without issuing, e.g. an accountant).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requestAnswer } from '../../../db/queries/received-documents.ts';
import { receivedDocumentObject } from '../../../db/received-document-object.ts';
import { planAnswer } from '../../../domain/received-answer.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, validationError } from '../../errors.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';
import { AnswerReceivedDocumentBody, ReceivedDocumentObject } from '../../schemas/received-documents.ts';
import type { AppDeps } from '../../deps.ts';
import { loadReceivedDocument } from '../../lookups.ts';

export default async function answerReceivedDocumentRoute(
  fastify: FastifyInstance,
  { db }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/received_documents/:id/answer',
    {
      config: { anyScope: ['write:invoices', 'answer:received'] },
      schema: {
        tags: ['received documents'],
        summary: 'Answer a received document (MensajeReceptor to Hacienda)',
        description:
          'Accept, partially accept or reject the document. Answered once: the message is signed, sent to ' +
          'Hacienda and polled by the worker; `answer.status` follows it and `received_document.answered` ' +
          'carries the verdict. A second request is 409 already_answered.',
        params: IdParam,
        body: AnswerReceivedDocumentBody,
        response: { 202: ReceivedDocumentObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const doc = await loadReceivedDocument(db, auth, request.params.id);
      const already = () =>
        new ApiError('already_answered', `Document ${request.params.id} was already answered`, {
          fields: { answer_status: doc.answerStatus },
        });
      if (doc.answerResult !== null) throw already();
      const planned = planAnswer(request.body, { totalTax: doc.totalTax, total: doc.total });
      if (!planned.ok) throw validationError(planned.errors);
      const p = planned.plan;
      const row = await requestAnswer(
        db,
        auth,
        doc.id,
        {
          result: p.result,
          reason: p.reason,
          taxCondition: p.taxCondition,
          ivaCredit: p.ivaCredit,
          expense: p.expense,
          activityCode: p.activityCode,
        },
        request.id,
      );
      // Another request answered it in between: the same refusal as a late second request.
      if (!row) throw already();
      return reply.code(202).send(receivedDocumentObject(row));
    },
  );
}
