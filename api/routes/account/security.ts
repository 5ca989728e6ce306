// A signed-in person's own account: their name and language (PATCH /api/v1/account), their live sessions (list, revoke one) and two-step sign-in
// with TOTP (set up, confirm with a first code, turn off with a current code).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { listLiveSessions, revokeSession } from '../../../db/queries/sessions.ts';
import { updateUser, userById } from '../../../db/queries/users.ts';
import { parseId } from '../../../domain/ids.ts';
import { personOf } from '../../auth.ts';
import { ApiError, notFound } from '../../errors.ts';
import { sessionObject, userObject } from '../../presenters/accounts.ts';
import {
  AccountPatchBody,
  SessionList,
  TotpCodeBody,
  TotpSetup,
  UserAnswer,
} from '../../schemas/accounts.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';
import { IDLE_SECONDS } from '../../sessions.ts';
import { newTotpSecret, totpMatches } from '../../totp.ts';
import type { AppDeps } from '../../deps.ts';

const tags = ['account'];
const person = { person: true };

function wrongCode(): ApiError {
  return new ApiError('invalid_totp', 'El código no es correcto (the code is wrong)', {
    errors: [{ path: '/code', code: 'invalid_totp', message: 'is wrong or expired' }],
  });
}

export default async function securityRoutes(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.patch(
    '/api/v1/account',
    {
      config: person,
      schema: {
        tags,
        summary: 'Change your name or language',
        body: AccountPatchBody,
        response: { 200: UserAnswer, ...errorResponses(422) },
      },
    },
    async (request) => {
      const { name, locale } = request.body;
      const trimmed = name?.trim();
      if (name !== undefined && !trimmed)
        throw new ApiError('validation_failed', 'Indique su nombre (give your name)', {
          errors: [{ path: '/name', code: 'required', message: 'is required' }],
        });
      const patch = { ...(trimmed ? { name: trimmed } : {}), ...(locale ? { locale } : {}) };
      return { user: userObject(await updateUser(db, personOf(request).userId, patch)) };
    },
  );

  app.get(
    '/api/v1/account/sessions',
    {
      config: person,
      schema: { tags, summary: 'Your live sessions', response: { 200: SessionList, ...errorResponses() } },
    },
    async (request) => {
      const me = personOf(request);
      const rows = await listLiveSessions(db, me.userId, IDLE_SECONDS);
      return { data: rows.map((s) => sessionObject(s, me.sessionId)) };
    },
  );

  app.delete(
    '/api/v1/account/sessions/:id',
    {
      config: person,
      schema: {
        tags,
        summary: 'End one of your sessions',
        params: IdParam,
        response: { 204: Type.Null({ description: 'Ended' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const me = personOf(request);
      const id = parseId('session', request.params.id);
      if (id === null || !(await revokeSession(db, me.userId, id)))
        throw notFound('session', request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/account/totp',
    {
      config: person,
      schema: {
        tags,
        summary: 'Start setting up two-step sign-in (TOTP)',
        response: { 200: TotpSetup, ...errorResponses(409) },
      },
    },
    async (request) => {
      const user = (await userById(db, personOf(request).userId))!;
      if (user.totpSecret)
        throw new ApiError('totp_already_enabled', 'Two-step sign-in is already on; turn it off first');
      const s = newTotpSecret(config.secretsKey, user.email);
      await updateUser(db, user.id, { totpPending: s.sealed });
      return { secret: s.base32, otpauth_url: s.url };
    },
  );

  app.post(
    '/api/v1/account/totp/confirm',
    {
      config: person,
      schema: {
        tags,
        summary: 'Turn two-step sign-in on with a first code',
        body: TotpCodeBody,
        response: { 200: UserAnswer, ...errorResponses(409) },
      },
    },
    async (request) => {
      const user = (await userById(db, personOf(request).userId))!;
      if (!user.totpPending) throw new ApiError('totp_not_pending', 'Start with POST /api/v1/account/totp');
      if (!totpMatches(config.secretsKey, user.totpPending, request.body.code)) throw wrongCode();
      return {
        user: userObject(await updateUser(db, user.id, { totpSecret: user.totpPending, totpPending: null })),
      };
    },
  );

  app.delete(
    '/api/v1/account/totp',
    {
      config: person,
      schema: {
        tags,
        summary: 'Turn two-step sign-in off (with a current code)',
        body: TotpCodeBody,
        response: { 200: UserAnswer, ...errorResponses() },
      },
    },
    async (request) => {
      const user = (await userById(db, personOf(request).userId))!;
      if (!user.totpSecret || !totpMatches(config.secretsKey, user.totpSecret, request.body.code))
        throw wrongCode();
      return { user: userObject(await updateUser(db, user.id, { totpSecret: null, totpPending: null })) };
    },
  );
}
