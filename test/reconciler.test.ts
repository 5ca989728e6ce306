// The reconciler's passes, run directly against real Postgres and Redis (no job is processed:
// there are no workers, so what the passes re-create stays in Redis to be looked at). Invoices
// and a batch recorded through the API with no relay running have no jobs at all, exactly as
// after Redis lost its data.
import { randomBytes } from 'node:crypto';
import { FlowProducer, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../platform/redis.ts';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../db/connection.ts';
import { QUEUES } from '../jobs/invoice-flow/queues.ts';
import { BATCH_QUEUE, batchWork } from '../jobs/batches/work.ts';
import { createRedis } from '../platform/redis.ts';
import { markerKey, RECONCILER_LOCK, reconcileOnce, type ReconcilerOptions } from '../workers/reconciler.ts';
import { startReconciler } from '../workers/reconcile-loop.ts';
import { invoiceWork } from '../jobs/invoice-flow/reconcile.ts';
import { createQueues } from '../jobs/invoice-flow/queues.ts';
import { api, flowJobId, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

const N = 35;
const pad = (n: number) => String(n).padStart(12, '0');
const log = pino({ level: 'silent' });

/** What one worker process has: its own pool, Redis connection, queues and flow producer. */
interface Proc {
  db: Db;
  redis: RedisClient;
  queues: ReturnType<typeof createQueues>;
  batches: Queue;
  flows: FlowProducer;
  options(extra?: Partial<ReconcilerOptions>): ReconcilerOptions;
  close(): Promise<void>;
}

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const procs: Proc[] = [];
let invoiceIds: number[] = [];
let batchId: number;

function startProc(): Proc {
  const db = createDb({ url: e.database.url, poolMax: 4 });
  const redis = createRedis('redis://127.0.0.1:6379', 'worker');
  const prefix = e.config.queuePrefix;
  const queues = createQueues(e.connection, prefix);
  const batches = new Queue(BATCH_QUEUE, { connection: e.connection, prefix });
  const flows = new FlowProducer({ connection: e.connection, prefix });
  return {
    db,
    redis,
    queues,
    batches,
    flows,
    options: (extra = {}) => ({
      db,
      redis,
      queuePrefix: prefix,
      log,
      work: [
        batchWork(db, batches),
        invoiceWork(db, flows, { of: () => queues, prefixOf: () => prefix }, 50),
      ],
      staleMs: 0,
      budgetMs: 60_000,
      ...extra,
    }),
    async close() {
      await flows.close();
      await Promise.all([...Object.values(queues), batches].map((q) => q.close()));
      redis.disconnect();
      await db.destroy();
    },
  };
}

/** How many in-flight invoices have at least one live job of their flow (status, the root, is enough). */
async function invoicesWithLiveFlow(p: Proc): Promise<number> {
  const states = await Promise.all(
    invoiceIds.map(async (id) => {
      const jobId = await flowJobId(e.db, id, 'status');
      return jobId ? (await p.queues.status.getJob(jobId))?.getState() : undefined;
    }),
  );
  // A job with a place in its company's turn (a priority) waits as `prioritized`.
  return states.filter((st) => st === 'waiting-children' || st === 'waiting' || st === 'prioritized').length;
}

/** Redis loses every key of this test's prefix (what a restart without persistence does to it)… */
async function wipeRedis(p: Proc, pattern = '*'): Promise<void> {
  const keys = await p.redis.keys(`${e.config.queuePrefix}:${pattern}`);
  if (keys.length) await p.redis.del(...keys);
}

/** …or only the invoice flows' keys, the marker surviving (as after a restart from an old snapshot). */
async function dropInvoiceJobs(p: Proc): Promise<void> {
  for (const queue of Object.values(QUEUES)) await wipeRedis(p, `${queue}:*`);
}

beforeAll(async () => {
  e = await startE2E({ workers: false });
  s = await seedIssuer(e.db, e.config);
  const body = {
    client_id: `cli_${pad(s.client.id)}`,
    lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
  };
  const created = await Promise.all(
    Array.from({ length: N }, () => api(e, 'POST', '/api/v1/invoices', s.key, body)),
  );
  invoiceIds = created.map((r) => Number(String(r.json.id).slice(4))).sort((a, b) => a - b);
  const batch = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
    invoices: [{ ...body, idempotency_key: `rb-${randomBytes(4).toString('hex')}` }],
  });
  expect(batch.status).toBe(202);
  batchId = Number(String(batch.json.id).replace(/^\D+_/, ''));
  for (let i = 0; i < 3; i++) procs.push(startProc());
});

afterAll(async () => {
  const p = procs[0]!;
  await Promise.all([...Object.values(p.queues), p.batches].map((q) => q.obliterate({ force: true })));
  await p.redis.del(markerKey(e.config.queuePrefix));
  await Promise.all(procs.map((x) => x.close()));
  await e.close();
});

