// What every newly recorded invoice brings, written in the same statement that records it (the
// single creates' group commit, operations/invoice-committer.ts, and a batch's chunk, invoice-bulk.ts): its
// `invoice.created` event, one outbox row dispatching all of the statement's events (the SQL of
// events.ts, which writes every event) and one starting the flows of the invoices ready to go,
// and the idempotency record of each keyed request
// (a key's earlier record is taken over only once it is more than 24 hours old; otherwise fewer
// records than keys come back, and the caller refuses the whole statement).
import type { Knex } from 'knex';
import type { Tenant } from './clients.ts';
import type { IdempotencyInput } from './invoices.ts';
import type { EventKind } from '../../domain/webhook-events.ts';
import { eventCtes } from './events.ts';

/** One invoice of the statement: its public body (event data and idempotent response). */
export interface CreatedItem {
  body: unknown;
  key?: string;
  route?: string;
  hash?: string;
}

export function createdItem(body: unknown, idempotency: IdempotencyInput | null): CreatedItem {
  return idempotency
    ? { body, key: idempotency.key, route: idempotency.route, hash: idempotency.hash.toString('hex') }
    : { body };
}

/** The kind of the event each new invoice brings. */
const CREATED: EventKind = 'invoice.created';

/**
 * The statement's head: `r` (the items), `e` (events) and `o` (their dispatch row, events.ts),
 * `f` (the flows' outbox row) and `k` (idempotency records); the caller goes on with `,` and its
 * own CTEs, then its final select (with OUTBOX_NOTIFY_SQL). Each body is sent once: it is both the
 * event's data and the idempotency record's response.
 */
export const CREATED_ROWS_SQL = `with r as (
       select * from jsonb_to_recordset(?::jsonb) as r(body jsonb, key text, route text, hash text)),
     ${eventCtes(`(select ?::bigint as company_id, ?::boolean as livemode, ?::text as type, body as data,
                          ?::text as request_id from r) as created`)},
     f as (
       insert into outbox (kind, payload, request_id)
       select 'invoice.flow', jsonb_build_object('invoiceIds', to_jsonb(a)), ?
         from (select ?::bigint[] as a) v where cardinality(a) > 0
       returning 1),
     k as (
       insert into idempotency_keys
         (company_id, livemode, key, route, request_hash, response_status, response_body)
       select ?, ?, key, route, decode(hash, 'hex'), 201, body from r where key is not null
       on conflict (company_id, livemode, key) do update
         set route = excluded.route, request_hash = excluded.request_hash,
             response_status = excluded.response_status, response_body = excluded.response_body,
             created_at = excluded.created_at
         where idempotency_keys.created_at <= now() - interval '24 hours'
       returning 1)`;

/** CREATED_ROWS_SQL's bindings, in order; `flowIds`: the invoices whose flows start now. */
export function createdRowsBindings(
  items: readonly CreatedItem[],
  tenant: Tenant,
  requestId: string | null,
  flowIds: readonly number[],
): Knex.RawBinding[] {
  return [
    JSON.stringify(items),
    tenant.companyId,
    tenant.livemode,
    CREATED,
    requestId,
    requestId,
    requestId,
    [...flowIds],
    tenant.companyId,
    tenant.livemode,
  ];
}
