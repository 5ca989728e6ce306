// PATCH /api/v1/services/{id} (the create's fields, each given one replacing the stored one, the
// whole checked like a create), POST /api/v1/services/{id}/archive and /unarchive. An archived
// service is left out of the list unless include_archived=true and refused on new documents
// (422 service_archived). Issued documents keep their lines: a line is stored whole at issue.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { Service } from '../../../db/models/index.ts';
import { getService, setServiceArchived, updateService } from '../../../db/queries/services.ts';
import { parseRef } from '../../../domain/ids.ts';
import { parseServiceTaxes as serviceTaxes } from '../../../domain/invoice-request-fields.ts';
import { validateServiceFields } from '../../../domain/party-rules.ts';
import { tenantOf } from '../../auth.ts';
import { notFound, validationError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import { serviceObject } from '../../presenters/services.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';
import { ServiceObject, UpdateServiceBody } from '../../schemas/services.ts';

type UpdateBody = Static<typeof UpdateServiceBody>;

/** The stored service with the PATCH over it, checked like a create (422 with every field at fault). */
function mergedService(s: Service, b: UpdateBody) {
  const merged = {
    cabys: b.cabys ?? s.cabys,
    description: b.description ?? s.description,
    commercial_code:
      b.commercial_code === null ? undefined : (b.commercial_code ?? s.commercialCode ?? undefined),
  };
  const problems = validateServiceFields(merged);
  const otherTaxes = b.taxes === undefined ? (s.otherTaxes ?? null) : serviceTaxes(problems, b.taxes);
  if (problems.length) throw validationError(problems);
  return {
    cabys: merged.cabys,
    description: merged.description.trim(),
    unit: b.unit ?? s.unit,
    taxCode: b.tax_code ?? s.taxCode,
    ivaRateCode: b.iva_rate_code ?? s.ivaRateCode,
    price: b.price ?? s.price,
    commercialCode: merged.commercial_code?.trim() ?? null,
    otherTaxes: otherTaxes?.length ? otherTaxes : null,
  };
}

export default async function updateServiceRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['services'];

  app.patch(
    '/api/v1/services/:id',
    {
      config: { scope: 'write:services' },
      schema: {
        tags,
        summary: 'Update a service',
        description:
          'Changes the fields given (`commercial_code: null` clears it, `taxes: []` removes the default ' +
          'taxes) and checks the result like a create. New documents take the new values; documents ' +
          'already recorded keep their lines.',
        params: IdParam,
        body: UpdateServiceBody,
        response: { 200: ServiceObject, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const ref = parseRef('service', request.params.id);
      const stored = ref && (await getService(db, auth, ref));
      if (!stored) throw notFound('service', request.params.id);
      const updated = await updateService(db, auth, stored.id, mergedService(stored, request.body));
      if (!updated) throw notFound('service', request.params.id);
      return serviceObject(updated);
    },
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    app.post(
      `/api/v1/services/:id/${action}`,
      {
        config: { scope: 'write:services' },
        schema: {
          tags,
          summary: archived ? 'Archive a service' : 'Unarchive a service',
          description: archived
            ? 'Leaves the service out of lists (unless include_archived=true) and refuses it on new ' +
              'documents (422 service_archived); documents that carry it stay. Archiving twice is harmless.'
            : 'Brings an archived service back into the lists and to new documents.',
          params: IdParam,
          response: { 200: ServiceObject, ...errorResponses(404) },
        },
      },
      async (request) => {
        const auth = tenantOf(request);
        const ref = parseRef('service', request.params.id);
        const stored = ref && (await getService(db, auth, ref));
        const service = stored && (await setServiceArchived(db, auth, stored.id, archived));
        if (!service) throw notFound('service', request.params.id);
        return serviceObject(service);
      },
    );
  }
}
