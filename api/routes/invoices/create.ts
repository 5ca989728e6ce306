// POST /api/v1/invoices: records an invoice in one transaction and answers 201 `pendiente`
// with its consecutivo and clave (or a `borrador` with send: false); the flow carries it on.
// Idempotency-Key replays, Prefer: wait=N waits for `enviada` or a terminal state. A replay
// answers the invoice as it is now (201, Idempotent-Replayed: true, its Location), under the same
// Prefer: wait rules as the first request, not the stored snapshot of the moment it was recorded.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { credentialSummaries, getCompany } from '../../../db/queries/companies.ts';
import { findIdempotent, getInvoice } from '../../../db/queries/invoices.ts';
import { createInvoiceGrouped } from '../../../operations/invoice-committer.ts';
import { INVOICE_CREATE_ROUTE } from '../../../domain/request-fingerprint.ts';
import { invoiceObject } from '../../../db/public-objects.ts';
import { formatId, parseId } from '../../../domain/ids.ts';
import type { Company } from '../../../db/models/index.ts';
import type { Knex } from 'knex';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StoredResponse } from '../../../db/queries/idempotency.ts';
import { tenantOf, type AuthContext } from '../../auth.ts';
import { ApiError, validationError } from '../../errors.ts';
import { idempotencyFromRequest, preferWait, requestLanguage } from '../../idempotency.ts';
import { errorResponses, IdempotentWaitHeaders } from '../../schemas/common.ts';
import { CreateInvoiceBody, InvoiceObject } from '../../schemas/invoices.ts';
import type { AppDeps } from '../../app.ts';
import { parseInvoiceRequest } from '../../../domain/invoice-request.ts';
import { isPurchaseBody } from '../../../domain/document-types/index.ts';
import { missingEmisorData } from '../../../db/queries/invoice-prepare.ts';
import { waitForSettled } from './wait.ts';
import { createPurchaseResponse } from './purchase.ts';
import { requestTraceContext } from '../../tracing.ts';

/** Issuing needs the emisor data, and a signing key (plus Hacienda credentials for live mode). */
export async function assertCanIssue(db: Knex, company: Company, auth: AuthContext): Promise<void> {
  const missing = missingEmisorData(company);
  const cred = (await credentialSummaries(db, company.id)).find((c) => c.livemode === auth.livemode);
  if (!cred?.hasSigningKey) missing.push(`signing certificate (${auth.livemode ? 'live' : 'sandbox'})`);
  if (auth.livemode && !(cred?.haciendaUsername && cred.hasHaciendaPassword))
    missing.push('Hacienda API credentials (live)');
  if (missing.length) {
    throw new ApiError('company_incomplete', `The company cannot issue yet; missing: ${missing.join(', ')}`, {
      fields: { missing },
    });
  }
}

/**
 * The issuing company and whether it may issue, cached for a few seconds per (company, mode):
 * high-volume issuers would otherwise read the same two rows on every request. A changed
 * certificate or profile is seen within ISSUER_TTL_MS.
 */
const ISSUER_TTL_MS = 5_000;
const issuers = (() => {
  const companies = new Map<number, { at: number; company: Company }>();
  const ready = new Map<string, number>();
  return {
    async company(db: Knex, auth: AuthContext): Promise<Company> {
      const hit = companies.get(auth.companyId);
      if (hit && Date.now() - hit.at < ISSUER_TTL_MS) return hit.company;
      const company = (await getCompany(db, auth.companyId))!;
      companies.set(auth.companyId, { at: Date.now(), company });
      return company;
    },
    async assertCanIssue(db: Knex, company: Company, auth: AuthContext): Promise<void> {
      const key = `${company.id}:${auth.livemode}`;
      const at = ready.get(key);
      if (at && Date.now() - at < ISSUER_TTL_MS) return;
      await assertCanIssue(db, company, auth);
      ready.set(key, Date.now());
    },
  };
})();

/**
 * Answers a create repeated under its Idempotency-Key: the same status, and the invoice as it is
 * now, waited for under Prefer: wait like a first request (an issued invoice until `enviada` or
 * final). Only a stored answer that names no invoice is replayed as stored.
 */
async function replayCreate(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Knex,
  auth: AuthContext,
  stored: StoredResponse,
) {
  reply.header('idempotent-replayed', 'true');
  const ref = typeof stored.body.id === 'string' ? stored.body.id : null;
  const id = ref ? parseId('invoice', ref) : null;
  const row = id !== null ? await getInvoice(db, auth, id) : undefined;
  if (!row) return reply.code(stored.status as 201).send(stored.body as never);
  reply.header('location', `/api/v1/invoices/${formatId('invoice', row.id)}`);
  const wait = preferWait(request);
  const current =
    wait !== null && row.status !== 'borrador'
      ? await waitForSettled(request, reply, db, auth, row.id, wait)
      : row;
  return reply.code(stored.status as 201).send(invoiceObject(current, requestLanguage(request)));
}

