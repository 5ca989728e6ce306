// Webhook endpoints, deliveries and attempts. Endpoints belong to (company, mode) and are
// soft-deleted (their delivery history stays). A delivery is one (event, endpoint) pair, created
// by the fan-out or, if the job gets there first, by the job itself; `round` counts redelivery
// requests and is part of the job id, so each request sends once more. Every POST is an attempt
// row, written with its outcome once the request has ended (webhooks are at least once: a POST
// cut off by a stopping worker leaves the delivery pending, and it is sent again).
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';
import { tenantOnly, type Tenant } from './clients.ts';
import { dispatchEvents } from './events.ts';

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
 * endpoint is enabled: what the caller must enqueue. One statement: the rows it inserts come
 * back from the insert, those that existed from the select (which cannot see the insert's).
 *
 * The events are read by their ids first (`ev`, materialized) and each one's deliveries by its
 * id (a subquery the planner keeps apart: OFFSET 0), so the statement probes the primary key and
 * the (event, endpoint) key whatever the statistics say. Left to the planner, a plan made with
 * stale or no statistics walked all of the company's events (by type) or all of an endpoint's
 * deliveries once per fan-out: hundreds of rows read for each invoice in a busy company.
 */
export async function fanOutEvents(trx: Knex.Transaction, eventIds: number[]): Promise<DeliveryTarget[]> {
  if (eventIds.length === 0) return [];
  const res = await prepared(
    trx,
    'webhooks.fan-out',
    `with ev as materialized (
       select id, company_id, livemode, type from events where id = any(?::bigint[])),
     created as (
       insert into webhook_deliveries (event_id, endpoint_id, company_id, livemode)
       select e.id, w.id, e.company_id, e.livemode
         from ev e
         join webhook_endpoints w
           on w.company_id = e.company_id and w.livemode = e.livemode
          and w.deleted_at is null and w.disabled_at is null
          and (e.type = any(w.events) or '*' = any(w.events))
       on conflict (event_id, endpoint_id) do nothing
       returning event_id, endpoint_id, round)
     select event_id as "eventId", endpoint_id as "endpointId", round from created
     union all
     select d.event_id, d.endpoint_id, d.round
       from ev
       cross join lateral (
         select event_id, endpoint_id, round, status from webhook_deliveries
          where event_id = ev.id offset 0) d
       join webhook_endpoints w on w.id = d.endpoint_id
      where d.status = 'pending' and w.deleted_at is null and w.disabled_at is null
     order by 1, 2`,
    [eventIds],
  );
  return (res.rows as DeliveryTarget[]).map((r) => ({
    eventId: Number(r.eventId),
    endpointId: Number(r.endpointId),
    round: Number(r.round),
  }));
}

/**
 * The stored trace contexts of the invoices these events are about (events whose data is an
 * invoice, `inv_…`), by event id: their deliveries are spans of the invoice's trace. Read only
 * when the process traces.
 */
export async function eventTraceContexts(
  trx: Knex.Transaction,
  eventIds: number[],
): Promise<Map<number, string>> {
  if (eventIds.length === 0) return new Map();
  const res = await prepared(
    trx,
    'webhooks.event-traces',
    `select e.id, i.trace_context
       from events e
       join invoices i on i.id = substr(e.data->>'id', 5)::bigint and i.company_id = e.company_id
      where e.id = any(?::bigint[]) and e.data->>'id' ~ '^inv_[0-9]+$' and i.trace_context is not null`,
    [eventIds],
  );
  return new Map(
    (res.rows as { id: string; trace_context: string }[]).map((r) => [Number(r.id), r.trace_context]),
  );
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
    await dispatchEvents(trx, [event.id], requestId);
    return endpointIds;
  });
}

// ---------------------------------------------------------------------------------------------
// The delivery job's steps, for many jobs at once: the delivery jobs of a worker process share
// one transaction for their reads and the outcomes they record (jobs/webhooks/store.ts).

/** One (event, endpoint) pair: a delivery. */
export interface DeliveryKey {
  eventId: number;
  endpointId: number;
}

export const deliveryKey = (k: DeliveryKey): string => `${k.eventId}-${k.endpointId}`;

