// GET /api/v1/company: the caller's company as the API sees it. Never returns secrets.
import type { FastifyInstance } from 'fastify';
import { credentialSummaries, getCompany } from '../../../db/queries/companies.ts';
import { tenantOf } from '../../auth.ts';
import { notFound } from '../../errors.ts';
import { companyObject } from '../../presenters/company.ts';
import { errorResponses } from '../../schemas/common.ts';
import { CompanyObject } from '../../schemas/company.ts';
import type { AppDeps } from '../../deps.ts';

export default async function companyRoutes(app: FastifyInstance, { db }: AppDeps): Promise<void> {
  app.get(
    '/api/v1/company',
    {
      config: { scope: 'read:company' },
      schema: {
        tags: ['company'],
        summary: 'Read the company of this API key',
        response: { 200: CompanyObject, ...errorResponses() },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const company = await getCompany(db, auth.companyId);
      if (!company) throw notFound('company', String(auth.companyId));
      return companyObject(company, auth.livemode, await credentialSummaries(db, company.id));
    },
  );
}
