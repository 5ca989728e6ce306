// Password reset (public): asking always answers 202, whether or not the address has an account
// (an email with a link valid 1 hour goes only to an existing one); confirming sets the new
// password once and ends every session of the person.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { revokeUserSessions } from '../../../db/queries/sessions.ts';
import {
  createUserToken,
  updateUser,
  useUserToken,
  userByEmail,
  userById,
  userTokenOwner,
} from '../../../db/queries/users.ts';
import { passwordResetEmail } from '../../../domain/account-emails.ts';
import { hashToken, newToken, TOKEN_RE } from '../../../domain/account-tokens.ts';
import { passwordProblems } from '../../../domain/passwords.ts';
import { appLink, sendAccountEmail } from '../../account-mail.ts';
import { validationError } from '../../errors.ts';
import { invalidToken } from '../../invitations.ts';
import { hashPassword } from '../../passwords.ts';
import { userObject } from '../../presenters/accounts.ts';
import { EmailBody, ResetConfirmBody, UserAnswer } from '../../schemas/accounts.ts';
import { errorResponses } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';

const RESET_SECONDS = 3600;

export default async function passwordRoutes(
  fastify: FastifyInstance,
  { db, config }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/account/password_reset',
    {
      config: { public: true },
      schema: {
        tags: ['account'],
        summary: 'Email a password reset link (always 202: it does not tell whether the account exists)',
        body: EmailBody,
        response: { 202: Type.Object({ accepted: Type.Literal(true) }), ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const user = await userByEmail(db, request.body.email.trim());
      if (user) {
        const { token, hash } = newToken();
        await createUserToken(db, user.id, 'password_reset', hash, RESET_SECONDS);
        void sendAccountEmail(
          config,
          request.log,
          user.email,
          passwordResetEmail(user.name, appLink(config, 'restablecer', token)),
        );
      }
      return reply.code(202).send({ accepted: true as const });
    },
  );

  app.post(
    '/api/v1/account/password_reset/confirm',
    {
      config: { public: true },
      schema: {
        tags: ['account'],
        summary: 'Set a new password with the token of the emailed link (ends every session)',
        body: ResetConfirmBody,
        response: { 200: UserAnswer, ...errorResponses(422) },
      },
    },
    async (request) => {
      const { token, password } = request.body;
      if (!TOKEN_RE.test(token)) throw invalidToken('token');
      const tokenHash = hashToken(token);
      const owner = await userTokenOwner(db, 'password_reset', tokenHash);
      const user = owner === null ? undefined : await userById(db, owner);
      if (user) {
        const problems = passwordProblems(password, user.email);
        if (problems.length) throw validationError(problems);
      }
      const passwordHash = await hashPassword(password);
      const updated = await db.transaction(async (trx) => {
        const userId = await useUserToken(trx, 'password_reset', tokenHash);
        if (userId === null) throw invalidToken('token');
        await revokeUserSessions(trx, userId);
        // The person proved they read the address's mail: it counts as confirmed.
        const u = (await userById(trx, userId))!;
        return updateUser(trx, userId, { passwordHash, emailConfirmedAt: u.emailConfirmedAt ?? new Date() });
      });
      return { user: userObject(updated) };
    },
  );
}
