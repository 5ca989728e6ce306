// The SQL of a group of single invoice creates (the group commit is operations/invoice-committer.ts):
// statement 1 reads everything the group needs, statement 3 writes what goes with the new invoices
// (statement 2, the invoices themselves, is insertNumbered in invoice-bulk.ts).
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';
import type { OtherTaxInput } from '../../domain/other-taxes.ts';
import type { InvoiceRequest } from '../../domain/invoice-request.ts';
import type { Tenant } from './clients.ts';
import type { IdempotencyInput } from './invoices.ts';
import { CREATED_ROWS_SQL, createdRowsBindings, type CreatedItem } from './created-rows.ts';
import { OUTBOX_NOTIFY_SQL } from './events.ts';

export interface ReadResult {
  locks: { k: string; ok: boolean }[];
  done: { key: string; route: string; hash: string; status: number | null; body: Record<string, unknown> }[];
  /** What preparing needs of a receptor: its identity, and an export's foreign data. */
  clients: {
    id: number;
    uuid: string;
    idType: string;
    foreignAddress: string | null;
    archivedAt: string | null;
  }[];
  services: {
    id: number;
    uuid: string;
    cabys: string;
    description: string;
    unit: string;
    taxCode: string;
    ivaRateCode: string;
    price: string;
    commercialCode: string | null;
    otherTaxes: OtherTaxInput[] | null;
    archivedAt: string | null;
  }[];
  taken: { id: number; externalId: string }[];
  /** The rejected invoices the requests replace (any status: checked after the read). */
  replaced: {
    id: number;
    status: string;
    docType: string;
    replacedById: number | null;
    clave: string | null;
    issuedAt: string | null;
  }[];
}

