// A resource named by its public id (`inv_…`, `rcv_…`, `we_…`, `evt_…`), read within the caller's company
// and mode, or a 404 naming what was asked for: the first step of every route about one resource.
import type { Knex } from 'knex';
import type { Tenant } from '../db/queries/clients.ts';
import { getEvent, type EventRow } from '../db/queries/event-log.ts';
import { getInvoice, type InvoiceRow } from '../db/queries/invoices.ts';
import { getReceivedDocument, type PublicReceivedDocumentRow } from '../db/queries/received-documents.ts';
import { getEndpoint, type EndpointRow } from '../db/queries/webhooks.ts';
import { parseId } from '../domain/ids.ts';
import { notFound } from './errors.ts';

export async function loadInvoice(db: Knex, tenant: Tenant, raw: string): Promise<InvoiceRow> {
  const id = parseId('invoice', raw);
  const row = id === null ? undefined : await getInvoice(db, tenant, id);
  if (!row) throw notFound('invoice', raw);
  return row;
}

export async function loadReceivedDocument(
  db: Knex,
  tenant: Tenant,
  raw: string,
): Promise<PublicReceivedDocumentRow> {
  const id = parseId('receivedDocument', raw);
  const row = id === null ? undefined : await getReceivedDocument(db, tenant, id);
  if (!row) throw notFound('received document', raw);
  return row;
}

export async function loadEndpoint(db: Knex, tenant: Tenant, raw: string): Promise<EndpointRow> {
  const id = parseId('webhookEndpoint', raw);
  const row = id === null ? undefined : await getEndpoint(db, tenant, id);
  if (!row) throw notFound('webhook endpoint', raw);
  return row;
}

export async function loadEvent(db: Knex, tenant: Tenant, raw: string): Promise<EventRow> {
  const id = parseId('event', raw);
  const row = id === null ? undefined : await getEvent(db, tenant, id);
  if (!row) throw notFound('event', raw);
  return row;
}
