// PATCH /api/v1/company: the company's profile. Every field is optional; what is given is checked
// as the emisor of the company's documents (profile-body.ts) and changes nothing unless the whole
// body is valid. The economic activity (CodigoActividadEmisor) must be one of the company's active
// activities in Hacienda's register (operations/public-data.ts): otherwise 422
// activity_not_registered, naming the code and listing the registered ones. When Hacienda cannot be
// reached (and the register is not cached) the change is refused with 503 hacienda_unavailable
// rather than accepted unchecked: a document whose activity Hacienda does not know for its emisor
// would be rejected later, after it was numbered. Once branches are defined, the default branch
// and terminal must be among them (422 unknown_branch / unknown_terminal).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Knex } from 'knex';
import type { Company } from '../../../db/models/index.ts';
import { listBranches, lockCompany } from '../../../db/queries/branches.ts';
import {
  credentialSummaries,
  getCompany,
  setEmailDelivery,
  updateCompanyProfile,
} from '../../../db/queries/companies.ts';
import { defaultsProblems } from '../../../domain/company-setup.ts';
import { ActivityNotRegisteredError, checkActivityRegistered } from '../../../operations/public-data.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, notFound, validationError } from '../../errors.ts';
import { companyObject } from '../../presenters/company.ts';
import { publicDataOf, taxpayerProblem } from '../../public-data.ts';
import { errorResponses } from '../../schemas/common.ts';
import { CompanyObject, UpdateCompanyBody } from '../../schemas/company.ts';
import type { AppDeps } from '../../deps.ts';
import { profileChange, type ProfileChange } from './profile-body.ts';

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

/** Writes the change under the company's lock, the defaults checked against its branches there. */
async function applyChange(db: Knex, company: Company, change: ProfileChange): Promise<void> {
  await db.transaction(async (trx) => {
    await lockCompany(trx, company.id);
    const { defaultBranch, defaultTerminal } = change.patch;
    if (defaultBranch !== undefined || defaultTerminal !== undefined) {
      const problems = defaultsProblems(
        await listBranches(trx, company.id),
        {
          branch: defaultBranch ?? company.defaultBranch,
          terminal: defaultTerminal ?? company.defaultTerminal,
        },
        { branch: '/default_branch', terminal: '/default_terminal' },
      );
      if (problems.length) throw validationError(problems);
    }
    await updateCompanyProfile(trx, company.id, change.patch);
    if (change.email) await setEmailDelivery(trx, company.id, change.email);
  });
}

export default async function companyProfileRoute(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.patch(
    '/api/v1/company',
    {
      // manage:keys kept for the integrations that changed the activity with it before.
      config: { anyScope: ['manage:company', 'manage:keys'] },
      schema: {
        tags: ['company'],
        summary: "Change the company's profile (emisor data, defaults, email delivery)",
        description:
          'Only the fields given change. The emisor data is checked as Hacienda checks an Emisor; ' +
          "activity_code against Hacienda's register (503 when it cannot be reached); default_branch " +
          'and default_terminal against the defined branches, once there are any.',
        body: UpdateCompanyBody,
        response: { 200: CompanyObject, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const company = await getCompany(db, auth.companyId);
      if (!company) throw notFound('company', String(auth.companyId));
      const change = profileChange(company, request.body);
      const code = request.body.activity_code;
      if (code !== undefined) {
        try {
          await checkActivityRegistered(db, publicDataOf(config), company.idNumber, code);
        } catch (err) {
          if (err instanceof ActivityNotRegisteredError) throw notRegistered(err);
          throw taxpayerProblem(err, company.idNumber, '/activity_code');
        }
      }
      await applyChange(db, company, change);
      const updated = (await getCompany(db, company.id))!;
      return companyObject(updated, auth.livemode, await credentialSummaries(db, company.id));
    },
  );
}
