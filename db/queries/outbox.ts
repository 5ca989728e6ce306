// The outbox: work for the queues written in the transaction of the change that calls for it,
// moved to BullMQ by the relay after commit (workers/outbox-relay.ts). One message type with a
// case per kind; each kind belongs to one work module (jobs/registry.ts), which turns its rows
// into jobs. A row may carry one item (`eventId`, `invoiceId`) or all of one transaction's
// (`eventIds`, `invoiceIds`): a chunk step's events or a group of creates are one row.
// The relay's SQL: take waiting rows (several relays never take the same row; deleted in the
// statement that claims them, so a pass whose transaction rolls back leaves them waiting) and
// read the company, mode and trace of the invoices they start.
import { prepared } from '../prepared.ts';
import type { Knex } from 'knex';

/** What each kind of outbox row carries. */
export interface OutboxPayloads {
  /** Invoices whose flow starts (sign → submit → accounting → status); `retry`: POST …/retry. */
  'invoice.flow': { invoiceId?: number; invoiceIds?: number[]; retry?: boolean };
  /** A batch of invoices to record. */
  'batch.process': { batchId: number };
  /** Events to fan out to their webhook endpoints. */
  'event.dispatch': { eventId?: number; eventIds?: number[] };
  /** A document to email to its receptor. */
  'email.send': { emailId: number };
  /** A received document's answer (MensajeReceptor) to send. */
  'received.answer': { receivedId: number };
}

export type OutboxKind = keyof OutboxPayloads;

/** One outbox message: its kind and that kind's payload. */
export type OutboxMessage = {
  [K in OutboxKind]: { kind: K; payload: OutboxPayloads[K] };
}[OutboxKind];

/** A claimed row: the message with its id and the request that wrote it. */
export type OutboxRow<K extends OutboxKind = OutboxKind> = Extract<OutboxMessage, { kind: K }> & {
  id: number;
  requestId: string | null;
};

/**
 * Takes up to `limit` waiting rows, oldest first: locks them (skipping rows another relay holds)
 * and deletes them in one statement. The caller's transaction moves them to the queues; if it
 * rolls back, the rows are back and the next pass takes them.
 */
export async function takeOutbox(trx: Knex.Transaction, limit: number): Promise<OutboxRow[]> {
  const res = await prepared(
    trx,
    'outbox.take',
    `delete from outbox o
      using (select id from outbox order by id limit ? for update skip locked) c
      where o.id = c.id
      returning o.id, o.kind, o.payload, o.request_id`,
    [limit],
  );
  return (res.rows as Record<string, unknown>[])
    .map(
      (r) =>
        ({
          id: Number(r.id),
          kind: r.kind as OutboxKind,
          payload: r.payload,
          requestId: (r.request_id as string | null) ?? null,
        }) as OutboxRow,
    )
    .sort((a, b) => a.id - b.id);
}

/** The items of a row, whichever form it has. */
export function outboxItems(
  payload: OutboxPayloads['invoice.flow'] | OutboxPayloads['event.dispatch'],
  single: 'invoiceId' | 'eventId',
): number[] {
  const p = payload as { invoiceIds?: number[]; eventIds?: number[]; invoiceId?: number; eventId?: number };
  const many = single === 'invoiceId' ? p.invoiceIds : p.eventIds;
  if (many) return many.map(Number);
  const one = p[single];
  return one ? [Number(one)] : [];
}
