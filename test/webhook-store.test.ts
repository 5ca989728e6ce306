// The delivery jobs' group commit (jobs/webhooks/store.ts) on the real database: what concurrent
// jobs read and record shares one transaction; each request still gets its own answer, a
// request is answered only once committed, and one bad request fails only itself.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadDeliveryContexts, type AttemptOutcome } from '../db/queries/webhooks.ts';
import { DeliveryStore } from '../jobs/webhooks/store.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { createWebhookCompany } from './helpers/webhook-company.ts';

let t: TestDatabase;
let companyId: number;
let endpointId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ companyId, endpointId } = await createWebhookCompany(t.db, {
    name: 'Webhooks',
    idNumber: '3101654321',
    events: ['*'],
  }));
});
afterAll(async () => {
  await t.drop();
});

async function events(n: number): Promise<number[]> {
  const rows = await t
    .db('events')
    .insert(
      Array.from({ length: n }, (_, i) => ({
        companyId,
        livemode: false,
        type: 'client.created',
        data: JSON.stringify({ object: 'client', n: i }),
      })),
    )
    .returning(['id']);
  return rows.map((r: { id: string | number }) => Number(r.id));
}

const outcome = (deliveryId: number, o: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  deliveryId,
  round: 0,
  startedAt: new Date(),
  result: { statusCode: 200, durationMs: 12, error: null, responseExcerpt: 'ok' },
  status: 'delivered',
  nextAttemptAt: null,
  ...o,
});

it('loads many deliveries in one transaction, creating those the fan-out has not written', async () => {
  const ids = await events(40);
  // Half have their delivery row already (the fan-out committed), half not yet.
  await t
    .db('webhook_deliveries')
    .insert(
      ids.slice(0, 20).map((eventId) => ({ eventId, endpointId, companyId, livemode: false, attempts: 2 })),
    );
  const store = new DeliveryStore(t.db, { groupMs: 5 });
  const got = await Promise.all(ids.map((eventId) => store.load({ eventId, endpointId })));
  expect(store.transactions).toBe(1);
  expect(got.every((c) => c?.status === 'pending' && c.round === 0)).toBe(true);
  expect(got.map((c) => c!.attempts)).toEqual([...Array(20).fill(2), ...Array(20).fill(0)]);
  expect(got.map((c) => c!.event.id)).toEqual(ids);
  expect(got[7]!.event).toMatchObject({ type: 'client.created', data: { object: 'client', n: 7 } });
  expect(got[30]!.endpoint).toMatchObject({
    id: endpointId,
    url: 'http://127.0.0.1:9/hooks',
    livemode: false,
  });
  expect(Number((await t.db('webhook_deliveries').whereIn('eventId', ids).count('* as n'))[0]!.n)).toBe(40);
  // A pair whose event does not exist is simply absent.
  expect(await store.load({ eventId: 999_999_999, endpointId })).toBeUndefined();
});