describe('the reconciler', () => {
  it('three processes at once: one pass runs under the lock and re-creates each lost flow once', async () => {
    const results = await Promise.all(procs.map((p) => reconcileOnce(p.options())));
    // The first pass found no marker (Redis never had this prefix): a sweep of everything.
    const sweeps = results.filter((r) => r.sweep);
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]).toMatchObject({ ran: true, settled: true, recreated: { invoices: N, batches: 1 } });
    // Any other pass that got the lock afterwards found everything alive.
    const total = results.reduce((a, r) => a + (r.recreated.invoices ?? 0) + (r.recreated.batches ?? 0), 0);
    expect(total).toBe(N + 1);
    expect(await invoicesWithLiveFlow(procs[0]!)).toBe(N);
    expect(await (await procs[0]!.batches.getJob(`batch-${batchId}`))?.getState()).toBe('prioritized');
    expect(await procs[0]!.redis.hget(markerKey(e.config.queuePrefix), 'state')).toBe('ok');
  });

  it('a Redis that lost its data is swept at once, whatever the stale threshold', async () => {
    const p = procs[1]!;
    await wipeRedis(p);
    expect(await invoicesWithLiveFlow(p)).toBe(0);
    // Two invoices further along: one signed, one received by Hacienda and booked.
    const [booked, signed] = invoiceIds;
    await e.db('invoices').where({ id: signed }).update({ signedAt: e.db.fn.now() });
    await e
      .db('invoices')
      .where({ id: booked })
      .update({ status: 'enviada', signedAt: e.db.fn.now(), accountedAt: e.db.fn.now() });
    // The marker went with the data: the next pass sweeps, although nothing is an hour old.
    const r = await reconcileOnce(p.options({ staleMs: 3_600_000 }));
    expect(r).toMatchObject({
      ran: true,
      sweep: true,
      settled: true,
      recreated: { invoices: N, batches: 1 },
    });
    expect(await invoicesWithLiveFlow(p)).toBe(N);
    // Each re-created from the first step it still needs.
    const present = async (id: number) =>
      (
        await Promise.all(
          (['sign', 'submit', 'accounting', 'status'] as const).map(async (step) =>
            (await p.queues[step].getJob((await flowJobId(e.db, id, step))!)) ? step : null,
          ),
        )
      ).filter(Boolean);
    expect(await present(booked!)).toEqual(['status']);
    expect(await present(signed!)).toEqual(['submit', 'accounting', 'status']);
    expect(await present(invoiceIds[2]!)).toEqual(['sign', 'submit', 'accounting', 'status']);
    await e
      .db('invoices')
      .whereIn('id', [booked!, signed!])
      .update({ status: 'pendiente', signedAt: null, accountedAt: null });
  });

  it('routine passes look only at stale rows, and each goes on from where the last stopped', async () => {
    const p = procs[2]!;
    await dropInvoiceJobs(p);
    expect(await reconcileOnce(p.options({ staleMs: 3_600_000 }))).toMatchObject({
      sweep: false,
      recreated: { invoices: 0 },
    });
    // With a page of 10 and no time budget, each pass walks one page past the last one's end.
    const perPass: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await reconcileOnce(p.options({ pageSize: 10, budgetMs: 0 }));
      perPass.push(r.recreated.invoices!);
    }
    expect(perPass).toEqual([10, 10, 10, 5, 0]);
    expect(await invoicesWithLiveFlow(p)).toBe(N);
  });

  it('a flow whose job failed for good is cleared and added again', async () => {
    const p = procs[0]!;
    const id = invoiceIds[0]!;
    // The chunk of the first page (the last test's first pass made it) is made again under the
    // same name, since it holds the same invoices: its failed job is in the way.
    const jobId = (await flowJobId(e.db, id, 'status'))!;
    const chunk = (await e.db('invoices').where({ id }).first('flow_chunk')).flowChunk as string;
    const members = (await e.db('invoices').where({ flow_chunk: chunk }).pluck('id')).map(Number);
    await dropInvoiceJobs(p);
    // Only the status job, failed for good (its attempts used up, as a transient fault would).
    await p.queues.status.add('invoice.status', { v: 2, chunk, invoiceIds: members }, { jobId });
    const failer = new Worker(
      QUEUES.status,
      async () => {
        throw new UnrecoverableError('gone for good');
      },
      { connection: e.connection, prefix: e.config.queuePrefix },
    );
    try {
      await waitFor(
        async () => (await (await p.queues.status.getJob(jobId))?.getState()) === 'failed',
        10_000,
        20,
        'the status job to fail',
      );
    } finally {
      await failer.close();
    }
    expect(await (await p.queues.status.getJob(jobId))?.getState()).toBe('failed');
    // The last pass stopped after the first page: this one goes on to the end, the next wraps round.
    const a = await reconcileOnce(p.options());
    const b = await reconcileOnce(p.options());
    expect([a.recreated.invoices, b.recreated.invoices]).toEqual([N - 10, 10]);
    expect(await flowJobId(e.db, id, 'status')).toBe(jobId);
    expect(await (await p.queues.status.getJob(jobId))?.getState()).toBe('waiting-children');
  });

  it('while another process sweeps, a process takes no new jobs; it takes them again once the sweep is done', async () => {
    const p = procs[1]!;
    const key = markerKey(e.config.queuePrefix);
    const calls: string[] = [];
    // Another process holds the lock and is sweeping.
    const holder = await procs[2]!.db.transaction();
    await holder.raw('select pg_advisory_xact_lock(?, ?)', [...RECONCILER_LOCK]);
    await p.redis.hset(key, 'state', 'sweeping');
    const loop = startReconciler({
      ...p.options(),
      everyMs: 60_000,
      watchMs: 50,
      duringSweep: {
        start: async () => void calls.push('hold'),
        end: () => void calls.push('take'),
      },
    });
    try {
      await waitFor(() => calls.includes('hold'), 10_000, 20, 'the process to hold back');
      expect(await loop.runNow()).toMatchObject({ ran: false });
      await p.redis.hset(key, 'state', 'ok');
      await waitFor(() => calls.includes('take'), 10_000, 20, 'the process to take jobs again');
      expect(calls).toEqual(['hold', 'take']);
    } finally {
      await loop.stop();
      await holder.rollback();
    }
  });
});
