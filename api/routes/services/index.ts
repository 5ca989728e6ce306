// /api/v1/services: the company's catalogue (CABYS, description, unit, IVA rate, default price and
// the taxes beside the IVA its lines carry).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createService, getService, listServices } from '../../../db/queries/services.ts';
import { parseId, parseRef } from '../../../domain/ids.ts';
import { validateServiceFields } from '../../../domain/party-rules.ts';
import { parseServiceTaxes as serviceTaxes } from '../../../domain/invoice-request-fields.ts';
import { tenantOf } from '../../auth.ts';
import { notFound, validationError } from '../../errors.ts';
import { serviceObject } from '../../presenters/services.ts';
import { errorResponses, IdParam, ListOf } from '../../schemas/common.ts';
import { CreateServiceBody, ListServicesQuery, ServiceObject } from '../../schemas/services.ts';
import type { AppDeps } from '../../deps.ts';

export default async function serviceRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['services'];

  app.post(
    '/api/v1/services',
    {
      config: { scope: 'write:services' },
      schema: {
        tags,
        summary: 'Create a service',
        body: CreateServiceBody,
        response: { 201: ServiceObject, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const b = request.body;
      // The description becomes Detalle (3 to 200 characters once trimmed), CodigoComercial ≤ 20.
      const problems = validateServiceFields(b);
      const otherTaxes = b.taxes === undefined ? undefined : serviceTaxes(problems, b.taxes);
      if (problems.length) throw validationError(problems);
      const service = await createService(db, auth, {
        cabys: b.cabys,
        description: b.description.trim(),
        unit: b.unit,
        taxCode: b.tax_code ?? '01',
        ivaRateCode: b.iva_rate_code,
        price: b.price,
        commercialCode: b.commercial_code?.trim() ?? null,
        ...(otherTaxes?.length ? { otherTaxes } : {}),
      });
      return reply.code(201).send(serviceObject(service));
    },
  );

  app.get(
    '/api/v1/services/:id',
    {
      config: { scope: 'read:services' },
      schema: {
        tags,
        summary: 'Retrieve a service',
        params: IdParam,
        response: { 200: ServiceObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const ref = parseRef('service', request.params.id);
      const service = ref && (await getService(db, auth, ref));
      if (!service) throw notFound('service', request.params.id);
      return serviceObject(service);
    },
  );

  app.get(
    '/api/v1/services',
    {
      config: { scope: 'read:services' },
      schema: {
        tags,
        summary: 'List services',
        querystring: ListServicesQuery,
        response: { 200: ListOf(ServiceObject), ...errorResponses(422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const q = request.query;
      const { rows, hasMore } = await listServices(db, auth, {
        cabys: q.cabys,
        startingAfter: q.starting_after ? (parseId('service', q.starting_after) ?? undefined) : undefined,
        includeArchived: q.include_archived === true,
        limit: q.limit ?? 20,
      });
      return { object: 'list' as const, data: rows.map(serviceObject), has_more: hasMore };
    },
  );
}