const NO_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Statement 1 (operations/invoice-committer.ts lists the group's statements).
 *
 * LOOKUP_NOTE: idempotency keys and external_ids are looked up with a LATERAL subquery per key
 * (its LIMIT keeps the planner from turning it into a join), so each is one probe of the unique
 * index whatever the table's statistics say. Written as `key = any(...)`, a plan made while the
 * statistics were stale (a busy new company: autovacuum analyzes about once a minute) scanned all
 * of the company's keys and compared each with every key of the group: 1.6 s for a 1,000-item
 * batch chunk against 8,000 keys.
 */
export async function readGroup(
  trx: Knex.Transaction,
  tenant: Tenant,
  members: { idempotency: IdempotencyInput | null; request: InvoiceRequest }[],
): Promise<ReadResult> {
  const uniq = <T>(xs: T[]) => [...new Set(xs)];
  const keys = uniq(members.flatMap((m) => (m.idempotency ? [m.idempotency.key] : [])));
  const reqs = members.map((m) => m.request);
  const clientIds = uniq(reqs.flatMap((r) => (r.clientRef && 'id' in r.clientRef ? [r.clientRef.id] : [])));
  const clientUuids = uniq(
    reqs.flatMap((r) => (r.clientRef && 'uuid' in r.clientRef ? [r.clientRef.uuid] : [])),
  );
  const serviceIds = uniq(
    reqs.flatMap((r) => r.lines.flatMap((l) => ('id' in l.serviceRef ? [l.serviceRef.id] : []))),
  );
  const serviceUuids = uniq(
    reqs.flatMap((r) => r.lines.flatMap((l) => ('uuid' in l.serviceRef ? [l.serviceRef.uuid] : []))),
  );
  const exts = uniq(reqs.flatMap((r) => (r.externalId !== null ? [r.externalId] : [])));
  const replaces = uniq(reqs.flatMap((r) => (r.replaces !== null ? [r.replaces] : [])));
  const t = [tenant.companyId, tenant.livemode];
  const res = await prepared(
    trx,
    'invoice-group.read',
    `with l as (
       select k, pg_try_advisory_xact_lock(?::int, hashtext(? || k)) as ok
       from (select unnest(?::text[]) as k order by 1) s),
     d as (
       select i.key, i.route, encode(i.request_hash, 'hex') as hash, i.response_status as status,
              i.response_body as body
       from unnest(?::text[]) as u(k) cross join lateral (
         select * from idempotency_keys
         where company_id = ? and livemode = ? and key = u.k
           and created_at > now() - interval '24 hours'
         limit 1) i),
     c as (
       select id, uuid::text as uuid, id_type as "idType", foreign_address as "foreignAddress",
              archived_at as "archivedAt" from clients
       where company_id = ? and livemode = ? and (id = any(?::bigint[]) or uuid = any(?::uuid[]))),
     s as (
       select id, uuid::text as uuid, cabys, description, unit, tax_code as "taxCode",
              iva_rate_code as "ivaRateCode", price::text as price, commercial_code as "commercialCode",
              other_taxes as "otherTaxes", archived_at as "archivedAt"
       from services
       where company_id = ? and livemode = ? and (id = any(?::bigint[]) or uuid = any(?::uuid[]))),
     x as (
       select i.id, i.external_id as "externalId"
       from unnest(?::text[]) as u(ext) cross join lateral (
         select id, external_id from invoices
         where company_id = ? and livemode = ? and external_id = u.ext
         limit 1) i),
     rp as (
       select id, status, doc_type as "docType", replaced_by_id as "replacedById", clave, issued_at as "issuedAt" from invoices
       where company_id = ? and livemode = ? and id = any(?::bigint[]))
     select
       (select coalesce(json_agg(l), '[]') from l) as locks,
       (select coalesce(json_agg(d), '[]') from d) as done,
       (select coalesce(json_agg(c), '[]') from c) as clients,
       (select coalesce(json_agg(s), '[]') from s) as services,
       (select coalesce(json_agg(x), '[]') from x) as taken,
       (select coalesce(json_agg(rp), '[]') from rp) as replaced`,
    [
      tenant.companyId % 2_147_483_647,
      `${tenant.livemode ? 'live' : 'test'}:`,
      keys,
      keys,
      ...t,
      ...t,
      clientIds,
      clientUuids.length ? clientUuids : [NO_UUID],
      ...t,
      serviceIds,
      serviceUuids.length ? serviceUuids : [NO_UUID],
      exts,
      ...t,
      ...t,
      replaces,
    ],
  );
  return res.rows[0] as ReadResult;
}

/** What statement 3 wrote: how many outbox rows, idempotency records and replaced invoices. */
export interface GroupWrites {
  keys: number;
  replaced: number;
}

/**
 * Statement 3 (see operations/invoice-committer.ts): the new invoices' events, outbox rows and
 * idempotency records (CREATED_ROWS_SQL), the replaced invoices' `replaced_by_id` (guarded: still
 * rejected and not replaced) and the outbox notification.
 */
export async function writeGroupCreated(
  trx: Knex.Transaction,
  tenant: Tenant,
  items: CreatedItem[],
  requestId: string | null,
  flowIds: number[],
  replacements: { oldId: number; newId: number }[],
): Promise<GroupWrites> {
  const res = await prepared(
    trx,
    'invoice-group.write-created',
    `${CREATED_ROWS_SQL},
     rb as (
       update invoices set replaced_by_id = v.new_id, updated_at = now()
       from unnest(?::bigint[], ?::bigint[]) as v(old_id, new_id)
       where invoices.id = v.old_id and invoices.company_id = ? and invoices.livemode = ?
         and invoices.status = 'rechazada' and invoices.replaced_by_id is null
       returning 1)
     select (select count(*) from o)::int as events, (select count(*) from f)::int as flows,
            (select count(*) from k)::int as keys, (select count(*) from rb)::int as replaced,
            ${OUTBOX_NOTIFY_SQL} as notified`,
    [
      ...createdRowsBindings(items, tenant, requestId, flowIds),
      replacements.map((r) => r.oldId),
      replacements.map((r) => r.newId),
      tenant.companyId,
      tenant.livemode,
    ],
    items.length,
  );
  return { keys: Number(res.rows[0].keys), replaced: Number(res.rows[0].replaced) };
}
