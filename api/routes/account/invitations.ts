// POST /api/v1/invitations/accept: a signed-in person accepts an invitation sent to their address.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { membershipOf } from '../../../db/queries/memberships.ts';
import { userById } from '../../../db/queries/users.ts';
import { personOf } from '../../auth.ts';
import { acceptInvitation, invitationFor } from '../../invitations.ts';
import { membershipObject } from '../../presenters/accounts.ts';
import { MembershipAnswer, TokenBody } from '../../schemas/accounts.ts';
import { errorResponses } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';

export default async function acceptInvitationRoute(
  fastify: FastifyInstance,
  { db }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/v1/invitations/accept',
    {
      config: { person: true },
      schema: {
        tags: ['members'],
        summary: 'Accept an invitation sent to your email address',
        body: TokenBody,
        response: { 200: MembershipAnswer, ...errorResponses(422) },
      },
    },
    async (request) => {
      const user = (await userById(db, personOf(request).userId))!;
      const inv = await invitationFor(db, request.body.token, user.email, 'token');
      await acceptInvitation(db, inv, user.id);
      return { membership: membershipObject((await membershipOf(db, user.id, Number(inv.companyId)))!) };
    },
  );
}
