// Events: what integrators can hear about. Each is written in the transaction that makes the
// change, with one `event.dispatch` outbox row for all the events of the statement and the outbox
// notification; the relay turns the row into webhook deliveries after commit. Every event is
// written by the SQL below: recordEvents runs it on its own, and the statements that record new
// invoices (created-rows.ts) hold it as two of their common table expressions.
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';
import type { EventKind } from '../../domain/webhook-events.ts';
import type { OutboxKind, OutboxPayloads } from './outbox.ts';

/** An event to record: its kind, its public data, and the request that caused it. */
export interface NewEvent {
  companyId: number;
  livemode: boolean;
  type: EventKind;
  data: unknown;
  requestId?: string | null;
}

/**
 * The outbox row dispatching the events of relation `e` (column `id`), if it holds any, tagged with
 * the request id bound to its `?`: `{ eventId }` for one event, `{ eventIds }` for several.
 */
const DISPATCH_SQL = `insert into outbox (kind, payload, request_id)
       select 'event.dispatch',
              case when count(*) = 1 then jsonb_build_object('eventId', min(id))
                   else jsonb_build_object('eventIds', jsonb_agg(id order by id)) end,
              ?::text
         from e
       having count(*) > 0
       returning 1`;

/** Wakes the outbox relay at commit (once per transaction, however often it is sent). */
export const OUTBOX_NOTIFY_SQL = `pg_notify('outbox', '')`;

/**
 * Common table expressions `e` (one event per row of `source`, a relation with the columns
 * company_id, livemode, type, data (jsonb) and request_id) and `o` (their dispatch row). The
 * dispatch row's request id is bound after `source`'s bindings; the statement selects
 * OUTBOX_NOTIFY_SQL.
 */
export function eventCtes(source: string): string {
  return `e as (
       insert into events (company_id, livemode, type, data, request_id)
       select company_id, livemode, type, data, request_id from ${source}
       returning id),
     o as (
       ${DISPATCH_SQL})`;
}

/**
 * Records events, in order, with one dispatch row for them all (tagged with their request id when
 * they share one) and the notification: one statement whatever their number. Returns their ids.
 */
export async function recordEvents(trx: Knex.Transaction, events: readonly NewEvent[]): Promise<number[]> {
  if (!events.length) return [];
  const requestIds = new Set(events.map((e) => e.requestId ?? null));
  const rows = events.map((e) => ({
    company_id: e.companyId,
    livemode: e.livemode,
    type: e.type,
    data: e.data,
    request_id: e.requestId ?? null,
  }));
  const source = `jsonb_to_recordset(?::jsonb)
         as x(company_id bigint, livemode boolean, type text, data jsonb, request_id text)`;
  const res = await prepared(
    trx,
    'events.record',
    `with ${eventCtes(source)}
     select (select json_agg(id order by id) from e) as ids, ${OUTBOX_NOTIFY_SQL} as notified`,
    [JSON.stringify(rows), requestIds.size === 1 ? ([...requestIds][0] ?? null) : null],
    rows.length,
  );
  return ((res.rows[0] as { ids: (number | string)[] }).ids ?? []).map(Number);
}

/** Events recorded earlier, dispatched again (a redelivery): their dispatch row and the notification. */
export async function dispatchEvents(
  trx: Knex.Transaction,
  eventIds: readonly number[],
  requestId: string | null,
): Promise<void> {
  if (!eventIds.length) return;
  await prepared(
    trx,
    'events.dispatch',
    `with e as (select unnest(?::bigint[]) as id), o as (${DISPATCH_SQL})
     select ${OUTBOX_NOTIFY_SQL} as notified`,
    [[...eventIds], requestId],
  );
}

/** Work for Redis, written in the caller's transaction; the outbox relay enqueues it after commit. */
export async function enqueueOutbox<K extends OutboxKind>(
  trx: Knex.Transaction,
  kind: K,
  payload: OutboxPayloads[K],
  requestId?: string | null,
): Promise<void> {
  await trx('outbox').insert({ kind, payload: JSON.stringify(payload), requestId: requestId ?? null });
  // Delivered at commit (and once per transaction): wakes the relay without waiting for its poll.
  await trx.raw(`select ${OUTBOX_NOTIFY_SQL}`);
}
