// The outbox relay's SQL: claim waiting rows (several relays never take the same row), read the
// company, mode and trace of the invoices they start, and delete what was moved to Redis in the
// claiming transaction. A row may carry one item (`eventId`, `invoiceId`) or all of one
// transaction's (`eventIds`, `invoiceIds`): a chunk step's events or a group of creates are one row.
import type { Knex } from 'knex';

export interface OutboxPayload {
  invoiceId?: number;
  invoiceIds?: number[];
  retry?: boolean;
  eventId?: number;
  eventIds?: number[];
  batchId?: number;
  emailId?: number;
  receivedId?: number;
}

export interface OutboxRow {
  id: number;
  kind: string;
  payload: OutboxPayload;
  requestId: string | null;
}

export async function claimOutbox(trx: Knex.Transaction, limit: number): Promise<OutboxRow[]> {
  const res = await trx.raw(
    `select id, kind, payload, request_id from outbox
      where processed_at is null
      order by id
      limit ?
      for update skip locked`,
    [limit],
  );
  return (res.rows as Record<string, unknown>[]).map((r) => ({
    id: Number(r.id),
    kind: r.kind as string,
    payload: r.payload as OutboxPayload,
    requestId: (r.request_id as string | null) ?? null,
  }));
}

/** The items of a row, whichever form it has. */
export function outboxItems(payload: OutboxPayload, single: 'invoiceId' | 'eventId'): number[] {
  const many = single === 'invoiceId' ? payload.invoiceIds : payload.eventIds;
  if (many) return many.map(Number);
  const one = payload[single];
  return one ? [Number(one)] : [];
}

export interface FlowInvoice {
  id: number;
  companyId: number;
  livemode: boolean;
  traceContext: string | null;
}

/** The company, mode and trace of the invoices whose flows start (flows are chunked by the first two). */
export async function flowInvoices(trx: Knex.Transaction, ids: number[]): Promise<Map<number, FlowInvoice>> {
  if (!ids.length) return new Map();
  const res = await trx.raw(
    `select id, company_id, livemode, trace_context from invoices where id = any(?::bigint[])`,
    [ids],
  );
  return new Map(
    (res.rows as Record<string, unknown>[]).map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        companyId: Number(r.company_id),
        livemode: r.livemode as boolean,
        traceContext: (r.trace_context as string | null) ?? null,
      },
    ]),
  );
}

/** Rows moved to Redis leave the outbox (the events table keeps what happened). */
export async function deleteOutboxRows(trx: Knex.Transaction, ids: number[]): Promise<void> {
  await trx('outbox').whereIn('id', ids).del();
}
