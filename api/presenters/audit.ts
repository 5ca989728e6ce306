// An audit_events row → the public `audit_event` object (schema AuditEventObject,
// api/schemas/audit.ts): public ids for the event and its actor.
import type { Static } from 'typebox';
import type { AuditEventRow } from '../../db/queries/audit.ts';
import { formatId } from '../../domain/ids.ts';
import type { AuditEventObject } from '../schemas/audit.ts';

export type AuditEventJson = Static<typeof AuditEventObject>;

export function auditEventObject(r: AuditEventRow): AuditEventJson {
  const actorKind = r.actorType === 'user' ? 'user' : 'apiKey';
  return {
    id: formatId('auditEvent', r.id),
    object: 'audit_event' as const,
    at: r.at.toISOString(),
    livemode: r.livemode,
    actor: {
      type: r.actorType,
      id: r.actorId === null ? null : formatId(actorKind, r.actorId),
      name: r.actorName,
    },
    action: r.action,
    target: r.targetType && r.targetId ? { type: r.targetType, id: r.targetId } : null,
    ip: r.ip,
    request_id: r.requestId,
  };
}