/** The endpoint as a delivery needs it: where, how to sign, whether it still receives. */
export interface DeliveryEndpoint {
  id: number;
  url: string;
  livemode: boolean;
  secretEnc: Buffer;
  previousSecretEnc: Buffer | null;
  previousSecretExpiresAt: Date | null;
  disabledAt: Date | null;
  deletedAt: Date | null;
}

export interface DeliveryEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
  /** The document the event is about, and its place among that document's events (else null). */
  document: string | null;
  sequence: number | null;
  createdAt: Date;
}

/** Where a delivery stands among the deliveries of its document's events to its endpoint. */
export interface DeliveryOrder {
  /**
   * An earlier event of the document still owed to the endpoint (its delivery pending, or not
   * fanned out yet while the endpoint subscribes to it): this delivery must wait. Null: its turn.
   */
  blockedBy: number | null;
  /** The next later event of the document whose delivery to the endpoint is pending (to wake). */
  next: { eventId: number; round: number } | null;
}

/** What the delivery job needs. */
export interface DeliveryContext {
  key: DeliveryKey;
  deliveryId: number;
  status: DeliveryRow['status'];
  round: number;
  /** Attempts recorded so far (all rounds): the next POST is attempt `attempts + 1`. */
  attempts: number;
  endpoint: DeliveryEndpoint;
  event: DeliveryEvent;
  /** Its place among the deliveries of its document to the endpoint (none: no document). */
  order: DeliveryOrder;
}

interface StateRow {
  deliveryId: string | number;
  eventId: string | number;
  endpointId: string | number;
  status: DeliveryRow['status'];
  round: number;
  attempts: number;
}

/** A delivery's state with its event and endpoint (null columns: the event or endpoint is gone). */
type ContextRow = StateRow &
  Partial<Omit<DeliveryEvent, 'id'> & Omit<DeliveryEndpoint, 'id'>> & {
    evId: string | number | null;
    epId: string | number | null;
  };

async function readDeliveryStates(trx: Knex.Transaction, keys: DeliveryKey[]): Promise<ContextRow[]> {
  const res = await prepared(
    trx,
    'webhooks.delivery-states',
    `select d.id as "deliveryId", d.event_id as "eventId", d.endpoint_id as "endpointId", d.status,
            d.round, d.attempts,
            e.id as "evId", e.type, e.data, e.document, e.sequence, e.created_at as "createdAt",
            w.id as "epId", w.url, w.livemode, w.secret_enc as "secretEnc",
            w.previous_secret_enc as "previousSecretEnc",
            w.previous_secret_expires_at as "previousSecretExpiresAt", w.disabled_at as "disabledAt",
            w.deleted_at as "deletedAt"
       from webhook_deliveries d
       join unnest(?::bigint[], ?::bigint[]) as k(event_id, endpoint_id)
         on d.event_id = k.event_id and d.endpoint_id = k.endpoint_id
       left join events e on e.id = d.event_id
       left join webhook_endpoints w on w.id = d.endpoint_id`,
    [keys.map((k) => k.eventId), keys.map((k) => k.endpointId)],
  );
  return res.rows as ContextRow[];
}

/** The event and endpoint a context row carries, or null when either is gone. */
function partsOf(r: ContextRow): { event: DeliveryEvent; endpoint: DeliveryEndpoint } | null {
  if (r.evId === null || r.epId === null) return null;
  return {
    event: {
      id: Number(r.evId),
      type: r.type!,
      data: r.data!,
      document: r.document ?? null,
      sequence: r.sequence ?? null,
      createdAt: r.createdAt!,
    },
    endpoint: {
      id: Number(r.epId),
      url: r.url!,
      livemode: r.livemode!,
      secretEnc: r.secretEnc!,
      previousSecretEnc: r.previousSecretEnc ?? null,
      previousSecretExpiresAt: r.previousSecretExpiresAt ?? null,
      disabledAt: r.disabledAt ?? null,
      deletedAt: r.deletedAt ?? null,
    },
  };
}

/**
 * The deliveries of these pairs with their events and endpoints (one statement in the caller's
 * transaction, and one for their order among their documents' deliveries). A delivery the fan-out has
 * not committed yet (its job may run first) is created here; a pair whose event or endpoint no
 * longer exists is absent from the answer.
 */
