// How the workers' capacity is shared between companies, step by step and without timing: the
// places the relay gives each company's chunks in the sign queue (jobs/fair-share.ts), and the
// per-process limit of Hacienda calls taking turns between companies (platform/map-limit.ts).
import { FlowProducer, Queue } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../jobs/invoice-flow/queues.ts';
import { BATCH_QUEUE, batchDispatch } from '../jobs/batches/work.ts';
import { flowDispatch } from '../jobs/invoice-flow/dispatch.ts';
import { reachedPlace } from '../jobs/fair-share.ts';
import { createLimiter } from '../platform/map-limit.ts';
import { createRelay } from '../workers/outbox-relay.ts';
import { startWebhooks } from '../jobs/webhooks/work.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';

type Issuer = Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');

let e: E2E;
let big: Issuer;
let small: Issuer;

beforeAll(async () => {
  e = await startE2E({ workers: false });
  big = await seedIssuer(e.db, e.config, '3101123456');
  small = await seedIssuer(e.db, e.config, '3101654321');
});
afterAll(async () => {
  await e?.close();
});

/** The jobs waiting in a queue in the order a worker takes them: without priority first, then by priority. */
async function takeOrder(q: Queue) {
  return [...(await q.getWaiting(0, -1)), ...(await q.getPrioritized(0, -1))];
}

/** `n` invoices of `s` recorded while no worker runs; their ids. */
async function create(s: Issuer, n: number): Promise<number[]> {
  const created = await Promise.all(
    Array.from({ length: n }, () =>
      api(e, 'POST', '/api/v1/invoices', s.key, {
        client_id: `cli_${pad(s.client.id)}`,
        lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
      }),
    ),
  );
  expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
  return created.map((r) => Number(String(r.json.id).slice(4)));
}

describe('places in the sign queue', () => {
  it("a company's chunk waits behind the head of the queue and one chunk of each other company, not their backlog", async () => {
    const flows = new FlowProducer({ connection: e.connection, prefix: e.config.queuePrefix });
    const sign = new Queue(QUEUES.sign, { connection: e.connection, prefix: e.config.queuePrefix });
    const relay = createRelay({
      db: e.db,
      config: { databaseUrl: e.database.url },
      log: pino({ level: 'silent' }),
      dispatch: { 'invoice.flow': flowDispatch({ flows, chunkSize: 2, reached: () => reachedPlace(sign) }) },
    });
    try {
      // The big company's backlog: 10 invoices in chunks of 2, then one invoice of the small one.
      await create(big, 10);
      await relay.runOnce();
      await create(small, 1);
      await relay.runOnce();
      // One more invoice of each: the big one's goes after its own backlog, the small one's after
      // its own first one.
      await create(big, 1);
      await create(small, 1);
      await relay.runOnce();

      const waiting = await takeOrder(sign);
      const companyOf = new Map(
        ((await e.db('invoices').select('id', 'company_id')) as { id: string; companyId: string }[]).map(
          (r) => [Number(r.id), Number(r.companyId)],
        ),
      );
      // The order in which the workers will take them.
      const order = waiting.map((j) => companyOf.get((j.data as { invoiceIds: number[] }).invoiceIds[0]!)!);
      const priorities = waiting.map((j) => j.priority);
      console.log(`sign queue: companies ${order.join(' ')}; priorities ${priorities.join(' ')}`);
      const B = big.company.id;
      const S = small.company.id;
      expect(order).toEqual([B, S, B, S, B, B, B, B]);
      // Places count invoices: the big company's chunks of 2 take two places each.
      expect(priorities).toEqual([2, 3, 4, 4, 6, 8, 10, 11]);
      // The places are written with the chunk on every invoice it carries.
      const placed = (await e.db('invoices').whereNull('flow_priority').count('* as n'))[0]!;
      expect(Number(placed.n)).toBe(0);
    } finally {
      await flows.close();
      await sign.obliterate({ force: true }).catch(() => {});
      await sign.close();
    }
  });
});

