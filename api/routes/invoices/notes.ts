// POST /api/v1/invoices/{id}/credit_notes and …/debit_notes: a note (tipo 03 / 02) referencing an
// accepted document, recorded in one transaction with the referenced document locked (see
// operations/credit-notes.ts); the note then travels the same flow as an invoice.
// Idempotency-Key replays like invoice creation.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createNote, NoteRefused } from '../../../operations/credit-notes.ts';
import { formatId, parseId } from '../../../domain/ids.ts';
import type { NoteKind } from '../../../domain/document-notes.ts';
import { tenantOf } from '../../auth.ts';
import type { AppDeps } from '../../deps.ts';
import { ApiError, notFound } from '../../errors.ts';
import { requestLanguage } from '../../language.ts';
import { sendReplay } from '../../plugins/idempotency.ts';
import { invoiceObject } from '../../presenters/invoices.ts';
import { errorResponses, IdempotencyHeaders, IdParam } from '../../schemas/common.ts';
import { InvoiceObject } from '../../schemas/invoices.ts';
import { CreateDebitNoteBody, CreateNoteBody } from '../../schemas/notes.ts';

const DESCRIPTIONS: Record<NoteKind, string> = {
  credit:
    'Credits the whole document (no `lines`: annuls it) or some of its lines. The credits of a ' +
    'document never exceed its total (`credit_exceeds_total`); only a document Hacienda accepted ' +
    'can be referenced (`reference_not_accepted`). The note is an issued document (`inv_…`, ' +
    '`document_type` 03) that goes through the same flow as an invoice.',
  debit:
    'Adds to a document Hacienda accepted: the whole of it (no `lines`) or some of its lines. The ' +
    'note is an issued document (`inv_…`, `document_type` 02) that goes through the same flow. On ' +
    'a tiquete sold to no one (settled at issue) the note is collected at once: by ' +
    "`payment_method` or `payments`, default the tiquete's method.",
};

/** What the note rules refused, as the problem the caller gets. */
async function refusedAsProblem<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof NoteRefused) throw new ApiError(err.code, err.message, { fields: err.fields });
    throw err;
  }
}

export default async function noteRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  for (const kind of ['credit', 'debit'] as NoteKind[]) {
    const path = kind === 'credit' ? 'credit_notes' : 'debit_notes';
    app.post(
      `/api/v1/invoices/:id/${path}`,
      {
        config: { scope: 'write:invoices', idempotency: {} },
        schema: {
          tags: ['invoices'],
          summary:
            kind === 'credit'
              ? 'Issue a credit note (03) of a document'
              : 'Issue a debit note (02) of a document',
          description: DESCRIPTIONS[kind],
          params: IdParam,
          body: kind === 'credit' ? CreateNoteBody : CreateDebitNoteBody,
          headers: IdempotencyHeaders,
          response: { 201: InvoiceObject, ...errorResponses(404, 409, 422) },
        },
      },
      async (request, reply) => {
        const auth = tenantOf(request);
        const invoiceId = parseId('invoice', request.params.id);
        if (invoiceId === null) throw notFound('invoice', request.params.id);
        const company = await request.server.issuing.issuer(auth);
        const outcome = await refusedAsProblem(
          createNote(db, auth, {
            kind,
            invoiceId,
            body: request.body,
            emisorId: company.idNumber,
            requestId: request.id,
            idempotency: request.idempotency,
            render: (row) => invoiceObject(row),
          }),
        );
        if (outcome.kind === 'not_found') throw notFound('invoice', request.params.id);
        if (outcome.kind === 'replay') return sendReplay(reply, outcome.response);
        reply.header('location', `/api/v1/invoices/${formatId('invoice', outcome.note.id)}`);
        return reply.code(201).send(invoiceObject(outcome.note, requestLanguage(request)));
      },
    );
  }
}
