// Reading invoices: one invoice (with an ETag; If-None-Match → 304 for cheap polling), the
// filtered list with cursor pagination, the signed XML byte for byte, and Hacienda's answer.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getClient } from '../../../db/queries/clients.ts';
import {
  getInvoiceDocument,
  listInvoices,
  listInvoiceVersions,
  type InvoiceFilters,
  type InvoiceRow,
} from '../../../db/queries/invoices.ts';
import { invoiceObject } from '../../../db/public-objects.ts';
import { parseId, parseRef } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { loadInvoice } from '../../lookups.ts';
import { sendBytes, sendJsonBytes } from '../../byte-answers.ts';
import { ApiError } from '../../errors.ts';
import { requestLanguage } from '../../language.ts';
import { listJson, RenderedInvoices } from '../../rendered-invoices.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import { InvoiceObject, ListInvoicesQuery } from '../../schemas/invoices.ts';
import type { AppDeps } from '../../deps.ts';

function etagOf(row: InvoiceRow, lang: string): string {
  return `"${row.id}-${new Date(row.updatedAt).getTime()}-${lang}"`;
}

const tags = ['invoices'];

export default async function readInvoiceRoutes(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  getInvoiceRoute(fastify, deps);
  listInvoicesRoute(fastify, deps);
  invoiceXmlRoutes(fastify, deps);
}

/** One invoice, with an ETag per language: If-None-Match answers 304. */
function getInvoiceRoute(fastify: FastifyInstance, { db }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/invoices/:id',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags,
        summary: 'Retrieve an invoice (ETag / If-None-Match supported)',
        params: IdParam,
        response: { 200: InvoiceObject, 304: Type.Null(), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const lang = requestLanguage(request);
      const row = await loadInvoice(db, auth, request.params.id);
      const etag = etagOf(row, lang);
      reply.header('etag', etag).header('vary', 'Accept-Language');
      const inm = request.headers['if-none-match'];
      if (
        inm &&
        inm
          .split(',')
          .map((s) => s.trim())
          .includes(etag)
      )
        return reply.code(304).send(null);
      return invoiceObject(row, lang);
    },
  );
}

/**
 * The filtered list, newest first, with cursor pagination. The page is first read as ids and row
 * versions only; when every row is kept rendered (api/rendered-invoices.ts) the answer is made of
 * those, otherwise the page is read whole, in one statement, and its rows rendered and kept.
 */
function listInvoicesRoute(fastify: FastifyInstance, { db }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const rendered = new RenderedInvoices();
  // Each item through the serializer the route's own response schema gives its items.
  const itemSchema = InvoiceObject as unknown as Record<string, unknown>;
  app.get(
    '/api/v1/invoices',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags,
        summary: 'List invoices',
        querystring: ListInvoicesQuery,
        response: { 200: ListOf(InvoiceObject), ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const q = request.query;
      let clientId: number | undefined;
      if (q.client !== undefined) {
        const ref = parseRef('client', q.client);
        if (!ref)
          throw new ApiError('validation_failed', 'client must be a cli_ id or a UUID', {
            errors: [
              { path: 'querystring:/client', code: 'invalid_format', message: 'must be a cli_ id or a UUID' },
            ],
          });
        const client = await getClient(db, auth, ref);
        if (!client) return { object: 'list' as const, data: [], has_more: false };
        clientId = client.id;
      }
      const filters: InvoiceFilters = {
        status: q.status,
        docType: q.document_type,
        clientId,
        search: q.q,
        externalId: q.external_id,
        createdGte: q.created_gte,
        createdLt: q.created_lt,
        updatedGte: q.updated_gte,
        updatedLt: q.updated_lt,
        startingAfter: q.starting_after ? (parseId('invoice', q.starting_after) ?? undefined) : undefined,
        limit: q.limit ?? 20,
      };
      const lang = requestLanguage(request);
      const versions = await listInvoiceVersions(db, auth, filters);
      const kept = rendered.page(versions.rows, lang);
      if (kept) return sendJsonBytes(reply, listJson(kept, versions.hasMore));
      const { rows, hasMore } = await listInvoices(db, auth, filters);
      const serialize = (o: object) => reply.serializeInput(o as Record<string, unknown>, itemSchema);
      const items = rows.map((r) => rendered.keep(r, lang, serialize(invoiceObject(r, lang))));
      return sendJsonBytes(reply, listJson(items, hasMore));
    },
  );
}

/** The signed XML byte for byte, and Hacienda's answer. */
function invoiceXmlRoutes(fastify: FastifyInstance, { db }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/invoices/:id/xml',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags,
        summary: 'The signed XML exactly as sent to Hacienda',
        params: IdParam,
        response: { 200: Type.String({ description: 'application/xml' }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const row = await loadInvoice(db, auth, request.params.id);
      const doc = await getInvoiceDocument(db, row.id);
      if (!doc?.signedXml)
        throw new ApiError(
          'invalid_state',
          `Invoice ${request.params.id} is not signed yet (status ${row.status})`,
        );
      reply.header('content-disposition', `inline; filename="${row.clave}.xml"`);
      return sendBytes(reply, 'application/xml; charset=utf-8', doc.signedXml);
    },
  );

  app.get(
    '/api/v1/invoices/:id/response',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags,
        summary: "Hacienda's answer (MensajeHacienda XML)",
        params: IdParam,
        response: { 200: Type.String({ description: 'application/xml' }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const row = await loadInvoice(db, auth, request.params.id);
      const doc = await getInvoiceDocument(db, row.id);
      if (!doc?.responseXml)
        throw new ApiError('invalid_state', `Hacienda has not answered for ${request.params.id} yet`);
      return sendBytes(reply, 'application/xml; charset=utf-8', Buffer.from(doc.responseXml, 'utf8'));
    },
  );
}
