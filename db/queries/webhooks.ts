// Webhook endpoints, deliveries and attempts. Endpoints belong to (company, mode) and are
// soft-deleted (their delivery history stays). A delivery is one (event, endpoint) pair, created
// by the fan-out or, if the job gets there first, by the job itself; `round` counts redelivery
// requests and is part of the job id, so each request sends once more. Every POST is an attempt
// row, written before the request leaves and completed when it ends.
import type { Knex } from 'knex';
import { tenantOnly, type Tenant } from './clients.ts';
import { enqueueOutbox } from './events.ts';

export interface EndpointRow {
  id: number;
  companyId: number;
  livemode: boolean;
  url: string;
  events: string[];
  description: string | null;
  secretEnc: Buffer;
  previousSecretEnc: Buffer | null;
  previousSecretExpiresAt: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryRow {
  id: number;
  eventId: number;
  endpointId: number;
  companyId: number;
  livemode: boolean;
  status: 'pending' | 'delivered' | 'failed';
  round: number;
  attempts: number;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttemptRow {
  id: number;
  deliveryId: number;
  attemptNumber: number;
  round: number;
  startedAt: Date;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** Endpoints per (company, mode): each event fans out to all of them. */
export const MAX_ENDPOINTS = 16;
/** The previous secret keeps signing this long after a rotation. */
export const ROTATION_OVERLAP_HOURS = 24;

export async function countEndpoints(db: Knex, tenant: Tenant): Promise<number> {
  const [row] = await db('webhook_endpoints')
    .where(tenantOnly(tenant))
    .whereNull('deletedAt')
    .count('* as n');
  return Number((row as { n: string }).n);
}

export async function createEndpoint(
  db: Knex,
  tenant: Tenant,
  input: { url: string; events: string[]; description: string | null; secretEnc: Buffer },
): Promise<EndpointRow> {
  const [row] = await db('webhook_endpoints')
    .insert({ ...tenantOnly(tenant), ...input })
    .returning('*');
  return row as EndpointRow;
}

export async function listEndpoints(db: Knex, tenant: Tenant): Promise<EndpointRow[]> {
  return db('webhook_endpoints').where(tenantOnly(tenant)).whereNull('deletedAt').orderBy('id', 'desc');
}

export async function getEndpoint(db: Knex, tenant: Tenant, id: number): Promise<EndpointRow | undefined> {
  return db('webhook_endpoints')
    .where({ ...tenantOnly(tenant), id })
    .whereNull('deletedAt')
    .first();
}

export async function updateEndpoint(
  db: Knex,
  tenant: Tenant,
  id: number,
  patch: { url?: string; events?: string[]; description?: string | null; enabled?: boolean },
): Promise<EndpointRow | undefined> {
  const { enabled, ...fields } = patch;
  const update: Record<string, unknown> = { ...fields, updatedAt: db.fn.now() };
  if (enabled === true) Object.assign(update, { disabledAt: null, disabledReason: null });
  if (enabled === false)
    Object.assign(update, { disabledAt: db.fn.now(), disabledReason: 'disabled through the API' });
  const [row] = await db('webhook_endpoints')
    .where({ ...tenantOnly(tenant), id })
    .whereNull('deletedAt')
    .update(update)
    .returning('*');
  return row as EndpointRow | undefined;
}

export async function deleteEndpoint(db: Knex, tenant: Tenant, id: number): Promise<boolean> {
  const n = await db('webhook_endpoints')
    .where({ ...tenantOnly(tenant), id })
    .whereNull('deletedAt')
    .update({ deletedAt: db.fn.now(), updatedAt: db.fn.now() });
  return n > 0;
}

/**
 * Replaces the secret; the current one becomes the previous one and keeps signing for the
 * overlap. (A second rotation inside an overlap ends the older secret's overlap at once: at most
 * two secrets sign at any time.)
 */
export async function rotateEndpointSecret(
  db: Knex,
  tenant: Tenant,
  id: number,
  secretEnc: Buffer,
): Promise<EndpointRow | undefined> {
  const [row] = await db('webhook_endpoints')
    .where({ ...tenantOnly(tenant), id })
    .whereNull('deletedAt')
    .update({
      // Every right-hand side reads the row as it was before this update.
      previousSecretEnc: db.ref('secret_enc'),
      previousSecretExpiresAt: db.raw(`now() + interval '${ROTATION_OVERLAP_HOURS} hours'`),
      secretEnc,
      updatedAt: db.fn.now(),
    })
    .returning('*');
  return row as EndpointRow | undefined;
}

export async function disableEndpoint(db: Knex, endpointId: number, reason: string): Promise<void> {
  await db('webhook_endpoints')
    .where({ id: endpointId })
    .whereNull('disabledAt')
    .update({ disabledAt: db.fn.now(), disabledReason: reason, updatedAt: db.fn.now() });
}

// ---------------------------------------------------------------------------------------------
// Fan-out and redelivery

export interface DeliveryTarget {
  eventId: number;
  endpointId: number;
  round: number;
}

/**
 * Creates the deliveries of these events (one per subscribed, enabled endpoint of the event's
 * company and mode; existing ones are kept) and returns every pending delivery of them whose
 * endpoint is enabled: what the caller must enqueue.
 */
export async function fanOutEvents(trx: Knex.Transaction, eventIds: number[]): Promise<DeliveryTarget[]> {
  if (eventIds.length === 0) return [];
  await trx.raw(
    `insert into webhook_deliveries (event_id, endpoint_id, company_id, livemode)
     select e.id, w.id, e.company_id, e.livemode
       from events e
       join webhook_endpoints w
         on w.company_id = e.company_id and w.livemode = e.livemode
        and w.deleted_at is null and w.disabled_at is null
        and (e.type = any(w.events) or '*' = any(w.events))
      where e.id = any(?::bigint[])
     on conflict (event_id, endpoint_id) do nothing`,
    [eventIds],
  );
  const res = await trx.raw(
    `select d.event_id as "eventId", d.endpoint_id as "endpointId", d.round
       from webhook_deliveries d
       join webhook_endpoints w on w.id = d.endpoint_id
      where d.event_id = any(?::bigint[]) and d.status = 'pending'
        and w.deleted_at is null and w.disabled_at is null
      order by d.event_id, d.endpoint_id`,
    [eventIds],
  );
  return (res.rows as DeliveryTarget[]).map((r) => ({
    eventId: Number(r.eventId),
    endpointId: Number(r.endpointId),
    round: Number(r.round),
  }));
}

/**
 * Asks for the event to be sent again, now, to the tenant's enabled endpoints subscribed to its
 * type (or to one of them): each delivery starts a new round (pending again), deliveries are
 * created for endpoints that subscribed after the event, and the outbox carries it to the queue.
 * Returns the endpoint ids that will receive it.
 */
export async function requestRedelivery(
  db: Knex,
  tenant: Tenant,
  event: { id: number; type: string },
  onlyEndpointId: number | null,
  requestId: string | null,
): Promise<number[]> {
  return db.transaction(async (trx) => {
    const q = trx('webhook_endpoints')
      .where(tenantOnly(tenant))
      .whereNull('deletedAt')
      .whereNull('disabledAt')
      .whereRaw(`(? = any(events) or '*' = any(events))`, [event.type])
      .pluck('id');
    if (onlyEndpointId !== null) q.where('id', onlyEndpointId);
    const endpointIds = (await q) as number[];
    if (endpointIds.length === 0) return [];
    await trx.raw(
      `insert into webhook_deliveries (event_id, endpoint_id, company_id, livemode)
       select ?, unnest(?::bigint[]), ?, ?
       on conflict (event_id, endpoint_id) do update
         set round = webhook_deliveries.round + 1, status = 'pending', next_attempt_at = null,
             updated_at = now()`,
      [event.id, endpointIds, tenant.companyId, tenant.livemode],
    );
    await enqueueOutbox(trx, 'event.dispatch', { eventId: event.id }, requestId);
    return endpointIds;
  });
}

// ---------------------------------------------------------------------------------------------
// The delivery job's steps

/** What the delivery job needs, read in one statement. */
export interface DeliveryContext {
  deliveryId: number;
  status: DeliveryRow['status'];
  round: number;
  url: string;
  livemode: boolean;
  secretEnc: Buffer;
  previousSecretEnc: Buffer | null;
  previousSecretExpiresAt: Date | null;
  disabledAt: Date | null;
  deletedAt: Date | null;
  event: { id: number; type: string; data: Record<string, unknown>; createdAt: Date };
}

async function readDeliveryContext(
  db: Knex,
  eventId: number,
  endpointId: number,
): Promise<DeliveryContext | undefined> {
  const res = await db.raw(
    `select d.id as "deliveryId", d.status, d.round, w.url, w.livemode, w.secret_enc as "secretEnc",
            w.previous_secret_enc as "previousSecretEnc",
            w.previous_secret_expires_at as "previousSecretExpiresAt",
            w.disabled_at as "disabledAt", w.deleted_at as "deletedAt",
            e.type as "eventType", e.data as "eventData", e.created_at as "eventCreatedAt"
       from webhook_deliveries d
       join webhook_endpoints w on w.id = d.endpoint_id
       join events e on e.id = d.event_id
      where d.event_id = ? and d.endpoint_id = ?`,
    [eventId, endpointId],
  );
  const r = res.rows[0] as
    | (Omit<DeliveryContext, 'event'> & {
        eventType: string;
        eventData: Record<string, unknown>;
        eventCreatedAt: Date;
      })
    | undefined;
  if (!r) return undefined;
  const { eventType, eventData, eventCreatedAt, ...rest } = r;
  return {
    ...rest,
    deliveryId: Number(rest.deliveryId),
    event: { id: eventId, type: eventType, data: eventData, createdAt: eventCreatedAt },
  };
}

/**
 * The delivery of (event, endpoint) with its endpoint and event; the delivery row is created
 * here if the fan-out's transaction has not committed yet (the job may run first).
 */
export async function loadDeliveryContext(
  db: Knex,
  eventId: number,
  endpointId: number,
): Promise<DeliveryContext | undefined> {
  const found = await readDeliveryContext(db, eventId, endpointId);
  if (found) return found;
  await db.raw(
    `insert into webhook_deliveries (event_id, endpoint_id, company_id, livemode)
     select e.id, w.id, e.company_id, e.livemode
       from events e join webhook_endpoints w on w.id = ? and w.company_id = e.company_id and w.livemode = e.livemode
      where e.id = ?
     on conflict (event_id, endpoint_id) do nothing`,
    [endpointId, eventId],
  );
  return readDeliveryContext(db, eventId, endpointId);
}

const INTERRUPTED = 'interrupted: no outcome recorded (the worker stopped during the request)';

/**
 * Counts the attempt and writes its row before the request leaves (one statement); an earlier
 * attempt left without an outcome (its worker stopped mid-request) is marked interrupted.
 */
export async function beginAttempt(
  db: Knex,
  deliveryId: number,
  round: number,
): Promise<{ attemptId: number; attemptNumber: number }> {
  const res = await db.raw(
    `with interrupted as (
       update webhook_attempts set error = ?
        where delivery_id = ? and duration_ms is null and error is null),
     d as (
       update webhook_deliveries set attempts = attempts + 1, last_attempt_at = now(), updated_at = now()
        where id = ? returning attempts)
     insert into webhook_attempts (delivery_id, attempt_number, round)
     select ?, attempts, ? from d
     returning id as "attemptId", attempt_number as "attemptNumber"`,
    [INTERRUPTED, deliveryId, deliveryId, deliveryId, round],
  );
  const row = res.rows[0] as { attemptId: string | number; attemptNumber: number };
  return { attemptId: Number(row.attemptId), attemptNumber: row.attemptNumber };
}

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/**
 * Completes the attempt and moves the delivery (one statement): `delivered`, `failed` (no retry
 * left, or the endpoint is gone) or still `pending` with the time of the next try. The
 * delivery's state only moves while it is in this round (a newer redelivery round owns it
 * otherwise) and never away from `delivered`.
 */
export async function finishAttempt(
  db: Knex,
  ids: { attemptId: number; deliveryId: number; round: number },
  result: AttemptResult,
  outcome: { status: 'delivered' | 'failed' | 'pending'; nextAttemptAt: Date | null },
): Promise<void> {
  await db.raw(
    `with a as (
       update webhook_attempts set status_code = ?, duration_ms = ?, error = ?, response_excerpt = ?
        where id = ?)
     update webhook_deliveries
        set status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?,
            delivered_at = case when ? = 'delivered' then now() else null end, updated_at = now()
      where id = ? and round = ? and status <> 'delivered'`,
    [
      result.statusCode,
      result.durationMs,
      result.error,
      result.responseExcerpt,
      ids.attemptId,
      outcome.status,
      result.statusCode,
      result.error,
      outcome.nextAttemptAt,
      outcome.status,
      ids.deliveryId,
      ids.round,
    ],
  );
}

/** Marks a delivery failed without an attempt (its endpoint was disabled or deleted meanwhile). */
export async function abandonDelivery(
  db: Knex,
  deliveryId: number,
  round: number,
  reason: string,
): Promise<void> {
  await db('webhook_deliveries')
    .where({ id: deliveryId, round, status: 'pending' })
    .update({ status: 'failed', lastError: reason, nextAttemptAt: null, updatedAt: db.fn.now() });
}

// ---------------------------------------------------------------------------------------------
// Reads

export interface DeliveryWithAttempts extends DeliveryRow {
  eventType: string;
  attemptList: AttemptRow[];
}

export interface DeliveryFilters {
  status?: string;
  eventId?: number;
  startingAfter?: number;
  limit: number;
}

/** An endpoint's deliveries, newest first, each with its attempts in order. */
export async function listDeliveries(
  db: Knex,
  endpointId: number,
  f: DeliveryFilters,
): Promise<{ rows: DeliveryWithAttempts[]; hasMore: boolean }> {
  const q = db('webhook_deliveries as d')
    .join('events as e', 'e.id', 'd.event_id')
    .where('d.endpoint_id', endpointId)
    .orderBy('d.id', 'desc')
    .limit(f.limit + 1)
    .select('d.*', 'e.type as event_type');
  if (f.status) q.where('d.status', f.status);
  if (f.eventId !== undefined) q.where('d.event_id', f.eventId);
  if (f.startingAfter !== undefined) q.where('d.id', '<', f.startingAfter);
  const rows = (await q) as (DeliveryRow & { eventType: string })[];
  const page = rows.slice(0, f.limit);
  const attempts = page.length
    ? ((await db('webhook_attempts')
        .whereIn(
          'delivery_id',
          page.map((r) => r.id),
        )
        .orderBy(['delivery_id', 'attempt_number'])) as AttemptRow[])
    : [];
  return {
    rows: page.map((r) => ({ ...r, attemptList: attempts.filter((a) => a.deliveryId === r.id) })),
    hasMore: rows.length > f.limit,
  };
}
