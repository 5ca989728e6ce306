// Hacienda's public data, cached (operations/public-data.ts):
//   GET /api/v1/taxpayers/{cedula}          a taxpayer of Hacienda's register (24 h cache)
//   GET /api/v1/exchange_rates/USD?date=     the dollar's reference rate of a Costa Rica day
// 404 taxpayer_not_found / exchange_rate_not_found; 503 hacienda_unavailable with Retry-After when
// Hacienda cannot be reached and nothing is cached.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { formatCrDate } from '../../../domain/cr-time.ts';
import { PublicDataNotFoundError, taxpayerQueryNumber } from '../../../hacienda/public-data/index.ts';
import { lookupTaxpayer, usdRate } from '../../../operations/public-data.ts';
import { ApiError, validationError } from '../../errors.ts';
import { publicDataOf, taxpayerProblem, unavailableProblem } from '../../public-data.ts';
import { exchangeRateObject, taxpayerObject } from '../../presenters/public-data.ts';
import { errorResponses } from '../../schemas/common.ts';
import {
  CedulaParams,
  ExchangeRateObject,
  ExchangeRateQuery,
  TaxpayerObject,
} from '../../schemas/public-data.ts';
import type { AppDeps } from '../../deps.ts';

export default async function publicDataRoutes(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const pd = publicDataOf(config);

  app.get(
    '/api/v1/taxpayers/:cedula',
    {
      config: { scope: 'read:clients' },
      schema: {
        tags: ['public data'],
        summary: "A taxpayer of Hacienda's register (name, type, régimen, situación, actividades)",
        params: CedulaParams,
        response: { 200: TaxpayerObject, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const number = taxpayerQueryNumber(request.params.cedula);
      if (!number)
        throw validationError([
          {
            path: '/cedula',
            code: 'invalid_format',
            message: 'debe tener de 9 a 12 dígitos (must have 9 to 12 digits)',
          },
        ]);
      try {
        const found = await lookupTaxpayer(db, pd, number);
        return taxpayerObject(found.taxpayer, found.fetchedAt);
      } catch (err) {
        throw taxpayerProblem(err, number, null);
      }
    },
  );

  app.get(
    '/api/v1/exchange_rates/USD',
    {
      config: { scope: 'read:invoices' },
      schema: {
        tags: ['public data'],
        summary: "The dollar's reference rate (BCCR, as Hacienda publishes it) of a Costa Rica day",
        querystring: ExchangeRateQuery,
        response: { 200: ExchangeRateObject, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const date = request.query.date ?? null;
      const today = formatCrDate(new Date());
      if (date !== null && (Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || date > today))
        throw validationError([
          {
            path: '/date',
            code: 'invalid_date',
            message: `debe ser una fecha válida, no posterior a hoy ${today} (must be a valid date not after ${today})`,
          },
        ]);
      try {
        return exchangeRateObject(await usdRate(db, pd, date));
      } catch (err) {
        if (err instanceof PublicDataNotFoundError)
          throw new ApiError(
            'exchange_rate_not_found',
            `Hacienda no publica tipo de cambio para ${date} (Hacienda publishes no rate for ${date})`,
          );
        throw unavailableProblem(err);
      }
    },
  );
}