export async function loadDeliveryContexts(
  trx: Knex.Transaction,
  keys: DeliveryKey[],
): Promise<Map<string, DeliveryContext>> {
  const out = new Map<string, DeliveryContext>();
  if (keys.length === 0) return out;
  const unique = [...new Map(keys.map((k) => [deliveryKey(k), k])).values()];
  const states = await readDeliveryStates(trx, unique);
  if (states.length < unique.length) {
    const found = new Set(
      states.map((s) => deliveryKey({ eventId: Number(s.eventId), endpointId: Number(s.endpointId) })),
    );
    const missing = unique.filter((k) => !found.has(deliveryKey(k)));
    // Waits, if the fan-out's transaction holds the same pair, for it to end.
    await prepared(
      trx,
      'webhooks.delivery-contexts-insert',
      `insert into webhook_deliveries (event_id, endpoint_id, company_id, livemode)
       select e.id, w.id, e.company_id, e.livemode
         from unnest(?::bigint[], ?::bigint[]) as k(event_id, endpoint_id)
         join events e on e.id = k.event_id
         join webhook_endpoints w on w.id = k.endpoint_id and w.company_id = e.company_id and w.livemode = e.livemode
        order by e.id, w.id
       on conflict (event_id, endpoint_id) do nothing`,
      [missing.map((k) => k.eventId), missing.map((k) => k.endpointId)],
    );
    states.push(...(await readDeliveryStates(trx, missing)));
  }
  const whole = states.flatMap((s) => {
    const parts = partsOf(s);
    return parts ? [{ s, ...parts }] : [];
  });
  if (whole.length === 0) return out;
  const orders = await deliveryOrders(
    trx,
    whole.filter((w) => w.event.document).map((w) => ({ eventId: w.event.id, endpointId: w.endpoint.id })),
  );
  for (const { s, event, endpoint } of whole) {
    const key = { eventId: event.id, endpointId: endpoint.id };
    out.set(deliveryKey(key), {
      key,
      deliveryId: Number(s.deliveryId),
      status: s.status,
      round: s.round,
      attempts: s.attempts,
      endpoint,
      event,
      order: orders.get(deliveryKey(key)) ?? { blockedBy: null, next: null },
    });
  }
  return out;
}

/**
 * The order of deliveries of events about a document (one statement for the lot; each pair's event
 * and endpoint read by their keys, the document's other events by the (document, sequence) index
 * and their deliveries by the (event, endpoint) key, whatever the statistics say — as in
 * fanOutEvents): for each (event, endpoint), the first
 * earlier event of the document still owed to that endpoint — its delivery pending, or, with no
 * delivery yet, still in the outbox (not fanned out) while the endpoint subscribes to its type —
 * and the next later event of the document whose delivery to the endpoint is pending. An earlier
 * event fanned out before the endpoint subscribed to it has no delivery and holds nothing up.
 */
async function deliveryOrders(
  trx: Knex.Transaction,
  keys: DeliveryKey[],
): Promise<Map<string, DeliveryOrder>> {
  const out = new Map<string, DeliveryOrder>();
  if (keys.length === 0) return out;
  const res = await prepared(
    trx,
    'webhooks.delivery-orders',
    `with k as materialized (
       select k.event_id, k.endpoint_id, e.document, e.sequence, w.events as subscribed
         from unnest(?::bigint[], ?::bigint[]) as k(event_id, endpoint_id)
         cross join lateral (select document, sequence from events where id = k.event_id offset 0) e
         cross join lateral (select events from webhook_endpoints where id = k.endpoint_id offset 0) w
        where e.document is not null)
     select k.event_id as "eventId", k.endpoint_id as "endpointId",
            (select p.id
               from events p
              where p.document = k.document and p.sequence < k.sequence
                and coalesce(
                      (select d.status = 'pending' from webhook_deliveries d
                        where d.event_id = p.id and d.endpoint_id = k.endpoint_id),
                      (p.type = any(k.subscribed) or '*' = any(k.subscribed))
                        and exists (select 1 from outbox o
                                     where o.kind = 'event.dispatch'
                                       and (o.payload->'eventId' = to_jsonb(p.id)
                                            or o.payload->'eventIds' @> to_jsonb(p.id))))
              order by p.sequence
              limit 1) as "blockedBy",
            n.event_id as "nextEventId", n.round as "nextRound"
       from k
       left join lateral (
         select x.id as event_id, d.round
           from events x
           cross join lateral (
             select round, status from webhook_deliveries
              where event_id = x.id and endpoint_id = k.endpoint_id offset 0) d
          where x.document = k.document and x.sequence > k.sequence and d.status = 'pending'
          order by x.sequence
          limit 1) n on true`,
    [keys.map((k) => k.eventId), keys.map((k) => k.endpointId)],
  );
  for (const r of res.rows as Record<string, string | number | null>[]) {
    out.set(deliveryKey({ eventId: Number(r.eventId), endpointId: Number(r.endpointId) }), {
      blockedBy: r.blockedBy === null ? null : Number(r.blockedBy),
      next: r.nextEventId === null ? null : { eventId: Number(r.nextEventId), round: Number(r.nextRound) },
    });
  }
  return out;
}

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/** One finished POST: its attempt row and where it leaves the delivery. */
export interface AttemptOutcome {
  deliveryId: number;
  round: number;
  startedAt: Date;
  result: AttemptResult;
  status: 'delivered' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
}

