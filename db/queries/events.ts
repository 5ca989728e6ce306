// Events: what integrators can hear about. Each is written in the transaction that makes the
// change, together with an outbox row that the relay turns into webhook deliveries after commit.
import type { OutboxKind, OutboxPayloads } from './outbox.ts';
import type { Knex } from 'knex';

export interface EventInput {
  companyId: number;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  requestId?: string | null;
}

export async function recordEvent(trx: Knex.Transaction, input: EventInput): Promise<number> {
  const [row] = await trx('events')
    .insert({
      companyId: input.companyId,
      livemode: input.livemode,
      type: input.type,
      data: JSON.stringify(input.data),
      requestId: input.requestId ?? null,
    })
    .returning(['id']);
  const id = (row as { id: number }).id;
  await enqueueOutbox(trx, 'event.dispatch', { eventId: id }, input.requestId);
  return id;
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
  await trx.raw(`select pg_notify('outbox', '')`);
}
