// POST /api/v1/credit_notes: a credit note (03) of a document issued before the company used the
// service, named by its clave. The note's client and lines are given like an invoice's (either
// request shape); its reference is the clave, type and date given. Idempotency-Key replays like
// invoice creation.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getCompany } from '../../../db/queries/companies.ts';
import { createExternalCreditNote } from '../../../operations/credit-notes.ts';
import {
  findIdempotent,
  IdempotencyKeyInUse,
  IdempotencyKeyReused,
} from '../../../db/queries/idempotency.ts';
import { prepareInvoice } from '../../../db/queries/invoice-prepare.ts';
import { invoiceObject } from '../../../db/public-objects.ts';
import { checkExternalReference, checkNoteHeader } from '../../../domain/document-notes.ts';
import type { FieldError } from '../../../domain/errors.ts';
import { formatId } from '../../../domain/ids.ts';
import { parseInvoiceRequest } from '../../../domain/invoice-request.ts';
import { computeDocumentTotals } from '../../../domain/totals.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, validationError } from '../../errors.ts';
import { idempotencyFromRequest, requestLanguage } from '../../idempotency.ts';
import { errorResponses, IdempotencyHeaders } from '../../schemas/common.ts';
import { InvoiceObject } from '../../schemas/invoices.ts';
import { CreateExternalCreditNoteBody } from '../../schemas/notes.ts';
import type { AppDeps } from '../../app.ts';
import { assertCanIssue } from '../invoices/create.ts';

const ROUTE = 'POST /api/v1/credit_notes';
const reused = () =>
  new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');

export default async function externalCreditNoteRoute(
  fastify: FastifyInstance,
  { db }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/credit_notes',
    {
      config: { scope: 'write:invoices' },
      schema: {
        tags: ['invoices'],
        summary: 'Issue a credit note of a document issued outside the service',
        description:
          'For a document issued before the company used the service: `reference.clave`, its type and ' +
          'issue date; the client and lines as in an invoice. The note (`document_type` 03, `inv_…`) goes ' +
          'through the same flow as an invoice. No cap applies: the service never saw that document.',
        body: CreateExternalCreditNoteBody,
        headers: IdempotencyHeaders,
        response: { 201: InvoiceObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const idem = idempotencyFromRequest(request, ROUTE);
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
      // 1. The reference, reason and code; then the client and lines as an invoice's.
      const { reference, reason, code, ...rest } = request.body;
      const errors: FieldError[] = [];
      const header = checkNoteHeader(errors, 'credit', { reason, code }, true);
      if (code === undefined) header.code = '02';
      const ref = checkExternalReference(errors, reference, new Date());
      const parsed = parseInvoiceRequest(rest as never);
      if (!parsed.ok) errors.push(...parsed.errors);
      if (errors.length || !parsed.ok || !ref) throw validationError(errors);
      const company = (await getCompany(db, auth.companyId))!;
      await assertCanIssue(db, company, auth);

      // 2. Prepared like an invoice, as a credit note that references the clave.
      const prepared = await prepareInvoice(db, auth, company, parsed.value);
      prepared.docType = '03';
      // The same totals as a note: its other charges and its payments as resolved (each amount).
      prepared.totals = computeDocumentTotals(
        prepared.lines.map((l) => l.input),
        {
          currency: prepared.currency as never,
          exchangeRate: prepared.exchangeRate,
          docType: '03',
          otherCharges: parsed.value.otherCharges,
          payments: prepared.totals.summary.medioPago?.map((m) => ({
            type: m.type,
            other: m.other,
            amount: m.total,
          })),
        },
      );
      prepared.reference = { documentId: null, ...ref, code: header.code, reason: header.reason! };

      // 3. Record.
      let outcome;
      try {
        outcome = await createExternalCreditNote(db, auth, prepared, {
          emisorId: company.idNumber,
          requestId: request.id,
          idempotency: idem,
          render: (row) => invoiceObject(row),
        });
      } catch (err) {
        if (err instanceof IdempotencyKeyInUse)
          throw new ApiError(
            'idempotency_key_in_use',
            'A request with this Idempotency-Key is still being processed; retry shortly',
            { headers: { 'retry-after': '1' } },
          );
        if (err instanceof IdempotencyKeyReused) throw reused();
        if ((err as { constraint?: string }).constraint === 'invoices_external_id_key')
          throw new ApiError('duplicate_external_id', 'external_id is already used by another document');
        throw err;
      }
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