/**
 * Records finished attempts, at most one per delivery (one statement): each counts on its
 * delivery and gets its attempt row (number, round, start, status, duration, error, excerpt);
 * the delivery moves to `delivered`, `failed` or stays `pending` with the time of the next try
 * — only while it is in the attempt's round (a newer redelivery round owns it otherwise) and
 * never away from `delivered`. Written after the POST: a worker that stops mid-request leaves
 * no row, the delivery stays pending and is sent again (at least once).
 */
export async function recordAttempts(trx: Knex, outcomes: AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  if (new Set(outcomes.map((o) => o.deliveryId)).size !== outcomes.length)
    throw new Error('recordAttempts: one outcome per delivery');
  await prepared(
    trx,
    'webhooks.record-attempts',
    `with x as (
       select * from unnest(?::bigint[], ?::int[], ?::timestamptz[], ?::int[], ?::int[], ?::text[], ?::text[],
                            ?::text[], ?::timestamptz[])
         as x(delivery_id, round, started_at, status_code, duration_ms, error, excerpt, outcome, next_attempt_at)),
     d as (
       update webhook_deliveries d
          set attempts = d.attempts + 1,
              last_attempt_at = x.started_at,
              status = case when d.round = x.round and d.status <> 'delivered' then x.outcome else d.status end,
              last_status_code = case when d.round = x.round and d.status <> 'delivered'
                                      then x.status_code else d.last_status_code end,
              last_error = case when d.round = x.round and d.status <> 'delivered' then x.error else d.last_error end,
              next_attempt_at = case when d.round = x.round and d.status <> 'delivered'
                                     then x.next_attempt_at else d.next_attempt_at end,
              delivered_at = case when d.round = x.round and d.status <> 'delivered'
                                  then case when x.outcome = 'delivered' then now() end
                                  else d.delivered_at end,
              updated_at = now()
         from x
        where d.id = x.delivery_id
       returning d.id, d.attempts)
     insert into webhook_attempts
       (delivery_id, attempt_number, round, started_at, status_code, duration_ms, error, response_excerpt)
     select x.delivery_id, d.attempts, x.round, x.started_at, x.status_code, x.duration_ms, x.error, x.excerpt
       from x join d on d.id = x.delivery_id`,
    [
      outcomes.map((o) => o.deliveryId),
      outcomes.map((o) => o.round),
      outcomes.map((o) => o.startedAt),
      outcomes.map((o) => o.result.statusCode),
      outcomes.map((o) => o.result.durationMs),
      outcomes.map((o) => o.result.error),
      outcomes.map((o) => o.result.responseExcerpt),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.nextAttemptAt),
    ] as unknown as readonly Knex.RawBinding[],
  );
}

/**
 * The event of a test sent to one endpoint (type webhook_endpoint.test): recorded like any event,
 * but with no dispatch row, so it goes to no other endpoint.
 */
export async function recordTestEvent(
  db: Knex,
  tenant: Tenant,
  data: Record<string, unknown>,
  requestId: string | null,
): Promise<DeliveryEvent> {
  const [row] = await db('events')
    .insert({ ...tenantOnly(tenant), type: 'webhook_endpoint.test', data, requestId })
    .returning(['id', 'type', 'data', 'document', 'sequence', 'createdAt']);
  return { ...(row as DeliveryEvent), id: Number((row as DeliveryEvent).id) };
}

