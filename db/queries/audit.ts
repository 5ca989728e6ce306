// The audit log: who (an API key or a person) did what (an action such as `invoices.create`) to
// which resource, from where and when. `recordAuditEvent` writes one event; the API's hook
// (api/audit.ts) calls it after every successful write, and sign-in, sign-out and failed sign-ins
// call it directly. `listAuditEvents` reads a company's events in one mode, newest first, keyset-
// paged on the id like the other lists (index audit_events_page_idx).
import type { Knex } from 'knex';

export type AuditActorType = 'key' | 'user';

export interface AuditActor {
  type: AuditActorType;
  /** The key's or the person's row id (null: a failed sign-in with no person behind the email). */
  id: number | null;
  /** Shown in the log as it was at the time; omitted: the key's or person's name is read in the insert. */
  name?: string | null;
}

export interface AuditEventInput {
  /** null: an event of no company (a sign-in before choosing one), kept but never listed. */
  companyId: number | null;
  /** The mode the event happened in; null exactly when companyId is null. */
  livemode: boolean | null;
  actor: AuditActor;
  /** `<resource>.<verb>`, e.g. `invoices.create`, `webhook_endpoints.delete`, `session.create`. */
  action: string;
  /** The resource acted on: its type (`invoice`) and public id (`inv_000000000042`). */
  target?: { type: string; id: string } | null;
  ip?: string | null;
  requestId?: string | null;
  at?: Date;
}

/** Longest wait for the insert (a locked table must not hold a pool connection for long). */
const INSERT_TIMEOUT_MS = 5_000;

/** Records one audit event. Throws on failure: callers that must not fail catch (api/audit.ts does). */
export async function recordAuditEvent(db: Knex, e: AuditEventInput): Promise<void> {
  await recordAuditEvents(db, [e]);
}

/** Records several audit events in one statement (the hook's batches). Throws on failure. */
export async function recordAuditEvents(db: Knex, events: readonly AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  await db('audit_events')
    .insert(events.map((e) => auditRow(db, e)))
    .timeout(INSERT_TIMEOUT_MS, { cancel: true });
}

function auditRow(db: Knex, e: AuditEventInput) {
  const table = e.actor.type === 'key' ? 'api_keys' : 'users';
  const name =
    e.actor.name !== undefined || e.actor.id === null
      ? (e.actor.name ?? null)
      : db(table).where({ id: e.actor.id }).select('name');
  return {
    companyId: e.companyId,
    livemode: e.companyId === null ? null : e.livemode,
    actorType: e.actor.type,
    actorId: e.actor.id,
    actorName: name,
    action: e.action,
    targetType: e.target?.type ?? null,
    targetId: e.target?.id ?? null,
    ip: e.ip ?? null,
    requestId: e.requestId ?? null,
    ...(e.at ? { at: e.at } : {}),
  };
}

export interface AuditEventRow {
  id: number;
  companyId: number;
  livemode: boolean;
  actorType: AuditActorType;
  actorId: number | null;
  actorName: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  ip: string | null;
  requestId: string | null;
  at: Date;
}

export interface AuditFilters {
  action?: string;
  actorType?: AuditActorType;
  since?: string;
  until?: string;
  /** Older than this id (the next page). */
  startingAfter?: number;
  /** Newer than this id (the previous page). */
  endingBefore?: number;
  limit: number;
}

/**
 * A page of the company's events in one mode, newest first. With `endingBefore` the page is the
 * `limit` events just newer than it (read oldest first, then turned round); `hasMore` then says
 * whether newer ones remain.
 */
export async function listAuditEvents(
  db: Knex,
  tenant: { companyId: number; livemode: boolean },
  f: AuditFilters,
): Promise<{ rows: AuditEventRow[]; hasMore: boolean }> {
  const backwards = f.endingBefore !== undefined && f.startingAfter === undefined;
  const order = backwards ? 'asc' : 'desc';
  const q = db('audit_events')
    .where({ companyId: tenant.companyId, livemode: tenant.livemode })
    .orderBy([
      { column: 'companyId', order },
      { column: 'livemode', order },
      { column: 'id', order },
    ])
    .limit(f.limit + 1);
  if (f.action !== undefined) q.where('action', f.action);
  if (f.actorType !== undefined) q.where('actorType', f.actorType);
  if (f.since !== undefined) q.where('at', '>=', f.since);
  if (f.until !== undefined) q.where('at', '<', f.until);
  if (f.startingAfter !== undefined) q.where('id', '<', f.startingAfter);
  if (f.endingBefore !== undefined) q.where('id', '>', f.endingBefore);
  const rows = (await q) as AuditEventRow[];
  const page = rows.slice(0, f.limit);
  return { rows: backwards ? page.reverse() : page, hasMore: rows.length > f.limit };
}