it('records many outcomes in one transaction; each is committed when its promise resolves', async () => {
  const ids = await events(30);
  const store = new DeliveryStore(t.db, { groupMs: 5 });
  const ctx = await Promise.all(ids.map((eventId) => store.load({ eventId, endpointId })));
  const before = store.transactions;
  await Promise.all(
    ctx.map(async (c, i) => {
      await store.record(
        i % 2
          ? outcome(c!.deliveryId)
          : outcome(c!.deliveryId, {
              status: 'pending',
              nextAttemptAt: new Date(Date.now() + 60_000),
              result: { statusCode: 503, durationMs: 40, error: null, responseExcerpt: 'busy' },
            }),
      );
      // Durable as soon as the job hears back.
      const d = await t.db('webhook_deliveries').where({ id: c!.deliveryId }).first();
      expect(d.status).toBe(i % 2 ? 'delivered' : 'pending');
      expect(d.attempts).toBe(1);
    }),
  );
  expect(store.transactions - before).toBe(1);
  const attempts = await t.db('webhook_attempts').whereIn(
    'deliveryId',
    ctx.map((c) => c!.deliveryId),
  );
  expect(attempts).toHaveLength(30);
  expect(attempts.every((a) => a.attemptNumber === 1 && a.durationMs >= 12)).toBe(true);
  expect(attempts.filter((a) => a.statusCode === 503 && a.responseExcerpt === 'busy')).toHaveLength(15);

  // Two outcomes of one delivery at once: numbered 2 and 3, in two transactions.
  const [again] = ctx;
  await Promise.all([
    store.record(outcome(again!.deliveryId, { status: 'pending', nextAttemptAt: new Date() })),
    store.record(outcome(again!.deliveryId)),
  ]);
  const numbers = await t
    .db('webhook_attempts')
    .where({ deliveryId: again!.deliveryId })
    .pluck('attempt_number');
  expect(numbers.sort()).toEqual([1, 2, 3]);
  expect((await t.db('webhook_deliveries').where({ id: again!.deliveryId }).first()).status).toBe(
    'delivered',
  );
});

it('an outcome of an older round counts as an attempt but leaves the newer round alone; 410 disables', async () => {
  const [eventId] = await events(1);
  const store = new DeliveryStore(t.db, { groupMs: 0 });
  const c = await store.load({ eventId: eventId!, endpointId });
  await t.db('webhook_deliveries').where({ id: c!.deliveryId }).update({ round: 1 });
  await store.record(outcome(c!.deliveryId, { round: 0 }));
  const d = await t.db('webhook_deliveries').where({ id: c!.deliveryId }).first();
  expect(d).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, deliveredAt: null });

  await store.record(
    outcome(c!.deliveryId, {
      round: 1,
      status: 'failed',
      result: { statusCode: 410, durationMs: 3, error: null, responseExcerpt: null },
    }),
    { endpointId, reason: 'the receiver answered 410 Gone' },
  );
  const w = await t.db('webhook_endpoints').where({ id: endpointId }).first();
  expect(w.disabledReason).toBe('the receiver answered 410 Gone');
  expect(w.disabledAt).not.toBeNull();
  expect(await t.db('webhook_deliveries').where({ id: c!.deliveryId }).first()).toMatchObject({
    status: 'failed',
    attempts: 2,
    lastStatusCode: 410,
  });
  // Later loads see the endpoint disabled.
  const [later] = await events(1);
  expect((await store.load({ eventId: later!, endpointId }))!.endpoint.disabledAt).not.toBeNull();
  await t
    .db('webhook_endpoints')
    .where({ id: endpointId })
    .update({ disabledAt: null, disabledReason: null });
});

it('finished attempts alone are one statement without BEGIN and COMMIT; a 410 takes a transaction', async () => {
  const ids = await events(3);
  const store = new DeliveryStore(t.db, { groupMs: 5 });
  const ctx = await Promise.all(ids.map((eventId) => store.load({ eventId, endpointId })));
  const sent: string[] = [];
  const seen = (q: { sql: string }) => sent.push(q.sql.trim().split(/\s+/)[0]!.toLowerCase());
  t.db.on('query', seen);
  try {
    await Promise.all(ctx.slice(0, 2).map((c) => store.record(outcome(c!.deliveryId))));
    expect(sent).toEqual(['with']);
    const rows = await t.db('webhook_deliveries').whereIn(
      'id',
      ctx.slice(0, 2).map((c) => c!.deliveryId),
    );
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ]);
    sent.length = 0;
    await store.record(
      outcome(ctx[2]!.deliveryId, {
        status: 'failed',
        result: { statusCode: 410, durationMs: 3, error: null, responseExcerpt: null },
      }),
      { endpointId, reason: 'the receiver answered 410 Gone' },
    );
    expect(sent).toEqual(['begin;', 'with', 'update', 'commit;']);
  } finally {
    t.db.off('query', seen);
    await t
      .db('webhook_endpoints')
      .where({ id: endpointId })
      .update({ disabledAt: null, disabledReason: null });
  }
});

