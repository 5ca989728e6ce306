// GET /api/v1/reports/monthly?month=YYYY-MM (scope read:reports): the figures an accountant copies
// into the monthly IVA return (D-104) for the caller's company and mode: accepted documents of the
// month in Costa Rica time, in colones (operations/monthly-report.ts). JSON by default; CSV with
// `format=csv` or `Accept: text/csv` (es-CR); a workbook with `format=xlsx`. GET /api/v1/reports/monthly/archive:
// the month's documents, answers, PDFs and that report's CSV in one streamed ZIP (api/report-archive.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { crMonthRange } from '../../../domain/monthly-report.ts';
import { loadMonthlyReport } from '../../../operations/monthly-report.ts';
import { tenantOf } from '../../auth.ts';
import { validationError } from '../../errors.ts';
import { sendBytes, sendStream } from '../../byte-answers.ts';
import { monthlyReportCsv, monthlyReportObject, monthlyReportXlsx } from '../../presenters/monthly-report.ts';
import { errorResponses } from '../../schemas/common.ts';
import { MonthlyArchiveQuery, MonthlyReportObject, MonthlyReportQuery } from '../../schemas/reports.ts';
import { monthArchive } from '../../report-archive.ts';
import { Type } from 'typebox';
import type { AppDeps } from '../../deps.ts';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The month as Costa Rica instants, or 422 on the `month` field. */
function monthRangeOf(month: string) {
  const range = crMonthRange(month);
  if (!range)
    throw validationError([
      { path: 'querystring:/month', code: 'invalid_format', message: 'must be YYYY-MM' },
    ]);
  return range;
}

function formatOf(request: FastifyRequest, given: string | undefined): string {
  if (given) return given;
  return /\btext\/csv\b/.test(request.headers.accept ?? '') ? 'csv' : 'json';
}

export default async function reportRoutes(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  monthlyReportRoute(fastify, deps);
  monthlyArchiveRoute(fastify, deps);
}

function monthlyReportRoute(fastify: FastifyInstance, { db }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/reports/monthly',
    {
      config: { scope: 'read:reports' },
      schema: {
        tags: ['reports'],
        summary: "The month's figures for the IVA return (D-104)",
        description:
          'Accepted documents whose issue date falls in the month in Costa Rica time, in colones (each ' +
          'foreign-currency document at its own exchange rate): ResumenFactura totals per document type, sales ' +
          'per IVA rate (gravadas, exentas, exoneradas, no sujetas) with their IVA, credit notes subtracting, ' +
          'other taxes, the IVA credited on received documents (the amount the company declared creditable in ' +
          'its accepted or partially accepted answer) and the D-104 lines with the balance. `format=csv` (or ' +
          '`Accept: text/csv`): text/csv in es-CR (`;`, decimal comma, UTF-8 BOM); `format=xlsx`: a workbook ' +
          'with a sheet per section and numeric colón cells.',
        querystring: MonthlyReportQuery,
        response: { 200: MonthlyReportObject, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const { month } = request.query;
      const report = await loadMonthlyReport(db, auth, month, monthRangeOf(month));
      const format = formatOf(request, request.query.format);
      if (format === 'csv') {
        reply.header('content-disposition', `attachment; filename="reporte-${month}.csv"`);
        return sendBytes(reply, 'text/csv; charset=utf-8', Buffer.from(monthlyReportCsv(report), 'utf8'));
      }
      if (format === 'xlsx') {
        reply.header('content-disposition', `attachment; filename="reporte-${month}.xlsx"`);
        return sendBytes(reply, XLSX, await monthlyReportXlsx(report));
      }
      return monthlyReportObject(report, auth.livemode);
    },
  );
}

function monthlyArchiveRoute(fastify: FastifyInstance, { db, config }: AppDeps): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/reports/monthly/archive',
    {
      config: { scope: 'read:reports' },
      schema: {
        tags: ['reports'],
        summary: "The month's documents in one ZIP",
        description:
          'Streamed as it is made: for every accepted document of the month (Costa Rica time) its signed XML, ' +
          "Hacienda's answer and its PDF (`emitidos/<clave>.xml`, `-respuesta.xml`, `.pdf`); every received " +
          "document's XML and the company's answer with Hacienda's verdict (`recibidos/<clave>.xml`, " +
          "`-mensaje-receptor.xml`, `-respuesta.xml`); and the month's report as `resumen.csv`.",
        querystring: MonthlyArchiveQuery,
        response: { 200: Type.String({ description: 'application/zip' }), ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const { month } = request.query;
      const range = monthRangeOf(month);
      const report = await loadMonthlyReport(db, auth, month, range);
      const zip = await monthArchive({ db, config, tenant: auth, range, report, log: request.log });
      reply
        .header('content-disposition', `attachment; filename="comprobantes-${month}.zip"`)
        .header('cache-control', 'private, no-store');
      return sendStream(reply, 'application/zip', zip);
    },
  );
}
