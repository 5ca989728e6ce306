// Events numbered per document (the events trigger of migration 20261228000200_event_sequences)
// and the order of a document's deliveries to an endpoint (loadDeliveryContexts' `order`), on the
// real database: 1, 2, 3… per document whatever the statement, null for an event about no
// document, numbers taken in commit order by concurrent transactions and given back by a rollback;
// a delivery waits for an earlier event of its document still owed to its endpoint (pending, or
// not fanned out yet), not for one its endpoint never subscribed to or that is done.
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvents, type NewEvent } from '../db/queries/events.ts';
import { fanOutEvents, loadDeliveryContexts, deliveryKey } from '../db/queries/webhooks.ts';
import { formatId } from '../domain/ids.ts';
import type { EventKind } from '../domain/webhook-events.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { createWebhookCompany } from './helpers/webhook-company.ts';

let t: TestDatabase;
let companyId: number;
let endpointId: number;
let docs = 0;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ companyId, endpointId } = await createWebhookCompany(t.db, {
    name: 'Secuencias',
    idNumber: '3101246810',
    events: ['invoice.created', 'invoice.sent', 'invoice.accepted', 'invoice.paid'],
  }));
});
afterAll(async () => {
  await t.drop();
});

/** A fresh document id (the events only name it). */
const newDoc = () => formatId('invoice', 900_000 + ++docs);

const ev = (type: EventKind, data: Record<string, unknown>): NewEvent => ({
  companyId,
  livemode: false,
  type,
  data,
});

async function numbered(
  ids: number[],
): Promise<{ id: number; document: string | null; sequence: number | null }[]> {
  const rows = await t.db('events').whereIn('id', ids).orderBy('id').select('id', 'document', 'sequence');
  return rows.map((r: { id: string; document: string | null; sequence: number | null }) => ({
    ...r,
    id: Number(r.id),
  }));
}

describe('event numbering', () => {
  it('numbers the events of each document 1, 2, 3… in one statement or many; others get null', async () => {
    const a = newDoc();
    const b = newDoc();
    const first = await t.db.transaction((trx) =>
      recordEvents(trx, [
        ev('invoice.created', { id: a, object: 'invoice' }),
        ev('invoice.created', { id: b, object: 'invoice' }),
        ev('client.created', { id: 'cli_000000000001', object: 'client' }),
        ev('invoice.sent', { id: a, object: 'invoice' }),
      ]),
    );
    const second = await t.db.transaction((trx) =>
      recordEvents(trx, [
        ev('payment.created', { id: 'pay_000000000007', object: 'payment', invoice_id: a }),
        ev('invoice.paid', { invoice_id: a, amount: '1.00' }),
      ]),
    );
    expect(await numbered([...first, ...second])).toEqual([
      { id: first[0], document: a, sequence: 1 },
      { id: first[1], document: b, sequence: 1 },
      { id: first[2], document: null, sequence: null },
      { id: first[3], document: a, sequence: 2 },
      { id: second[0], document: a, sequence: 3 },
      { id: second[1], document: a, sequence: 4 },
    ]);
  });

  it('a rolled-back event gives its number back; concurrent writers are numbered in commit order', async () => {
    const a = newDoc();
    await t.db.transaction((trx) => recordEvents(trx, [ev('invoice.created', { id: a })]));
    await expect(
      t.db.transaction(async (trx) => {
        await recordEvents(trx, [ev('invoice.sent', { id: a })]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');

    // The first writer holds the document's counter until it commits; the second waits for it.
    let releaseFirst!: () => void;
    const held = new Promise<void>((r) => (releaseFirst = r));
    let firstWrote!: () => void;
    const wrote = new Promise<void>((r) => (firstWrote = r));
    const firstTx = t.db.transaction(async (trx) => {
      const ids = await recordEvents(trx, [ev('invoice.sent', { id: a })]);
      firstWrote();
      await held;
      return ids;
    });
    await wrote;
    let secondDone = false;
    const secondTx = t.db
      .transaction((trx) => recordEvents(trx, [ev('invoice.accepted', { id: a })]))
      .then((ids) => {
        secondDone = true;
        return ids;
      });
    await new Promise((r) => setTimeout(r, 300)); // the second writer's chance to (wrongly) go on
    expect(secondDone).toBe(false);
    releaseFirst();
    const [one, two] = await Promise.all([firstTx, secondTx]);
    const rows = await numbered([...one, ...two]);
    expect(rows.map((r) => r.sequence)).toEqual([2, 3]);
  });
});

describe('the order of a document’s deliveries to an endpoint', () => {
  async function order(trx: Knex.Transaction, eventId: number) {
    const got = await loadDeliveryContexts(trx, [{ eventId, endpointId }]);
    return got.get(deliveryKey({ eventId, endpointId }))!.order;
  }

  it('waits for an earlier event still pending or not fanned out, not for one done or never subscribed', async () => {
    const a = newDoc();
    // created (fanned out, pending) → retried (never subscribed) → sent (not fanned out yet) → accepted.
    const [created] = await t.db.transaction((trx) => recordEvents(trx, [ev('invoice.created', { id: a })]));
    await t.db.transaction((trx) => fanOutEvents(trx, [created!]));
    const [retried] = await t.db.transaction((trx) => recordEvents(trx, [ev('invoice.retried', { id: a })]));
    await t.db('outbox').del(); // the relay moved it: no endpoint subscribes to invoice.retried
    const [sent] = await t.db.transaction((trx) => recordEvents(trx, [ev('invoice.sent', { id: a })]));
    const [accepted] = await t.db.transaction((trx) =>
      recordEvents(trx, [ev('invoice.accepted', { id: a })]),
    );
    await t.db.transaction(async (trx) => {
      // accepted: held by created (pending), the first earlier one owed.
      expect(await order(trx, accepted!)).toEqual({ blockedBy: created, next: null });
      // created: its turn; the next pending one of the document (accepted's delivery now exists).
      expect(await order(trx, created!)).toEqual({ blockedBy: null, next: { eventId: accepted, round: 0 } });
    });
    expect(retried).toBeLessThan(sent!);

    // created delivered: sent (still in the outbox, not fanned out) holds accepted up.
    await t.db('webhook_deliveries').where({ eventId: created, endpointId }).update({ status: 'delivered' });
    await t.db.transaction(async (trx) => {
      expect(await order(trx, accepted!)).toEqual({ blockedBy: sent, next: null });
    });

    // sent fanned out and given up: accepted's turn.
    await t.db.transaction(async (trx) => {
      await fanOutEvents(trx, [sent!]);
      await trx('outbox').del();
    });
    await t.db('webhook_deliveries').where({ eventId: sent, endpointId }).update({ status: 'failed' });
    await t.db.transaction(async (trx) => {
      expect(await order(trx, accepted!)).toEqual({ blockedBy: null, next: null });
    });
  });

  it('an event about no document waits for nothing', async () => {
    const [client] = await t.db.transaction((trx) =>
      recordEvents(trx, [ev('client.created', { id: 'cli_000000000002' })]),
    );
    await t.db.transaction(async (trx) => {
      expect(await order(trx, client!)).toEqual({ blockedBy: null, next: null });
    });
  });
});
