// Signing up and confirming the email address (public routes). A sign-up with an invitation for
// the same address counts as confirmed and joins the company; otherwise a confirmation link is
// emailed (Spanish first, English second).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  createUser,
  createUserToken,
  EmailTaken,
  updateUser,
  useUserToken,
  userById,
} from '../../../db/queries/users.ts';
import { confirmationEmail } from '../../../domain/account-emails.ts';
import { hashToken, newToken, TOKEN_RE } from '../../../domain/account-tokens.ts';
import { passwordProblems } from '../../../domain/passwords.ts';
import { appLink, sendAccountEmail } from '../../account-mail.ts';
import { ApiError, validationError } from '../../errors.ts';
import { acceptInvitation, invalidToken, invitationFor } from '../../invitations.ts';
import { hashPassword } from '../../passwords.ts';
import { userObject } from '../../presenters/accounts.ts';
import { SignUpBody, TokenBody, UserAnswer } from '../../schemas/accounts.ts';
import { errorResponses } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';

const CONFIRM_SECONDS = 7 * 86_400;

export default async function signUpRoutes(fastify: FastifyInstance, { db, config }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/account/sign_up',
    {
      config: { public: true },
      schema: {
        tags: ['account'],
        summary: 'Create an account (a confirmation link is emailed)',
        body: SignUpBody,
        response: { 201: UserAnswer, ...errorResponses(409, 422) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const email = b.email.trim();
      const problems = passwordProblems(b.password, email);
      if (problems.length) throw validationError(problems);
      const invitation = b.invitation_token ? await invitationFor(db, b.invitation_token, email) : null;
      const passwordHash = await hashPassword(b.password);
      const user = await db
        .transaction(async (trx) => {
          const u = await createUser(trx, {
            email,
            name: b.name.trim(),
            locale: b.locale ?? 'es-CR',
            passwordHash,
            confirmed: invitation !== null,
          });
          if (invitation) await acceptInvitation(trx, invitation, u.id);
          return u;
        })
        .catch((err: unknown) => {
          if (err instanceof EmailTaken)
            throw new ApiError(
              'email_taken',
              'Ya hay una cuenta con este correo (an account with this email exists)',
              {
                errors: [{ path: '/email', code: 'email_taken', message: 'already has an account' }],
              },
            );
          throw err;
        });
      if (!invitation) {
        const { token, hash } = newToken();
        await createUserToken(db, user.id, 'confirm_email', hash, CONFIRM_SECONDS);
        await sendAccountEmail(
          config,
          request.log,
          user.email,
          confirmationEmail(user.name, appLink(config, 'confirmar', token)),
        );
      }
      return reply.code(201).send({ user: userObject(user) });
    },
  );

  app.post(
    '/api/v1/account/confirm',
    {
      config: { public: true },
      schema: {
        tags: ['account'],
        summary: 'Confirm the email address with the token of the emailed link',
        body: TokenBody,
        response: { 200: UserAnswer, ...errorResponses(422) },
      },
    },
    async (request) => {
      const { token } = request.body;
      const userId = TOKEN_RE.test(token) ? await useUserToken(db, 'confirm_email', hashToken(token)) : null;
      if (userId === null) throw invalidToken('token');
      const user = (await userById(db, userId))!;
      const confirmed = user.emailConfirmedAt
        ? user
        : await updateUser(db, userId, { emailConfirmedAt: new Date() });
      return { user: userObject(confirmed) };
    },
  );
}
