// GET /api/v1/audit_events (scope read:audit): the company's audit log in the caller's mode,
// newest first, keyset-paged like the other lists (limit, starting_after, and ending_before for
// the previous page), filtered by action, actor type and time. Events are recorded by api/audit.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listAuditEvents, type AuditActorType } from '../../../db/queries/audit.ts';
import { parseId } from '../../../domain/ids.ts';
import { tenantOf } from '../../auth.ts';
import { validationError } from '../../errors.ts';
import { auditEventObject } from '../../presenters/audit.ts';
import { AuditEventObject, ListAuditEventsQuery } from '../../schemas/audit.ts';
import { errorResponses, ListOf } from '../../schemas/common.ts';
import type { AppDeps } from '../../deps.ts';

const cursor = (raw: string | undefined) => (raw ? (parseId('auditEvent', raw) ?? undefined) : undefined);

export default async function auditRoutes(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v1/audit_events',
    {
      config: { scope: 'read:audit' },
      schema: {
        tags: ['audit'],
        summary: 'List the audit log: who changed what, newest first',
        description:
          'Every successful write (POST, PUT, PATCH, DELETE answered 2xx) by a key or a person of the ' +
          "company in the caller's mode, plus sign-ins and sign-outs. Recorded just after the answer.",
        querystring: ListAuditEventsQuery,
        response: { 200: ListOf(AuditEventObject), ...errorResponses(422) },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.starting_after && q.ending_before)
        throw validationError([
          {
            path: 'querystring:/ending_before',
            code: 'conflicting_fields',
            message: 'give starting_after or ending_before, not both',
          },
        ]);
      if (q.since && q.until && Date.parse(q.since) >= Date.parse(q.until))
        throw validationError([
          { path: 'querystring:/until', code: 'out_of_range', message: 'must be after since' },
        ]);
      const { rows, hasMore } = await listAuditEvents(db, tenantOf(request), {
        action: q.action,
        actorType: q.actor_type as AuditActorType | undefined,
        since: q.since,
        until: q.until,
        startingAfter: cursor(q.starting_after),
        endingBefore: cursor(q.ending_before),
        limit: q.limit ?? 20,
      });
      return { object: 'list' as const, data: rows.map(auditEventObject), has_more: hasMore };
    },
  );
}