export default async function createInvoiceRoute(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/invoices',
    {
      config: { anyScope: ['write:invoices', 'write:drafts'] },
      schema: {
        tags: ['invoices'],
        summary: 'Create an invoice (shape A or B)',
        description:
          'Answers 201 once the invoice is recorded (`pendiente`, or `borrador` with send: false). ' +
          '`Prefer: wait=N` (≤ 30) answers once it is `enviada` or final, or after N seconds. A repeat under ' +
          'the same `Idempotency-Key` answers the same invoice as it is now, with `Idempotent-Replayed: true`, ' +
          'under the same `Prefer: wait` rules.',
        body: CreateInvoiceBody,
        headers: IdempotentWaitHeaders,
        response: { 200: InvoiceObject, 201: InvoiceObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const lang = requestLanguage(request);
      const route = INVOICE_CREATE_ROUTE;
      const idem = idempotencyFromRequest(request, route);
      const send = request.body.send !== false;
      if (send && !auth.scopes.includes('write:invoices')) {
        throw new ApiError(
          'insufficient_scope',
          'Issuing needs write:invoices; this key may only create drafts (send: false)',
          {
            fields: { required_scope: 'write:invoices' },
          },
        );
      }
      // A purchase (the factura electrónica de compra) has a supplier instead of a client: purchase.ts.
      if (isPurchaseBody(request.body)) return createPurchaseResponse(request, reply, db, auth);
      // 1. A finished request under this key is replayed before anything else is checked: the
      //    group commit looks the key up first; a request that fails before it gets there looks
      //    it up here, so a replay never answers with a later check's error.
      const replayOr = async (err: unknown) => {
        if (idem) {
          const done = await findIdempotent(db, auth, idem);
          if (done) {
            if (!done.hash.equals(idem.hash) || done.route !== idem.route) {
              throw new ApiError(
                'idempotency_key_reused',
                'This Idempotency-Key was used with a different request',
              );
            }
            return replayCreate(request, reply, db, auth, done.response);
          }
        }
        throw err;
      };
      // 2. Validate (no database work: the company and its readiness are cached).
      const parsed = parseInvoiceRequest(request.body as never, { allowReplaces: true });
      if (!parsed.ok) return replayOr(validationError(parsed.errors));
      const company = await issuers.company(db, auth);
      if (send) {
        try {
          await issuers.assertCanIssue(db, company, auth);
        } catch (err) {
          return replayOr(err);
        }
      }

      // 3. Look up, prepare and record, grouped with concurrent creates on the same series: one
      //    transaction of a few statements for all of them.
      const grouped = await createInvoiceGrouped(db, auth, {
        company,
        request: parsed.value,
        send,
        idempotency: idem,
        requestId: request.id,
        traceContext: requestTraceContext(request),
        render: invoiceObject,
      });
      if (grouped.kind === 'invalid') throw grouped.error;
      if (grouped.kind === 'failed') {
        const p = grouped.problem;
        if (p.code === 'idempotency_key_in_use') {
          throw new ApiError(
            'idempotency_key_in_use',
            'A request with this Idempotency-Key is still being processed; retry shortly',
            {
              headers: { 'retry-after': '1' },
            },
          );
        }
        if (p.code === 'idempotency_key_reused') {
          throw new ApiError(
            'idempotency_key_reused',
            'This Idempotency-Key was used with a different request',
          );
        }
        if (p.code === 'duplicate_external_id') {
          throw new ApiError('duplicate_external_id', p.detail, {
            fields: { existing_invoice_id: p.existing_invoice_id },
          });
        }
        if (p.code === 'invoice_not_replaceable' || p.code === 'resource_not_found')
          throw new ApiError(p.code, p.detail, {
            errors: [{ path: '/replaces', code: p.code, message: p.detail }],
          });
        throw new ApiError('validation_failed', p.detail, p.errors ? { errors: p.errors } : {});
      }
      if (grouped.kind === 'replayed') {
        return replayCreate(request, reply, db, auth, grouped.response);
      }
      const outcome = { invoice: grouped.row!, response: { status: 201, body: grouped.body! } };
      reply.header('location', `/api/v1/invoices/${formatId('invoice', outcome.invoice.id)}`);

      // 4. Prefer: wait=N.
      const wait = preferWait(request);
      if (wait !== null && send) {
        const row = await waitForSettled(request, reply, db, auth, outcome.invoice.id, wait);
        return reply.code(201).send(invoiceObject(row, lang));
      }
      return reply
        .code(201)
        .send((lang === 'es' ? outcome.response.body : invoiceObject(outcome.invoice, lang)) as never);
    },
  );
}
