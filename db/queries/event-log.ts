// Reading events (GET /api/v1/events): the last 30 days of a tenant's events, newest first,
// filtered by type and creation time, with cursor pagination on the id.
import type { Knex } from 'knex';
import { EVENT_RETENTION_DAYS } from '../../domain/webhook-events.ts';
import { tenantOnly, type Tenant } from './clients.ts';

export interface EventRow {
  id: number;
  companyId: number;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  requestId: string | null;
  /** The document the event is about (`inv_…`, `rcv_…`), numbered by the events trigger; else null. */
  document: string | null;
  /** Its place among the document's events (1, 2, 3…); null with no document. */
  sequence: number | null;
  createdAt: Date;
}

export interface EventFilters {
  type?: string;
  createdGte?: string;
  createdLt?: string;
  startingAfter?: number;
  limit: number;
}

const recent = (db: Knex) => db.raw(`now() - interval '${EVENT_RETENTION_DAYS} days'`);

export async function listEvents(
  db: Knex,
  tenant: Tenant,
  f: EventFilters,
): Promise<{ rows: EventRow[]; hasMore: boolean }> {
  const q = db('events')
    .where(tenantOnly(tenant))
    .where('createdAt', '>=', recent(db))
    // Ordered like the (company_id, livemode[, type], id) indexes so a backward scan serves the page.
    .orderBy([
      { column: 'companyId', order: 'desc' },
      { column: 'livemode', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit + 1);
  if (f.type) q.where('type', f.type);
  if (f.createdGte) q.where('createdAt', '>=', f.createdGte);
  if (f.createdLt) q.where('createdAt', '<', f.createdLt);
  if (f.startingAfter !== undefined) q.where('id', '<', f.startingAfter);
  const rows = (await q) as EventRow[];
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

export async function getEvent(db: Knex, tenant: Tenant, id: number): Promise<EventRow | undefined> {
  return db('events')
    .where({ ...tenantOnly(tenant), id })
    .where('createdAt', '>=', recent(db))
    .first();
}
