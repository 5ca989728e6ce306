// POST /api/v1/credit_notes: a credit note (03) of a document issued before the company used the
// service, named by its clave. The note's client and lines are given like an invoice's (either
// request shape); its reference is the clave, type and date given. Idempotency-Key replays like
// invoice creation.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Knex } from 'knex';
import type { Company } from '../../../db/models/index.ts';
import type { Tenant } from '../../../db/queries/clients.ts';
import { createExternalCreditNote } from '../../../operations/credit-notes.ts';
import { prepareInvoice } from '../../../db/queries/invoice-prepare.ts';
import type { PreparedInvoice } from '../../../db/queries/invoices.ts';
import type { CodigoMoneda } from '../../../domain/codes.ts';
import { checkExternalReference, checkNoteHeader } from '../../../domain/document-notes.ts';
import type { FieldError } from '../../../domain/errors.ts';
import { formatId } from '../../../domain/ids.ts';
import { parseInvoiceRequest } from '../../../domain/invoice-request.ts';
import { computeDocumentTotals } from '../../../domain/totals.ts';
import { tenantOf } from '../../auth.ts';
import type { AppDeps } from '../../deps.ts';
import { validationError } from '../../errors.ts';
import { requestLanguage } from '../../language.ts';
import { sendReplay } from '../../plugins/idempotency.ts';
import { invoiceObject } from '../../presenters/invoices.ts';
import { errorResponses, IdempotencyHeaders } from '../../schemas/common.ts';
import { InvoiceObject } from '../../schemas/invoices.ts';
import { CreateExternalCreditNoteBody } from '../../schemas/notes.ts';

type Body = Static<typeof CreateExternalCreditNoteBody>;

/** The reference, reason and code; then the client and lines as an invoice's (422 with every fault). */
function parseBody(body: Body) {
  const { reference, reason, code, ...rest } = body;
  const errors: FieldError[] = [];
  const header = checkNoteHeader(errors, 'credit', { reason, code }, true);
  if (code === undefined) header.code = '02';
  const ref = checkExternalReference(errors, reference, new Date());
  const parsed = parseInvoiceRequest(rest);
  if (!parsed.ok) errors.push(...parsed.errors);
  if (errors.length || !parsed.ok || !ref) throw validationError(errors);
  return { request: parsed.value, header, ref };
}

/** Prepared like an invoice, as a credit note (03) that references the clave. */
async function prepareNote(
  db: Knex,
  tenant: Tenant,
  company: Company,
  { request, header, ref }: ReturnType<typeof parseBody>,
): Promise<PreparedInvoice> {
  const prepared = await prepareInvoice(db, tenant, company, request);
  prepared.docType = '03';
  // The same totals as a note: its other charges and its payments as resolved (each amount).
  prepared.totals = computeDocumentTotals(
    prepared.lines.map((l) => l.input),
    {
      currency: prepared.currency as CodigoMoneda,
      exchangeRate: prepared.exchangeRate,
      docType: '03',
      otherCharges: request.otherCharges,
      payments: prepared.totals.summary.medioPago?.map((m) => ({
        type: m.type,
        other: m.other,
        amount: m.total,
      })),
    },
  );
  prepared.reference = { documentId: null, ...ref, code: header.code, reason: header.reason! };
  return prepared;
}

const DESCRIPTION =
  'For a document issued before the company used the service: `reference.clave`, its type and ' +
  'issue date; the client and lines as in an invoice. The note (`document_type` 03, `inv_…`) goes ' +
  'through the same flow as an invoice. No cap applies: the service never saw that document.';

export default async function externalCreditNoteRoute(
  fastify: FastifyInstance,
  { db }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/credit_notes',
    {
      config: { scope: 'write:invoices', idempotency: {} },
      schema: {
        tags: ['invoices'],
        summary: 'Issue a credit note of a document issued outside the service',
        description: DESCRIPTION,
        body: CreateExternalCreditNoteBody,
        headers: IdempotencyHeaders,
        response: { 201: InvoiceObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const note = parseBody(request.body);
      const company = await request.server.issuing.issuer(auth);
      const prepared = await prepareNote(db, auth, company, note);
      const outcome = await createExternalCreditNote(db, auth, prepared, {
        emisorId: company.idNumber,
        requestId: request.id,
        idempotency: request.idempotency,
        render: (row) => invoiceObject(row),
      });
      if (outcome.kind === 'replay') return sendReplay(reply, outcome.response);
      reply.header('location', `/api/v1/invoices/${formatId('invoice', outcome.note.id)}`);
      return reply.code(201).send(invoiceObject(outcome.note, requestLanguage(request)));
    },
  );
}
