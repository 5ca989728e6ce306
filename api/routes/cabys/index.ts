// /api/v1/cabys: the official CABYS catalogue shipped with the service (domain/cabys.ts), searched
// by words or read by code, as Hacienda's public CABYS service answers (api.hacienda.go.cr/fe/cabys
// ?q= and ?codigo=), with the catalogue's IVA rate for each code.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { lookupCabys, searchCabys } from '../../../domain/cabys.ts';
import { notFound } from '../../errors.ts';
import { cabysObject } from '../../presenters/cabys.ts';
import { errorResponses } from '../../schemas/common.ts';
import { CabysCodeParam, CabysObject, CabysSearchQuery, CabysSearchResult } from '../../schemas/cabys.ts';
import type { AppDeps } from '../../deps.ts';

export default async function cabysRoutes(fastify: FastifyInstance, _deps: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['cabys'];

  app.get(
    '/api/v1/cabys',
    {
      config: { scope: 'read:services' },
      schema: {
        tags,
        summary: 'Search the CABYS catalogue',
        description:
          "Entries of the official CABYS catalogue whose description holds every word of `q` (accents and case ignored), best matches first; digits alone search by code prefix. Mirrors Hacienda's `GET https://api.hacienda.go.cr/fe/cabys?q=`.",
        querystring: CabysSearchQuery,
        response: { 200: CabysSearchResult, ...errorResponses(422) },
      },
    },
    async (request) => {
      const { total, results } = searchCabys(request.query.q, request.query.limit ?? 10);
      return { object: 'list' as const, cabys: results.map(cabysObject), cantidad: results.length, total };
    },
  );

  app.get(
    '/api/v1/cabys/:code',
    {
      config: { scope: 'read:services' },
      schema: {
        tags,
        summary: 'Retrieve a CABYS code',
        description:
          "One entry of the official CABYS catalogue, with its IVA rate and categories; 404 when the code is not in it (Hacienda would reject a line carrying it). Mirrors Hacienda's `GET https://api.hacienda.go.cr/fe/cabys?codigo=`.",
        params: CabysCodeParam,
        response: { 200: CabysObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const entry = lookupCabys(request.params.code);
      if (!entry) throw notFound('CABYS code', request.params.code);
      return cabysObject(entry);
    },
  );
}