it('a request that fails fails alone: the others of its transaction are committed', async () => {
  const ids = await events(5);
  const store = new DeliveryStore(t.db, { groupMs: 5 });
  const ctx = await Promise.all(ids.map((eventId) => store.load({ eventId, endpointId })));
  const settled = await Promise.allSettled(
    ctx.map((c, i) =>
      // A status the table refuses: the shared transaction fails, then each runs on its own.
      store.record(outcome(c!.deliveryId, i === 2 ? { status: 'bogus' as 'failed' } : {})),
    ),
  );
  expect(settled.map((s) => s.status)).toEqual([
    'fulfilled',
    'fulfilled',
    'rejected',
    'fulfilled',
    'fulfilled',
  ]);
  const rows = await t.db('webhook_deliveries').whereIn(
    'id',
    ctx.map((c) => c!.deliveryId),
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  expect(ctx.map((c) => byId.get(c!.deliveryId).status)).toEqual([
    'delivered',
    'delivered',
    'pending',
    'delivered',
    'delivered',
  ]);
  expect(await t.db('webhook_attempts').where({ deliveryId: ctx[2]!.deliveryId })).toHaveLength(0);
});

it("a job's first run takes what the fan-out read, once its transaction has committed", async () => {
  const [b, c] = await events(2);
  const store = new DeliveryStore(t.db, { groupMs: 0 });
  // The fan-out's transaction: contexts read inside it, handed over before it commits.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let primed!: () => void;
  const handedOver = new Promise<void>((r) => (primed = r));
  const fanOut = t.db.transaction(async (trx) => {
    await trx('webhook_deliveries').insert([
      { eventId: b, endpointId, companyId, livemode: false },
      { eventId: c, endpointId, companyId, livemode: false },
    ]);
    const keys = [
      { eventId: b!, endpointId },
      { eventId: c!, endpointId },
    ];
    store.prime((await loadDeliveryContexts(trx, keys)).values(), trx.executionPromise);
    primed();
    await held;
  });
  await handedOver;
  const before = store.transactions;
  const first = store.load({ eventId: b!, endpointId }, { round: 0, firstRun: true });
  let answered = false;
  void first.then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 50));
  expect(answered).toBe(false); // waits for the fan-out's commit
  release();
  await fanOut;
  const got = await first;
  expect(got).toMatchObject({ status: 'pending', round: 0, attempts: 0, event: { id: b } });
  expect(store.transactions).toBe(before);
  expect(store.primedHits).toBe(1);
  // Used once: a second load reads (a retry, or the same job run again).
  await store.load({ eventId: b!, endpointId }, { round: 0, firstRun: true });
  expect(store.transactions).toBe(before + 1);
  // Not for a retry.
  await store.load({ eventId: c!, endpointId }, { round: 0, firstRun: false });
  expect(store.primedHits).toBe(1);
});

it('nothing the fan-out read is used when its transaction rolls back', async () => {
  const [a] = await events(1);
  const store = new DeliveryStore(t.db, { groupMs: 0 });
  await expect(
    t.db.transaction(async (trx) => {
      await trx('webhook_deliveries').insert({ eventId: a, endpointId, companyId, livemode: false });
      store.prime(
        (await loadDeliveryContexts(trx, [{ eventId: a!, endpointId }])).values(),
        trx.executionPromise,
      );
      throw new Error('Redis refused the jobs');
    }),
  ).rejects.toThrow(/Redis refused/);
  const got = await store.load({ eventId: a!, endpointId }, { round: 0, firstRun: true });
  expect(store.primedHits).toBe(0);
  // Read (and created) by the job itself, as if the fan-out had not run.
  expect(got).toMatchObject({ status: 'pending', attempts: 0 });
  expect(await t.db('webhook_deliveries').where({ eventId: a }).first()).toMatchObject({
    id: got!.deliveryId,
  });
});