describe('places in the batches and webhooks queues', () => {
  it("a company's batch and webhook delivery go before the rest of another company's backlog", async () => {
    const flows = new FlowProducer({ connection: e.connection, prefix: e.config.queuePrefix });
    const batches = new Queue(BATCH_QUEUE, { connection: e.connection, prefix: e.config.queuePrefix });
    const webhooks = startWebhooks({
      config: e.config,
      db: e.db,
      connection: e.connection,
      log: pino({ level: 'silent' }),
    });
    await webhooks.worker.pause(true); // the jobs stay where they are put
    const relay = createRelay({
      db: e.db,
      config: { databaseUrl: e.database.url },
      log: pino({ level: 'silent' }),
      dispatch: {
        'invoice.flow': flowDispatch({ flows }),
        'batch.process': batchDispatch(batches),
        'event.dispatch': webhooks.dispatch,
      },
    });
    try {
      await relay.runOnce(); // what earlier tests left
      await webhooks.queue.obliterate({ force: true });
      for (const s of [big, small]) {
        const ep = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, {
          url: 'http://127.0.0.1:9/hook',
          events: ['invoice.created'],
        });
        expect(ep.status).toBe(201);
      }
      // Three batches of the big company, then one of the small one.
      const item = (s: Issuer) => ({
        client_id: `cli_${pad(s.client.id)}`,
        lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
      });
      const batchOf = new Map<number, number>();
      for (const [s, k] of [
        [big, 'b1'],
        [big, 'b2'],
        [big, 'b3'],
        [small, 's1'],
      ] as const) {
        const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
          invoices: [{ ...item(s), idempotency_key: k }],
        });
        expect(res.status).toBe(202);
        batchOf.set(Number(String(res.json.id).slice(4)), s.company.id);
      }
      // Six invoices of the big company (an event each), then one of the small one.
      await create(big, 6);
      await create(small, 1);
      await relay.runOnce();

      const B = big.company.id;
      const S = small.company.id;
      const batchOrder = (await takeOrder(batches)).map((j) =>
        batchOf.get((j.data as { batchId: number }).batchId)!,
      );
      const endpointCompany = new Map(
        (
          (await e.db('webhook_endpoints').select('id', 'company_id')) as { id: string; companyId: string }[]
        ).map((r) => [Number(r.id), Number(r.companyId)]),
      );
      const deliveryOrder = (await takeOrder(webhooks.queue)).map((j) =>
        endpointCompany.get(j.data.endpointId)!,
      );
      console.log(`batches queue: ${batchOrder.join(' ')}; webhooks queue: ${deliveryOrder.join(' ')}`);
      expect(batchOrder).toEqual([B, S, B, B]);
      expect(deliveryOrder).toEqual([B, S, B, B, B, B, B]);
    } finally {
      await flows.close();
      await batches.obliterate({ force: true }).catch(() => {});
      await batches.close();
      await webhooks.queue.obliterate({ force: true }).catch(() => {});
      await webhooks.close();
    }
  });
});

describe('Hacienda calls of one process', () => {
  it('a company with one call waiting goes before the rest of another company’s queue', async () => {
    const limiter = createLimiter(2);
    const started: string[] = [];
    const gates: (() => void)[] = [];
    const call = (who: string) =>
      limiter.run(
        () =>
          new Promise<void>((resolve) => {
            started.push(who);
            gates.push(resolve);
          }),
        who[0],
      );
    // Company a fills both places and queues eight more; then company b asks once.
    const all = [...Array.from({ length: 10 }, (_, i) => call(`a${i}`)), call('b0')];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a0', 'a1']);
    // Each finished call hands its place to the next company's turn.
    for (let i = 0; i < 3; i++) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    expect(started).toEqual(['a0', 'a1', 'a2', 'b0', 'a3']);
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    expect(started).toHaveLength(11);
  });
});
