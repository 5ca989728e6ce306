// The company's logo, drawn in the header of its PDFs: PUT /api/v1/company/logo (a PNG or JPEG of
// at most 256 KB, checked to be really an image of the type given: domain/logo-image.ts), GET (its
// bytes) and DELETE.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { deleteCompanyLogo, getCompanyLogo, saveCompanyLogo } from '../../../db/queries/company-logos.ts';
import { checkLogo } from '../../../domain/logo-image.ts';
import { tenantOf } from '../../auth.ts';
import { sendBytes } from '../../byte-answers.ts';
import { ApiError } from '../../errors.ts';
import { errorResponses } from '../../schemas/common.ts';
import { LogoAnswer, LogoBody } from '../../schemas/company-setup.ts';
import type { AppDeps } from '../../deps.ts';
import { decodeBase64 } from './setup-problems.ts';

export default async function companyLogoRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.put(
    '/api/v1/company/logo',
    {
      config: { scope: 'manage:company' },
      schema: {
        tags: ['company'],
        summary: "Set the company's logo (PNG or JPEG, at most 256 KB), drawn on its PDFs",
        body: LogoBody,
        response: { 200: LogoAnswer, ...errorResponses(422) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const { content_type: contentType } = request.body;
      const data = decodeBase64(request.body.data_base64, '/data_base64', 'logo_invalid');
      const check = checkLogo(data, contentType, '/data_base64');
      if (!check.ok) throw new ApiError(check.code, check.error.message, { errors: [check.error] });
      const sha256 = createHash('sha256').update(data).digest('hex');
      await saveCompanyLogo(db, auth.companyId, {
        contentType,
        data,
        sha256,
        width: check.width,
        height: check.height,
      });
      return {
        content_type: contentType,
        size: data.length,
        width: check.width,
        height: check.height,
        sha256,
      };
    },
  );

  app.get(
    '/api/v1/company/logo',
    {
      config: { scope: 'read:company' },
      schema: {
        tags: ['company'],
        summary: "The company's logo (its bytes, image/png or image/jpeg)",
        response: { 200: Type.String({ description: 'image/png or image/jpeg' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const logo = await getCompanyLogo(db, tenantOf(request).companyId);
      if (!logo)
        throw new ApiError('resource_not_found', 'La empresa no tiene logo (the company has no logo)');
      reply.header('etag', `"${logo.sha256}"`).header('cache-control', 'private, no-cache');
      return sendBytes(reply, logo.contentType, logo.data);
    },
  );

  app.delete(
    '/api/v1/company/logo',
    {
      config: { scope: 'manage:company' },
      schema: {
        tags: ['company'],
        summary: "Remove the company's logo",
        response: { 204: Type.Null({ description: 'Removed (or there was none)' }), ...errorResponses() },
      },
    },
    async (request, reply) => {
      await deleteCompanyLogo(db, tenantOf(request).companyId);
      return reply.code(204).send(null);
    },
  );
}
