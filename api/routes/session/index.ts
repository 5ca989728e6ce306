// Signing in and out of the application: POST /api/v1/session (email, password and, when the
// person has it on, a TOTP code) answers the person, their memberships and a CSRF token, and sets
// the session cookie; GET answers the same for the cookie's session; DELETE ends it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { Type, type Static } from 'typebox';
import { membershipsOf } from '../../../db/queries/memberships.ts';
import { userByEmail, userById, type UserRow } from '../../../db/queries/users.ts';
import { personOf } from '../../auth.ts';
import { ApiError } from '../../errors.ts';
import { checkPassword } from '../../passwords.ts';
import { membershipObject, userObject } from '../../presenters/accounts.ts';
import { SessionAnswer, SignInBody } from '../../schemas/accounts.ts';
import { errorResponses } from '../../schemas/common.ts';
import { endSession, startSession } from '../../sessions.ts';
import { recordSignInEvent } from '../../sign-in-audit.ts';
import { checkSignInLimits, countSignInFailure } from '../../sign-in-limits.ts';
import { totpMatches } from '../../totp.ts';
import type { AppDeps } from '../../deps.ts';

async function sessionState(db: Knex, user: UserRow, csrfToken: string) {
  const memberships = await membershipsOf(db, user.id);
  return { user: userObject(user), memberships: memberships.map(membershipObject), csrf_token: csrfToken };
}

/** The person of an email and password (and TOTP code), or the refusal; failures are counted. */
async function signInUser(
  deps: AppDeps,
  request: FastifyRequest,
  body: Static<typeof SignInBody>,
): Promise<UserRow> {
  const { db, config } = deps;
  await checkSignInLimits(db, request, body.email);
  const user = await userByEmail(db, body.email.trim());
  if (!(await checkPassword(user?.passwordHash ?? null, body.password)) || !user) {
    await countSignInFailure(db, request, body.email);
    await recordSignInEvent(db, request, 'session.failed', user ?? null);
    throw new ApiError('invalid_credentials', 'Correo o contraseña incorrectos (wrong email or password)');
  }
  if (user.totpSecret) {
    if (!body.totp_code)
      throw new ApiError(
        'totp_required',
        'Indique el código de su aplicación de autenticación (give your authenticator code)',
        {
          errors: [{ path: '/totp_code', code: 'required', message: 'is required' }],
        },
      );
    if (!totpMatches(config.secretsKey, user.totpSecret, body.totp_code)) {
      await countSignInFailure(db, request, body.email);
      await recordSignInEvent(db, request, 'session.failed', user);
      throw new ApiError('invalid_totp', 'El código no es correcto (the code is wrong)', {
        errors: [{ path: '/totp_code', code: 'invalid_totp', message: 'is wrong or expired' }],
      });
    }
  }
  if (!user.emailConfirmedAt)
    throw new ApiError(
      'email_unconfirmed',
      'Confirme su correo con el enlace que le enviamos (confirm your email first)',
    );
  return user;
}

export default async function sessionRoutes(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = deps;
  const answer = { 200: SessionAnswer, ...errorResponses() };

  app.post(
    '/api/v1/session',
    {
      config: { public: true },
      schema: {
        tags: ['session'],
        summary: 'Sign in (sets the session cookie)',
        body: SignInBody,
        response: answer,
      },
    },
    async (request, reply) => {
      const user = await signInUser(deps, request, request.body);
      const { csrfToken } = await startSession(db, config, request, reply, user.id);
      await recordSignInEvent(db, request, 'session.create', user);
      return sessionState(db, user, csrfToken);
    },
  );

  app.get(
    '/api/v1/session',
    {
      config: { person: true },
      schema: {
        tags: ['session'],
        summary: 'The signed-in person, their companies and a CSRF token',
        response: answer,
      },
    },
    async (request, reply: FastifyReply) => {
      const user = (await userById(db, personOf(request).userId))!;
      return sessionState(db, user, reply.generateCsrf());
    },
  );

  app.delete(
    '/api/v1/session',
    {
      config: { person: true },
      schema: {
        tags: ['session'],
        summary: 'Sign out (ends this session, clears the cookie)',
        response: { 204: Type.Null({ description: 'Signed out' }), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const user = await userById(db, personOf(request).userId);
      await endSession(db, config, request, reply);
      if (user) await recordSignInEvent(db, request, 'session.delete', user);
      return reply.code(204).send(null);
    },
  );
}
