// POST /api/v1/invoices/{id}/credit_notes and …/debit_notes: a note (tipo 03 / 02) referencing an
// accepted document, recorded in one transaction with the referenced document locked (see
// operations/credit-notes.ts); the note then travels the same flow as an invoice.
// Idempotency-Key replays like invoice creation.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getCompany } from '../../../db/queries/companies.ts';
import { createNote, NoteRefused } from '../../../operations/credit-notes.ts';
import {
  findIdempotent,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
} from '../../../db/queries/idempotency.ts';
import { invoiceObject } from '../../../db/public-objects.ts';
import { formatId, parseId } from '../../../domain/ids.ts';
import type { NoteKind } from '../../../domain/document-notes.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, notFound } from '../../errors.ts';
import { idempotencyFromRequest, requestLanguage } from '../../idempotency.ts';
import { errorResponses, IdempotencyHeaders, IdParam } from '../../schemas/common.ts';
import { InvoiceObject } from '../../schemas/invoices.ts';
import { CreateDebitNoteBody, CreateNoteBody } from '../../schemas/notes.ts';
import type { AppDeps } from '../../app.ts';
import { assertCanIssue } from './create.ts';

const reused = () =>
  new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');

export default async function noteRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  for (const kind of ['credit', 'debit'] as NoteKind[]) {
    const path = kind === 'credit' ? 'credit_notes' : 'debit_notes';
    app.post(
      `/api/v1/invoices/:id/${path}`,
      {
        config: { scope: 'write:invoices' },
        schema: {
          tags: ['invoices'],
          summary:
            kind === 'credit'
              ? 'Issue a credit note (03) of a document'
              : 'Issue a debit note (02) of a document',
          description:
            kind === 'credit'
              ? 'Credits the whole document (no `lines`: annuls it) or some of its lines. The credits of a ' +
                'document never exceed its total (`credit_exceeds_total`); only a document Hacienda accepted ' +
                'can be referenced (`reference_not_accepted`). The note is an issued document (`inv_…`, ' +
                '`document_type` 03) that goes through the same flow as an invoice.'
              : 'Adds to a document Hacienda accepted: the whole of it (no `lines`) or some of its lines. The ' +
                'note is an issued document (`inv_…`, `document_type` 02) that goes through the same flow. On ' +
                'a tiquete sold to no one (settled at issue) the note is collected at once: by ' +
                "`payment_method` or `payments`, default the tiquete's method.",
          params: IdParam,
          body: kind === 'credit' ? CreateNoteBody : CreateDebitNoteBody,
          headers: IdempotencyHeaders,
          response: { 201: InvoiceObject, ...errorResponses(404, 409, 422) },
        },
      },
      async (request, reply) => {
        const auth = tenantOf(request);
        const route = `POST /api/v1/invoices/${request.params.id}/${path}`;
        const idem = idempotencyFromRequest(request, route);
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
        const invoiceId = parseId('invoice', request.params.id);
        if (invoiceId === null) throw notFound('invoice', request.params.id);
        const company = (await getCompany(db, auth.companyId))!;
        await assertCanIssue(db, company, auth);

        // 2. Record the note.
        let outcome;
        try {
          outcome = await createNote(db, auth, {
            kind,
            invoiceId,
            body: request.body,
            emisorId: company.idNumber,
            requestId: request.id,
            idempotency: idem,
            render: (row) => invoiceObject(row),
          });
        } catch (err) {
          if (err instanceof NoteRefused) throw new ApiError(err.code, err.message, { fields: err.fields });
          if (err instanceof IdempotencyKeyInUse)
            throw new ApiError(
              'idempotency_key_in_use',
              'A request with this Idempotency-Key is still being processed; retry shortly',
              { headers: { 'retry-after': '1' } },
            );
          if (err instanceof IdempotencyKeyReused) throw reused();
          if ((err as { constraint?: string }).constraint === 'invoices_credited_total_check')
            throw new ApiError('credit_exceeds_total', "The credits would exceed the document's total");
          throw err;
        }
        if (outcome.kind === 'not_found') throw notFound('invoice', request.params.id);
        if (outcome.kind === 'replay')
          return reply
            .code(outcome.response.status as 201)
            .header('idempotent-replayed', 'true')
            .send(outcome.response.body as never);
        reply.header('location', `/api/v1/invoices/${formatId('invoice', outcome.note.id)}`);
        return reply.code(201).send(invoiceObject(outcome.note, requestLanguage(request)));
      },
    );
  }
}
