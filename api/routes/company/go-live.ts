// Going live: GET /api/v1/company/go_live (the checklist: a current live certificate, live
// Hacienda credentials accepted by Hacienda's IDP, a sandbox document accepted) and POST (sets the
// company's live_enabled_at when every item is done; 409 go_live_checklist_incomplete naming the
// missing ones otherwise). Going live again changes nothing.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Knex } from 'knex';
import { enableLive, getCompany, hasAcceptedSandboxDocument } from '../../../db/queries/companies.ts';
import { companyCredentials } from '../../../db/queries/credentials.ts';
import { goLiveChecklist } from '../../../domain/company-setup.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError } from '../../errors.ts';
import { errorResponses } from '../../schemas/common.ts';
import { GoLiveObject } from '../../schemas/company-setup.ts';
import type { AppDeps } from '../../deps.ts';

async function checklistOf(db: Knex, companyId: number) {
  const [live, accepted] = await Promise.all([
    companyCredentials(db, companyId, true),
    hasAcceptedSandboxDocument(db, companyId),
  ]);
  return goLiveChecklist({
    liveCertificateNotAfter: live?.signingKeyEnc ? live.certificateNotAfter : null,
    liveCredentialsVerifiedAt:
      live?.haciendaUsername && live.haciendaPasswordEnc ? live.haciendaVerifiedAt : null,
    sandboxDocumentAccepted: accepted,
  });
}

export default async function companyGoLiveRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/company/go_live',
    {
      config: { scope: 'read:company' },
      schema: {
        tags: ['company'],
        summary: 'What the company still needs to go live (the checklist)',
        response: { 200: GoLiveObject, ...errorResponses() },
      },
    },
    async (request) => {
      const companyId = tenantOf(request).companyId;
      const company = (await getCompany(db, companyId))!;
      return { ...(await checklistOf(db, companyId)), live_enabled: company.liveEnabledAt != null };
    },
  );

  app.post(
    '/api/v1/company/go_live',
    {
      config: { scope: 'manage:company' },
      schema: {
        tags: ['company'],
        summary: 'Go live once the checklist is complete',
        response: { 200: GoLiveObject, ...errorResponses(409) },
      },
    },
    async (request) => {
      const companyId = tenantOf(request).companyId;
      const result = await checklistOf(db, companyId);
      if (!result.ready) {
        const missing = result.checklist.filter((c) => !c.done).map((c) => c.item);
        throw new ApiError(
          'go_live_checklist_incomplete',
          `Falta para pasar a producción: ${missing.join(', ')} (missing before going live: ${missing.join(', ')})`,
          { fields: { missing } },
        );
      }
      await enableLive(db, companyId);
      return { ...result, live_enabled: true };
    },
  );
}
