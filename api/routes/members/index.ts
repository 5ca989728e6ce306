// The people of a company (scope manage:members): list members and open invitations, invite by
// email (a link valid 7 days), withdraw an invitation, change a role, remove a member. Only an
// owner makes, changes or removes an owner; the last owner stays (409 last_owner).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { getCompany } from '../../../db/queries/companies.ts';
import { createInvitation, openInvitations, revokeInvitation } from '../../../db/queries/invitations.ts';
import {
  listMembers,
  lockMemberships,
  removeMember,
  setMemberRole,
} from '../../../db/queries/memberships.ts';
import { invitationEmail } from '../../../domain/account-emails.ts';
import { newToken } from '../../../domain/account-tokens.ts';
import { formatId, parseId } from '../../../domain/ids.ts';
import { memberChangeRefusal } from '../../../domain/member-rules.ts';
import type { Role } from '../../../domain/roles.ts';
import { appLink, sendAccountEmail } from '../../account-mail.ts';
import { tenantOf, type AuthContext } from '../../auth.ts';
import { ApiError, notFound } from '../../errors.ts';
import { InvitationObject, InviteBody, MemberList, MemberObject, RoleBody } from '../../schemas/accounts.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';

const tags = ['members'];
const config = { scope: 'manage:members' as const };
const INVITATION_SECONDS = 7 * 86_400;

const actorRole = (auth: AuthContext): Role | null => (auth.actor.type === 'user' ? auth.actor.role : null);

function ownerRequired(): ApiError {
  return new ApiError('owner_required', 'Solo un propietario puede hacerlo (only an owner may do this)');
}

export default async function memberRoutes(
  fastify: FastifyInstance,
  { db, config: cfg }: AppDeps,
): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/members',
    {
      config,
      schema: {
        tags,
        summary: 'Members and open invitations',
        response: { 200: MemberList, ...errorResponses() },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      const [members, invitations] = await Promise.all([
        listMembers(db, auth.companyId),
        openInvitations(db, auth.companyId),
      ]);
      return {
        data: members.map((m) => ({
          user: { id: formatId('user', Number(m.userId)), email: m.email, name: m.name },
          role: m.role,
          created_at: new Date(m.createdAt).toISOString(),
        })),
        invitations: invitations.map((i) => ({
          id: formatId('invitation', Number(i.id)),
          email: i.email,
          role: i.role,
          expires_at: new Date(i.expiresAt).toISOString(),
        })),
      };
    },
  );

  app.post(
    '/api/v1/members/invitations',
    {
      config,
      schema: {
        tags,
        summary: 'Invite someone by email',
        body: InviteBody,
        response: { 201: InvitationObject, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      if (request.body.role === 'owner' && actorRole(auth) !== 'owner') throw ownerRequired();
      const { token, hash } = newToken();
      const inv = await createInvitation(db, {
        companyId: auth.companyId,
        email: request.body.email.trim(),
        role: request.body.role,
        tokenHash: hash,
        invitedBy: auth.actor.type === 'user' ? auth.actor.userId : null,
        validSeconds: INVITATION_SECONDS,
      });
      const company = (await getCompany(db, auth.companyId))!;
      await sendAccountEmail(
        cfg,
        request.log,
        inv.email,
        invitationEmail(company.name, inv.role, appLink(cfg, 'invitacion', token)),
      );
      return reply.code(201).send({
        id: formatId('invitation', Number(inv.id)),
        email: inv.email,
        role: inv.role,
        expires_at: new Date(inv.expiresAt).toISOString(),
      });
    },
  );

  app.delete(
    '/api/v1/members/invitations/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Withdraw an invitation',
        params: IdParam,
        response: { 204: Type.Null({ description: 'Withdrawn' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const auth = tenantOf(request);
      const id = parseId('invitation', request.params.id);
      if (id === null || !(await revokeInvitation(db, auth.companyId, id)))
        throw notFound('invitation', request.params.id);
      return reply.code(204).send(null);
    },
  );

  /** Changes (or with null removes) a member under the owner rules, in one locked transaction. */
  async function changeMember(auth: AuthContext, idParam: string, next: Role | null): Promise<void> {
    const userId = parseId('user', idParam);
    await db.transaction(async (trx) => {
      const members = await lockMemberships(trx, auth.companyId);
      const refusal =
        userId === null ? 'not_found' : memberChangeRefusal(members, actorRole(auth), userId, next);
      if (refusal === 'not_found') throw notFound('member', idParam);
      if (refusal === 'owner_required') throw ownerRequired();
      if (refusal === 'last_owner')
        throw new ApiError(
          'last_owner',
          'La empresa necesita al menos un propietario (the company needs at least one owner)',
        );
      if (next === null) await removeMember(trx, auth.companyId, userId!);
      else await setMemberRole(trx, auth.companyId, userId!, next);
    });
  }

  app.patch(
    '/api/v1/members/:id',
    {
      config,
      schema: {
        tags,
        summary: "Change a member's role",
        params: IdParam,
        body: RoleBody,
        response: { 200: MemberObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const auth = tenantOf(request);
      await changeMember(auth, request.params.id, request.body.role);
      const m = (await listMembers(db, auth.companyId)).find(
        (x) => formatId('user', Number(x.userId)) === request.params.id,
      )!;
      return {
        user: { id: request.params.id, email: m.email, name: m.name },
        role: m.role,
        created_at: new Date(m.createdAt).toISOString(),
      };
    },
  );

  app.delete(
    '/api/v1/members/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Remove a member',
        params: IdParam,
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      await changeMember(tenantOf(request), request.params.id, null);
      return reply.code(204).send(null);
    },
  );
}
