// A receiver that is down while 1,000 events are produced receives every one of them after it
// comes back: failed attempts are retried with the backoff (shortened through config for the
// test), nothing is lost, nothing arrives twice. The events are recorded directly (events and
// outbox rows, as the batch API writes them) so the test measures the webhook path — outbox,
// relay, fan-out, queue, retries — rather than the API's request rate.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDb, type Db } from '../db/connection.ts';
import { formatId } from '../domain/ids.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

const N = 1000;
let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let r: Receiver;
let workerDb: Db;

beforeAll(async () => {
  e = await startE2E({ workers: false, env: { WEBHOOK_BACKOFF_BASE_MS: '100', WEBHOOK_MAX_ATTEMPTS: '12' } });
  // Workers get their own connection pool, as a worker process has in production.
  workerDb = createDb({ url: e.database.url, poolMax: 10 });
  await e.startWorkers({ db: workerDb });
  s = await seedIssuer(e.db, e.config);
  r = await startReceiver();
});
afterAll(async () => {
  await r.close();
  await e.stopWorkers();
  await workerDb.destroy();
  await e.close();
});

const count = async (q: (b: any) => any) =>
  Number((await q(e.db('webhook_deliveries')).count('* as n'))[0].n);

it(`delivers all ${N} events produced while the receiver was down once it is back`, async () => {
  const ep = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, {
    url: r.url,
    events: ['invoice.created'],
  });
  expect(ep.status).toBe(201);
  r.secrets.push(ep.json.secret);
  await r.stop();

  // 1. Produce the events while the receiver refuses connections: 1,000 invoices' worth, each
  // event with its outbox row, in one statement per chunk of 250 as the batch API records them.
  for (let chunk = 0; chunk < N / 250; chunk++) {
    const data = Array.from({ length: 250 }, (_, j) => {
      const i = chunk * 250 + j;
      return {
        object: 'invoice',
        id: formatId('invoice', 100_000 + i),
        status: 'pendiente',
        total: '113.00',
      };
    });
    await e.db.raw(
      `with e as (
         insert into events (company_id, livemode, type, data)
         select ?, false, 'invoice.created', d from jsonb_array_elements(?::jsonb) d
         returning id)
       insert into outbox (kind, payload) select 'event.dispatch', jsonb_build_object('eventId', id) from e`,
      [s.company.id, JSON.stringify(data)],
    );
    await e.db.raw(`select pg_notify('outbox', '')`);
  }
  // 2. Every delivery has failed twice (a first attempt and a retry) while the receiver is down.
  await waitFor(
    async () => (await count((q) => q.where('attempts', '>=', 2))) === N,
    30_000,
    200,
    'two failed attempts each',
  );
  expect(await count((q) => q.where('status', 'delivered'))).toBe(0);
  const refused = await e.db('webhook_attempts').whereNotNull('error').first('error');
  expect(refused.error).toMatch(/ECONNREFUSED/);

  // 3. Back up: everything arrives, once.
  await r.restart();
  await waitFor(
    async () => (await count((q) => q.where('status', 'delivered'))) === N,
    45_000,
    200,
    'all delivered',
  );
  const ids = new Set(r.received.map((x) => x.body.id));
  expect(ids.size).toBe(N);
  expect(r.received).toHaveLength(N);
  expect(r.received.every((x) => x.verified.ok)).toBe(true);
  const expected = (
    await e.db('events').where({ type: 'invoice.created', companyId: s.company.id }).pluck('id')
  ).map((id: number) => `evt_${String(id).padStart(12, '0')}`);
  expect([...ids].sort()).toEqual(expected.sort());
  const attempts = Number((await e.db('webhook_attempts').count('* as n'))[0]!.n);
  expect(attempts).toBeGreaterThanOrEqual(3 * N);
  // Each attempt is a read before its POST and a record after it; the jobs share transactions
  // for both (one of each per attempt would be two commits an attempt).
  const transactions = e.runtime!.work.webhooks.store.transactions;
  expect(transactions).toBeGreaterThan(0);
  expect(transactions).toBeLessThan(attempts / 4);
}, 60_000);
