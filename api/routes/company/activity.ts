// PATCH /api/v1/company: the company's economic activity (CodigoActividadEmisor of its documents).
// The code must be one of the company's active activities in Hacienda's register
// (operations/public-data.ts): otherwise 422 activity_not_registered, naming the code and listing
// the registered ones. When Hacienda cannot be reached (and the register is not cached) the change
// is refused with 503 hacienda_unavailable rather than accepted unchecked: a document whose
// activity Hacienda does not know for its emisor would be rejected later, after it was numbered.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { credentialSummaries, getCompany, setActivityCode } from '../../../db/queries/companies.ts';
import { ActivityNotRegisteredError, checkActivityRegistered } from '../../../operations/public-data.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, notFound } from '../../errors.ts';
import { companyObject } from '../../presenters/company.ts';
import { publicDataOf, taxpayerProblem } from '../../public-data.ts';
import { errorResponses } from '../../schemas/common.ts';
import { CompanyObject } from '../../schemas/company.ts';
import type { AppDeps } from '../../deps.ts';

const UpdateCompanyBody = Type.Object(
  {
    activity_code: Type.String({
      pattern: '^\\d{6}$',
      description: "One of the company's active activities in Hacienda's register (6 digits)",
    }),
  },
  { additionalProperties: false, examples: [{ activity_code: '620100' }] },
);

function notRegistered(err: ActivityNotRegisteredError): ApiError {
  const list = err.registered.map((a) => `${a.code} ${a.description}`).join('; ') || 'ninguna (none)';
  const message =
    `La actividad ${err.code} no está inscrita para esta empresa en Hacienda; inscritas: ${list} ` +
    `(activity ${err.code} is not registered for this company at Hacienda; registered: ${list})`;
  return new ApiError('activity_not_registered', message, {
    errors: [{ path: '/activity_code', code: 'activity_not_registered', message }],
    fields: {
      registered_activities: err.registered.map((a) => ({ code: a.code, description: a.description })),
    },
  });
}

export default async function companyActivityRoute(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.patch(
    '/api/v1/company',
    {
      config: { scope: 'manage:keys' },
      schema: {
        tags: ['company'],
        summary: "Change the company's economic activity (checked against Hacienda's register)",
        body: UpdateCompanyBody,
        response: { 200: CompanyObject, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const company = await getCompany(db, auth.companyId);
      if (!company) throw notFound('company', String(auth.companyId));
      const code = request.body.activity_code;
      try {
        await checkActivityRegistered(db, publicDataOf(config), company.idNumber, code);
      } catch (err) {
        if (err instanceof ActivityNotRegisteredError) throw notRegistered(err);
        throw taxpayerProblem(err, company.idNumber, '/activity_code');
      }
      await setActivityCode(db, company.id, code);
      const updated = (await getCompany(db, company.id))!;
      return companyObject(updated, auth.livemode, await credentialSummaries(db, company.id));
    },
  );
}
