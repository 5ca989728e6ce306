// What a company already has waiting in a queue, for the place of its next job there
// (jobs/fair-share.ts): its batches still processing, its webhook deliveries still pending.
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';

/**
 * For each batch, how many batches of its company and mode still processing were created before
 * it (batches_processing_idx: only batches in progress are walked).
 */
export async function batchesAhead(
  trx: Knex | Knex.Transaction,
  batchIds: number[],
): Promise<Map<number, number>> {
  if (!batchIds.length) return new Map();
  const res = await prepared(
    trx,
    'queue-places.batches-ahead',
    `select b.id,
            (select count(*) from batches o
              where o.status = 'processing' and o.id < b.id
                and o.company_id = b.company_id and o.livemode = b.livemode) as ahead
       from batches b where b.id = any(?::bigint[])`,
    [batchIds],
  );
  return new Map((res.rows as { id: string; ahead: string }[]).map((r) => [Number(r.id), Number(r.ahead)]));
}

/**
 * For each delivery (event, endpoint), how many deliveries of its company and mode still pending
 * were created before it (webhook_deliveries_company_pending_idx), with the company.
 */
export async function deliveriesAhead(
  trx: Knex | Knex.Transaction,
  targets: { eventId: number; endpointId: number }[],
): Promise<Map<string, { companyId: number; ahead: number }>> {
  if (!targets.length) return new Map();
  const res = await prepared(
    trx,
    'queue-places.deliveries-ahead',
    `with t as (
       select d.id, d.event_id, d.endpoint_id, d.company_id, d.livemode,
              row_number() over (partition by d.company_id, d.livemode order by d.id) - 1 as rank,
              min(d.id) over (partition by d.company_id, d.livemode) as first_id
         from webhook_deliveries d
         join unnest(?::bigint[], ?::bigint[]) as v(event_id, endpoint_id)
           on d.event_id = v.event_id and d.endpoint_id = v.endpoint_id),
     before as (
       select p.company_id, p.livemode,
              (select count(*) from webhook_deliveries o
                where o.status = 'pending' and o.company_id = p.company_id
                  and o.livemode = p.livemode and o.id < p.first_id) as n
         from (select distinct company_id, livemode, first_id from t) p)
     select t.event_id, t.endpoint_id, t.company_id, t.rank + b.n as ahead
       from t join before b on b.company_id = t.company_id and b.livemode = t.livemode`,
    [targets.map((t) => t.eventId), targets.map((t) => t.endpointId)],
  );
  return new Map(
    (res.rows as { event_id: string; endpoint_id: string; company_id: string; ahead: string }[]).map((r) => [
      `${Number(r.event_id)}:${Number(r.endpoint_id)}`,
      { companyId: Number(r.company_id), ahead: Number(r.ahead) },
    ]),
  );
}
