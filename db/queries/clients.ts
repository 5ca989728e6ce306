// Clients: creation with addresses and the client.created event in one transaction, reads by
// id or UUID, and a filtered, cursor-paginated list. Every query is scoped to (company, mode).
import type { Knex } from 'knex';
import type { ResourceRef } from '../../domain/ids.ts';
import type { Model } from 'objection';
import { Client, type ClientAddress } from '../models/index.ts';

export interface Tenant {
  companyId: number;
  livemode: boolean;
}

/** Exactly the tenant columns: callers often hold a richer object (the auth context). */
export function tenantOnly(t: Tenant): Tenant {
  return { companyId: t.companyId, livemode: t.livemode };
}

export interface ClientInput {
  idType: string;
  idNumber: string;
  name: string;
  commercialName?: string | null;
  email?: string | null;
  phoneCountry?: string | null;
  phone?: string | null;
  activityCode?: string | null;
  /** OtrasSenasExtranjero: a foreign receptor's address. */
  foreignAddress?: string | null;
  metadata?: Record<string, string>;
  addresses: {
    provincia: string;
    canton: string;
    distrito: string;
    barrio?: string | null;
    otrasSenas: string;
  }[];
}

export class DuplicateClientError extends Error {
  constructor(readonly existingId: number) {
    super('a client with this identification already exists');
  }
}

export async function createClient(
  db: Knex,
  tenant: Tenant,
  input: ClientInput,
  onCreated: (trx: Knex.Transaction, client: Client) => Promise<void>,
): Promise<Client> {
  return withDuplicateCheck(db, tenant, input, () =>
    db.transaction((trx) => insertClient(trx, tenant, input, onCreated)),
  );
}

/** Inserts the client and its addresses in the caller's transaction, then runs onCreated there. */
export async function insertClient(
  trx: Knex.Transaction,
  tenant: Tenant,
  input: ClientInput,
  onCreated: (trx: Knex.Transaction, client: Client) => Promise<void>,
): Promise<Client> {
  const { addresses, ...fields } = input;
  const client = await Client.query(trx).insertGraphAndFetch({
    ...tenantOnly(tenant),
    ...fields,
    metadata: input.metadata ?? {},
    addresses: addresses.map((a, i) => ({ ...a, position: i + 1 })),
  } as Partial<Client>);
  await onCreated(trx, client);
  return client;
}

/** Runs a transaction that inserts the client; its identification taken → DuplicateClientError. */
export async function withDuplicateCheck<T>(
  db: Knex,
  tenant: Tenant,
  input: Pick<ClientInput, 'idNumber'>,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if ((err as { constraint?: string }).constraint === 'clients_identification_key') {
      const existing = await db('clients')
        .where({ ...tenantOnly(tenant), idNumber: input.idNumber })
        .first('id');
      if (existing) throw new DuplicateClientError(existing.id);
    }
    throw err;
  }
}

export async function getClient(db: Knex, tenant: Tenant, ref: ResourceRef): Promise<Client | undefined> {
  const q = Client.query(db)
    .where(tenantOnly(tenant))
    .withGraphFetched('addresses(ordered)')
    .modifiers({ ordered: (b) => b.orderBy('position') });
  if ('id' in ref) q.where('id', ref.id);
  else q.where('uuid', ref.uuid);
  return q.first();
}

export interface ClientFilters {
  /** The identification numbers a client may be stored under (any of them matches). */
  idNumbers?: string[];
  /** Already normalised (lower case, accents removed). */
  nameContains?: string;
  balanceGte?: string;
  balanceLte?: string;
  startingAfter?: number;
  /** Archived clients too (left out by default). */
  includeArchived?: boolean;
  limit: number;
}

