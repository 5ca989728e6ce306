// The company's credentials per mode, through the API: PUT /api/v1/company/certificate (its .p12,
// checked on the spot by hacienda/signing-key.ts openCompanyP12 as the command-line tool checks
// it, then sealed) and PUT /api/v1/company/hacienda_credentials (its Hacienda API user, tried on
// Hacienda's IDP of the mode before anything is stored), POST …/hacienda_credentials/test (the
// stored user tried again). Secrets never come back.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { companyCredentials, setHaciendaVerified } from '../../../db/queries/credentials.ts';
import { getCompany } from '../../../db/queries/companies.ts';
import { HaciendaAuthError, HaciendaUnavailableError } from '../../../hacienda/client/errors.ts';
import { open } from '../../../hacienda/secret-box.ts';
import { openCompanyP12, SigningKeyError } from '../../../hacienda/signing-key.ts';
import {
  storeHaciendaCredentials,
  storeSigningMaterial,
  verifyHaciendaCredentials,
} from '../../../operations/company-credentials.ts';
import { tenantOf } from '../../auth.ts';
import { ApiError, notFound } from '../../errors.ts';
import { errorResponses } from '../../schemas/common.ts';
import {
  CertificateAnswer,
  CertificateBody,
  HaciendaCredentialsAnswer,
  HaciendaCredentialsBody,
  HaciendaCredentialsTestBody,
} from '../../schemas/company-setup.ts';
import type { AppDeps } from '../../deps.ts';
import { certificateProblem, decodeBase64 } from './setup-problems.ts';

/** 422 hacienda_credentials_rejected or 503 hacienda_unavailable; other errors unchanged. */
function idpProblem(err: unknown): unknown {
  if (err instanceof HaciendaAuthError) {
    const message =
      'El IDP de Hacienda rechazó el usuario o la contraseña; no se guardó nada ' +
      "(Hacienda's IDP refused the username or password; nothing was stored)";
    return new ApiError('hacienda_credentials_rejected', message, {
      errors: [{ path: '/password', code: 'hacienda_credentials_rejected', message }],
      fields: { idp_error: err.error },
    });
  }
  if (err instanceof HaciendaUnavailableError)
    return new ApiError(
      'hacienda_unavailable',
      `No se pudo contactar el IDP de Hacienda (${err.reason}); no se guardó nada, intente de nuevo ` +
        `(Hacienda's IDP could not be reached (${err.reason}); nothing was stored, try again)`,
      { headers: { 'retry-after': '30' }, fields: { reason: err.reason } },
    );
  return err;
}

export default async function companyCredentialRoutes(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.put(
    '/api/v1/company/certificate',
    {
      config: { scope: 'manage:company' },
      schema: {
        tags: ['company'],
        summary: "Store the company's signing certificate (.p12) for a mode",
        description:
          'Checked on the spot: it opens with the PIN (422 p12_unreadable, p12_wrong_pin), it is current ' +
          "(certificate_expired, certificate_not_yet_valid) and it carries the company's identification " +
          '(certificate_other_taxpayer). Stored encrypted; replaces the one the mode had.',
        body: CertificateBody,
        response: { 200: CertificateAnswer, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const company = await getCompany(db, auth.companyId);
      if (!company) throw notFound('company', String(auth.companyId));
      const p12 = decodeBase64(request.body.p12_base64, '/p12_base64', 'p12_unreadable');
      let opened;
      try {
        opened = openCompanyP12(p12, request.body.pin, company);
      } catch (err) {
        if (err instanceof SigningKeyError) throw certificateProblem(err);
        throw err;
      }
      const livemode = request.body.mode === 'live';
      const info = await storeSigningMaterial(db, config.secretsKey, company.id, livemode, opened.material);
      return { mode: request.body.mode, subject: info.subject, not_after: info.notAfter.toISOString() };
    },
  );

  app.put(
    '/api/v1/company/hacienda_credentials',
    {
      config: { scope: 'manage:company' },
      schema: {
        tags: ['company'],
        summary: "Store the company's Hacienda API user for a mode, once Hacienda's IDP accepts it",
        description:
          "Tried first on Hacienda's IDP of the mode (the sandbox simulator's for test): 422 " +
          'hacienda_credentials_rejected when refused, 503 hacienda_unavailable when it cannot be reached; ' +
          'nothing is stored in both cases. The password is stored encrypted and never shown.',
        body: HaciendaCredentialsBody,
        response: { 200: HaciendaCredentialsAnswer, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const { mode, username, password } = request.body;
      const livemode = mode === 'live';
      try {
        await verifyHaciendaCredentials(config.hacienda, livemode, username, password);
      } catch (err) {
        throw idpProblem(err);
      }
      const verifiedAt = new Date();
      await storeHaciendaCredentials(db, config.secretsKey, auth.companyId, livemode, {
        username,
        password,
        verifiedAt,
      });
      return { mode, username, verified_at: verifiedAt.toISOString() };
    },
  );

  app.post(
    '/api/v1/company/hacienda_credentials/test',
    {
      config: { scope: 'manage:company' },
      schema: {
        tags: ['company'],
        summary: "Try the stored Hacienda API user of a mode on Hacienda's IDP again",
        description:
          '200 when accepted (verified_at renewed); 422 hacienda_credentials_rejected when refused (the ' +
          'credentials count as unverified); 503 when the IDP cannot be reached (nothing changes); 409 ' +
          'hacienda_credentials_missing when none are stored.',
        body: HaciendaCredentialsTestBody,
        response: { 200: HaciendaCredentialsAnswer, ...errorResponses(409, 422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const livemode = request.body.mode === 'live';
      const row = await companyCredentials(db, auth.companyId, livemode);
      if (!row?.haciendaUsername || !row.haciendaPasswordEnc)
        throw new ApiError(
          'hacienda_credentials_missing',
          `No hay usuario de Hacienda guardado para el modo ${request.body.mode} ` +
            `(no Hacienda credentials are stored for mode ${request.body.mode})`,
        );
      const password = open(config.secretsKey, row.haciendaPasswordEnc).toString('utf8');
      try {
        await verifyHaciendaCredentials(config.hacienda, livemode, row.haciendaUsername, password);
      } catch (err) {
        if (err instanceof HaciendaAuthError) await setHaciendaVerified(db, auth.companyId, livemode, null);
        throw idpProblem(err);
      }
      const verifiedAt = new Date();
      await setHaciendaVerified(db, auth.companyId, livemode, verifiedAt);
      return {
        mode: request.body.mode,
        username: row.haciendaUsername,
        verified_at: verifiedAt.toISOString(),
      };
    },
  );
}