/** A delivery id taken before its row is written (the test delivery's header names it). */
export async function reserveDeliveryId(db: Knex): Promise<number> {
  const res = await db.raw(`select nextval(pg_get_serial_sequence('webhook_deliveries', 'id')) as id`);
  return Number((res.rows[0] as { id: string }).id);
}

/**
 * A test delivery written once its one POST has ended: the delivery (under its reserved id) and
 * its attempt, in one transaction, so it is never seen pending (no reconciler sends it again).
 */
export async function recordTestDelivery(
  db: Knex,
  tenant: Tenant,
  d: { deliveryId: number; eventId: number; endpointId: number },
  attempt: Omit<AttemptOutcome, 'deliveryId' | 'round' | 'nextAttemptAt'>,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhook_deliveries').insert({
      id: d.deliveryId,
      eventId: d.eventId,
      endpointId: d.endpointId,
      ...tenantOnly(tenant),
    });
    await recordAttempts(trx, [{ ...attempt, deliveryId: d.deliveryId, round: 0, nextAttemptAt: null }]);
  });
}

/** Marks deliveries failed without an attempt (their endpoint was disabled or deleted meanwhile). */
export async function abandonDeliveries(
  trx: Knex.Transaction,
  list: { deliveryId: number; round: number; reason: string }[],
): Promise<void> {
  if (list.length === 0) return;
  await trx.raw(
    `update webhook_deliveries d
        set status = 'failed', last_error = x.reason, next_attempt_at = null, updated_at = now()
       from unnest(?::bigint[], ?::int[], ?::text[]) as x(delivery_id, round, reason)
      where d.id = x.delivery_id and d.round = x.round and d.status = 'pending'`,
    [list.map((a) => a.deliveryId), list.map((a) => a.round), list.map((a) => a.reason)],
  );
}

/** Disables endpoints (a 410 Gone), each with its reason; one already disabled keeps its own. */
export async function disableEndpoints(
  trx: Knex.Transaction,
  list: { endpointId: number; reason: string }[],
): Promise<void> {
  if (list.length === 0) return;
  await trx.raw(
    `update webhook_endpoints w
        set disabled_at = now(), disabled_reason = x.reason, updated_at = now()
       from (select distinct on (endpoint_id) endpoint_id, reason
               from unnest(?::bigint[], ?::text[]) as u(endpoint_id, reason)
              order by endpoint_id) x
      where w.id = x.endpoint_id and w.disabled_at is null`,
    [list.map((d) => d.endpointId), list.map((d) => d.reason)],
  );
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

export interface PendingDelivery {
  id: number;
  eventId: number;
  endpointId: number;
  round: number;
  /** Attempts recorded in its round. */
  made: number;
}

/**
 * Deliveries after `afterId` still `pending` on a live endpoint, `staleMs` past their next attempt
 * (or, never attempted, their creation; null: every one), with the attempts of their round, for
 * the reconciler.
 */
export async function pendingDeliveriesPage(
  db: Knex,
  afterId: number,
  limit: number,
  staleMs: number | null,
): Promise<PendingDelivery[]> {
  const res = await db.raw(
    `select d.id, d.event_id as "eventId", d.endpoint_id as "endpointId", d.round,
            (select count(*) from webhook_attempts a where a.delivery_id = d.id and a.round = d.round)::int as made
       from webhook_deliveries d
       join webhook_endpoints w on w.id = d.endpoint_id
      where d.status = 'pending' and w.deleted_at is null and w.disabled_at is null and d.id > ?
        and (?::float8 is null
             or coalesce(d.next_attempt_at, d.last_attempt_at, d.created_at) < now() - make_interval(secs => ?::float8))
      order by d.id
      limit ?`,
    [afterId, staleMs === null ? null : staleMs / 1000, staleMs === null ? 0 : staleMs / 1000, limit],
  );
  return (res.rows as Record<string, unknown>[]).map((r) => ({
    id: Number(r.id),
    eventId: Number(r.eventId),
    endpointId: Number(r.endpointId),
    round: Number(r.round),
    made: Number(r.made),
  }));
}