/** Newest first; `startingAfter` is the last id of the previous page. */
export async function listClients(
  db: Knex,
  tenant: Tenant,
  f: ClientFilters,
): Promise<{ rows: ListedClient[]; hasMore: boolean }> {
  // One statement: each client's addresses come in it, in their order.
  const q = db('clients')
    .select('clients.*', db.raw(`${CLIENT_ADDRESSES_JSON} as addresses`))
    .where(tenantOnly(tenant))
    // Ordered exactly like the (company_id, livemode, id) index so a backward scan of it serves
    // the page (and stops after limit + 1 matches) instead of a scan of the primary key.
    .orderBy([
      { column: 'companyId', order: 'desc' },
      { column: 'livemode', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
  if (f.idNumbers !== undefined) q.whereIn('idNumber', f.idNumbers);
  if (f.nameContains !== undefined) {
    // The pattern's own wildcards are escaped so user input matches literally.
    const escaped = f.nameContains.replace(/[\\%_]/g, (c) => `\\${c}`);
    q.where('searchName', 'like', `%${escaped}%`);
  }
  if (f.balanceGte !== undefined) q.where('balance', '>=', f.balanceGte);
  if (f.balanceLte !== undefined) q.where('balance', '<=', f.balanceLte);
  if (f.startingAfter !== undefined) q.where('id', '<', f.startingAfter);
  if (!f.includeArchived) q.whereNull('archivedAt');
  const rows = (await q) as ListedClient[];
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/** A client's address as a list gives it: what the client object shows of it. */
export type ListedAddress = Pick<
  ClientAddress,
  'provincia' | 'canton' | 'distrito' | 'barrio' | 'otrasSenas'
>;

/** A client as a list gives it: its row, and its addresses in their order. */
export type ListedClient = Omit<Client, 'addresses' | keyof Model> & { addresses: ListedAddress[] };

/** A client's addresses in their order (ListedAddress), as one JSON array. */
const CLIENT_ADDRESSES_JSON = `coalesce((
  select json_agg(json_build_object(
    'provincia', a.provincia, 'canton', a.canton, 'distrito', a.distrito, 'barrio', a.barrio,
    'otrasSenas', a.otras_senas) order by a.position)
  from client_addresses a where a.client_id = clients.id), '[]'::json)`;

/**
 * Writes a client's fields (all of them, as the caller merged them) and, when given, replaces its
 * addresses, in one transaction; its identification taken by another client → DuplicateClientError.
 * Undefined: no such client in the tenant.
 */
export async function updateClient(
  db: Knex,
  tenant: Tenant,
  id: number,
  input: Omit<ClientInput, 'addresses'> & { addresses?: ClientInput['addresses'] },
): Promise<Client | undefined> {
  const { addresses, ...fields } = input;
  return withDuplicateCheck(db, tenant, input, () =>
    db.transaction(async (trx) => {
      const n = await trx('clients')
        .where({ ...tenantOnly(tenant), id })
        .update({ ...fields, metadata: JSON.stringify(fields.metadata ?? {}), updatedAt: trx.fn.now() });
      if (!n) return undefined;
      if (addresses) {
        await trx('client_addresses').where({ clientId: id }).delete();
        if (addresses.length)
          await trx('client_addresses').insert(
            addresses.map((a, i) => ({ ...a, clientId: id, position: i + 1 })),
          );
      }
      return getClient(trx, tenant, { id });
    }),
  );
}

/** Archives (or brings back) a client; undefined: no such client in the tenant. */
export async function setClientArchived(
  db: Knex,
  tenant: Tenant,
  id: number,
  archived: boolean,
): Promise<Client | undefined> {
  const n = await db('clients')
    .where({ ...tenantOnly(tenant), id })
    .update({
      archivedAt: archived ? db.raw('coalesce(archived_at, now())') : null,
      updatedAt: db.fn.now(),
    });
  return n ? getClient(db, tenant, { id }) : undefined;
}

/** Normalises a name search the same way the search_name column is computed. */
export function normalizeNameSearch(value: string): string {
  return value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}
