// Audit log schemas: an audit event (who did what to which resource, from where) and the list's
// query. Actions are `<resource>.<verb>` (domain/audit-actions.ts).
import { Type } from 'typebox';
import { Limit, Timestamp, nameSchemas } from './common.ts';

const ACTION_PATTERN = '^[a-z_]+(\\.[a-z_]+)+$';
const AUDIT_ID_PATTERN = '^aud_\\d{12}$';

export const AuditEventObject = Type.Object({
  id: Type.String({ examples: ['aud_000000000001'] }),
  object: Type.Literal('audit_event'),
  at: Timestamp,
  livemode: Type.Boolean(),
  actor: Type.Object(
    {
      type: Type.String({ enum: ['key', 'user'] }),
      id: Type.Union([Type.String(), Type.Null()], {
        description: 'The API key (key_…) or the person (usr_…)',
        examples: ['key_000000000001'],
      }),
      name: Type.Union([Type.String(), Type.Null()], {
        description: "The key's or the person's name at the time",
      }),
    },
    { title: 'AuditActor' },
  ),
  action: Type.String({
    description:
      '`<resource>.<verb>`: invoices.create, clients.update, webhook_endpoints.delete, invoices.send, ' +
      'keys.revoke, batches.create, session.create…',
    examples: ['invoices.create'],
  }),
  target: Type.Union(
    [
      Type.Object({
        type: Type.String({ examples: ['invoice'] }),
        id: Type.String({ examples: ['inv_000000000042'] }),
      }),
      Type.Null(),
    ],
    { description: 'The resource acted on (null when there is none)' },
  ),
  ip: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The Request-Id of the request that did it',
  }),
});

export const ListAuditEventsQuery = Type.Object(
  {
    action: Type.Optional(
      Type.String({ maxLength: 100, pattern: ACTION_PATTERN, examples: ['invoices.create'] }),
    ),
    actor_type: Type.Optional(Type.String({ enum: ['key', 'user'] })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'At or after this time' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Before this time' })),
    limit: Type.Optional(Limit),
    starting_after: Type.Optional(
      Type.String({ pattern: AUDIT_ID_PATTERN, description: 'The next page: events older than this one' }),
    ),
    ending_before: Type.Optional(
      Type.String({
        pattern: AUDIT_ID_PATTERN,
        description: 'The previous page: events newer than this one (not with starting_after)',
      }),
    ),
  },
  { additionalProperties: false },
);

// Their names in the OpenAPI document and the generated client (api/openapi-components.ts).
nameSchemas({ AuditEvent: AuditEventObject });
