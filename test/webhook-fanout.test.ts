// The relay's fan-out of events into webhook deliveries (fanOutEvents) on the real database, in a
// busy company whose tables have no statistics yet (a new database, or one not analyzed since a
// burst): it writes and returns the right deliveries, and reads the events and deliveries it was
// asked about, not all of the company's.
import type { Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fanOutEvents } from '../db/queries/webhooks.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { createWebhookCompany } from './helpers/webhook-company.ts';

let t: TestDatabase;
let companyId: number;
let endpointId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ companyId, endpointId } = await createWebhookCompany(t.db, {
    name: 'Abanico',
    idNumber: '3101765432',
    events: ['invoice.accepted'],
  }));
});
afterAll(async () => {
  await t.drop();
});

async function events(n: number, type: (i: number) => string): Promise<number[]> {
  const rows = await t
    .db('events')
    .insert(
      Array.from({ length: n }, (_, i) => ({
        companyId,
        livemode: false,
        type: type(i),
        data: JSON.stringify({ object: 'invoice', n: i }),
      })),
    )
    .returning(['id']);
  return rows.map((r: { id: string | number }) => Number(r.id));
}

it('fans out a few events of a busy company reading only those events and their deliveries', async () => {
  // A company with thousands of events, a thousand of them with a delivery still pending.
  const history = await events(4000, (i) => (i % 2 ? 'invoice.accepted' : 'invoice.created'));
  const pending = history.filter((_, i) => i % 2).slice(0, 1000);
  await t
    .db('webhook_deliveries')
    .insert(pending.map((eventId) => ({ eventId, endpointId, companyId, livemode: false })));
  const fresh = await events(4, (i) => (i < 3 ? 'invoice.accepted' : 'invoice.created'));
  const again = pending[500]!;

  // Rows this backend has read from both tables so far (its counts not yet flushed included).
  const readSoFar = async (trx: Knex.Transaction) =>
    Number(
      (
        await trx.raw(
          `select coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int as n
             from pg_stat_xact_user_tables where relname in ('events', 'webhook_deliveries')`,
        )
      ).rows[0].n,
    );
  const { targets, read } = await t.db.transaction(async (trx) => {
    const before = await readSoFar(trx);
    const got = await fanOutEvents(trx, [...fresh, again]);
    return { targets: got, read: (await readSoFar(trx)) - before };
  });

  // The three new invoice.accepted events get their deliveries; the one already pending comes back.
  expect(targets).toEqual(
    [again, ...fresh.slice(0, 3)].map((eventId) => ({ eventId, endpointId, round: 0 })),
  );
  const written = (await t
    .db('webhook_deliveries')
    .whereIn('eventId', fresh)
    .orderBy('eventId')
    .select('eventId')) as { eventId: number }[];
  expect(written.map((w) => Number(w.eventId))).toEqual(fresh.slice(0, 3));
  // A handful of rows, not the company's 4,000 events or 1,000 pending deliveries.
  expect(read).toBeLessThan(50);
});
