// POST /api/v1/invoices/preview: the body POST /api/v1/invoices takes, run through exactly the
// create's path (parsed by domain/invoice-request.ts or domain/purchase-request.ts, the day's dollar
// rate filled in, the client and services looked up and the totals computed by
// db/queries/invoice-prepare.ts) and answered with the lines and totals the invoice would carry.
// Nothing is written: no number is taken, no outbox row, event or idempotency record.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Knex } from 'knex';
import type { Config } from '../../../config/index.ts';
import { prepareInvoice } from '../../../db/queries/invoice-prepare.ts';
import type { PreparedInvoice } from '../../../db/queries/invoices.ts';
import { preparePurchase } from '../../../db/queries/purchases.ts';
import { documentFigures } from '../../../db/public-objects.ts';
import { formatCrDate } from '../../../domain/cr-time.ts';
import { isPurchaseBody } from '../../../domain/document-types/index.ts';
import { formatId } from '../../../domain/ids.ts';
import { parseInvoiceRequest } from '../../../domain/invoice-request.ts';
import { parsePurchaseRequest } from '../../../domain/purchase-request.ts';
import { withDayRate } from '../../../operations/public-data.ts';
import { Decimal } from 'decimal.js';
import { tenantOf, type AuthContext } from '../../auth.ts';
import type { AppDeps } from '../../deps.ts';
import { ApiError, validationError } from '../../errors.ts';
import { exchangeRateProblem, publicDataOf } from '../../public-data.ts';
import { errorResponses } from '../../schemas/common.ts';
import type { PreviewWarning } from '../../schemas/invoices.ts';
import { CreateInvoiceBody, InvoicePreviewObject } from '../../schemas/invoices.ts';

type CreateBody = Static<typeof CreateInvoiceBody>;
type Preview = Static<typeof InvoicePreviewObject>;
type Warning = Static<typeof PreviewWarning>;

const DESCRIPTION =
  'Computes what POST /api/v1/invoices would record for the same body, without recording it: the ' +
  'same validation (the same 422 codes and fields), the same catalogue look-ups and the same totals, ' +
  'answered with `lines`, `totals` and the other figures in the invoice object’s shapes. No ' +
  'consecutivo is taken and nothing is stored (no invoice, event, outbox row or Idempotency-Key ' +
  'record). Previews every document type the create takes in its body: 01 factura, 04 tiquete, ' +
  '09 factura de exportación and 08 factura electrónica de compra (with `supplier`). Debit and ' +
  'credit notes (POST /api/v1/invoices/{id}/notes, /api/v1/credit_notes) and payment receipts (10, ' +
  'issued by POST /api/v1/payments) have bodies of their own and are not previewed here. Checked ' +
  'only by the create: an `external_id` already used, the invoice `replaces` names, and (409) ' +
  'whether the company may issue, which the preview reports in `warnings` instead.';

/** The prepared document of a body, exactly as the create prepares it (purchases as purchase.ts). */
async function prepareBody(
  request: FastifyRequest,
  db: Knex,
  config: Config,
  auth: AuthContext,
  body: CreateBody,
): Promise<PreparedInvoice> {
  const issuing = request.server.issuing;
  if (isPurchaseBody(body)) {
    const company = await issuing.company(auth);
    const parsed = parsePurchaseRequest(body as Record<string, unknown>, company.idNumber);
    if (!parsed.ok) throw validationError(parsed.errors);
    const { request: req, supplier } = parsed.value;
    return preparePurchase(db, auth, company, req, supplier);
  }
  const parsed = parseInvoiceRequest(body, { allowReplaces: true });
  if (!parsed.ok) throw validationError(parsed.errors);
  const company = await issuing.company(auth);
  let req;
  try {
    req = await withDayRate(db, publicDataOf(config), company.defaultCurrency, parsed.value);
  } catch (err) {
    throw exchangeRateProblem(err, formatCrDate(new Date()), `/${parsed.value.exchangeRateKey}`);
  }
  return prepareInvoice(db, auth, company, req);
}

/** Why the create would refuse to issue this body now though the preview could compute it. */
async function issueWarnings(request: FastifyRequest, auth: AuthContext, send: boolean): Promise<Warning[]> {
  if (!send) return [];
  try {
    await request.server.issuing.issuer(auth);
    return [];
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'company_incomplete') throw err;
    return [
      {
        code: 'company_incomplete',
        message: {
          es: `La empresa aún no puede emitir en este modo; falta: ${missingOf(err)}`,
          en: `The company cannot issue yet in this mode; missing: ${missingOf(err)}`,
        },
      },
    ];
  }
}

const missingOf = (err: ApiError) => ((err.extra.fields?.missing as string[] | undefined) ?? []).join(', ');

function previewObject(auth: AuthContext, p: PreparedInvoice, warnings: Warning[]): Preview {
  const figures = documentFigures({
    lines: p.lines,
    summary: p.totals,
    total: p.totals.summary.totalComprobante,
    paymentMethods: p.paymentMethods,
    paymentMethodOther: p.paymentMethodOther,
  });
  return {
    object: 'invoice_preview',
    livemode: auth.livemode,
    document_type: p.docType,
    client_id: p.clientId ? formatId('client', p.clientId) : null,
    currency: p.currency,
    exchange_rate: new Decimal(p.exchangeRate).toString(),
    exchange_rate_source: p.exchangeRateSource ?? null,
    condition: p.condition,
    credit_days: p.creditDays,
    payment_methods: p.paymentMethods,
    ...figures,
    warnings,
  };
}

export default async function previewInvoiceRoute(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/invoices/preview',
    {
      config: { anyScope: ['write:invoices', 'write:drafts'] },
      schema: {
        tags: ['invoices'],
        summary: 'Preview an invoice: its lines and totals, nothing recorded',
        description: DESCRIPTION,
        body: CreateInvoiceBody,
        response: { 200: InvoicePreviewObject, ...errorResponses(404, 409, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const prepared = await prepareBody(request, db, config, auth, request.body);
      const warnings = await issueWarnings(request, auth, request.body.send !== false);
      return previewObject(auth, prepared, warnings);
    },
  );
}
