// The services catalogue of a company: creation, reads by id or UUID, cursor-paginated list.
import type { Knex } from 'knex';
import type { ResourceRef } from '../../domain/ids.ts';
import { Service } from '../models/index.ts';
import type { OtherTaxInput } from '../../domain/other-taxes.ts';
import { tenantOnly, type Tenant } from './clients.ts';

export interface ServiceInput {
  cabys: string;
  description: string;
  unit: string;
  taxCode: string;
  ivaRateCode: string;
  price: string;
  commercialCode?: string | null;
  otherTaxes?: OtherTaxInput[] | null;
}

export async function createService(db: Knex, tenant: Tenant, input: ServiceInput): Promise<Service> {
  // A JSON array is sent as text: the driver would otherwise write it as a Postgres array.
  const { otherTaxes, ...rest } = input;
  const row = {
    ...tenantOnly(tenant),
    ...rest,
    ...(otherTaxes ? { otherTaxes: JSON.stringify(otherTaxes) } : {}),
  };
  const created = await Service.query(db).insertAndFetch(row as never);
  if (typeof created.otherTaxes === 'string')
    created.otherTaxes = JSON.parse(created.otherTaxes) as OtherTaxInput[];
  return created;
}

/** Writes a service's fields (all of them, as the caller merged them); undefined: no such service. */
export async function updateService(
  db: Knex,
  tenant: Tenant,
  id: number,
  input: ServiceInput,
): Promise<Service | undefined> {
  const { otherTaxes, ...rest } = input;
  const n = await db('services')
    .where({ ...tenantOnly(tenant), id })
    .update({
      ...rest,
      otherTaxes: otherTaxes?.length ? JSON.stringify(otherTaxes) : null,
      updatedAt: db.fn.now(),
    });
  return n ? getService(db, tenant, { id }) : undefined;
}

/** Archives (or brings back) a service; undefined: no such service in the tenant. */
export async function setServiceArchived(
  db: Knex,
  tenant: Tenant,
  id: number,
  archived: boolean,
): Promise<Service | undefined> {
  const n = await db('services')
    .where({ ...tenantOnly(tenant), id })
    .update({
      archivedAt: archived ? db.raw('coalesce(archived_at, now())') : null,
      updatedAt: db.fn.now(),
    });
  return n ? getService(db, tenant, { id }) : undefined;
}

export async function getService(db: Knex, tenant: Tenant, ref: ResourceRef): Promise<Service | undefined> {
  const q = Service.query(db).where(tenantOnly(tenant));
  if ('id' in ref) q.where('id', ref.id);
  else q.where('uuid', ref.uuid);
  return q.first();
}

export async function listServices(
  db: Knex,
  tenant: Tenant,
  f: { cabys?: string; startingAfter?: number; includeArchived?: boolean; limit: number },
): Promise<{ rows: Service[]; hasMore: boolean }> {
  const q = Service.query(db)
    .where(tenantOnly(tenant))
    // Ordered exactly like the (company_id, livemode, id) index so a backward scan of it serves
    // the page (and stops after limit + 1 matches) instead of a scan of the primary key.
    .orderBy([
      { column: 'companyId', order: 'desc' },
      { column: 'livemode', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
  if (f.cabys !== undefined) q.where('cabys', f.cabys);
  if (f.startingAfter !== undefined) q.where('id', '<', f.startingAfter);
  if (!f.includeArchived) q.whereNull('archivedAt');
  const rows = await q;
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}
