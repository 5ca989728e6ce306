// Invoices travel through the pipeline in chunks (jobs/invoice-flow/flow.ts). These tests put several invoices
// in one chunk on purpose — created while no worker runs, so the relay finds them all ready at
// once — and check what the chunk does when one of them goes wrong, when they end differently,
// when a worker dies mid-step and when Redis loses the chunk's jobs.
import type { ChildProcess } from 'node:child_process';
import { FlowProducer } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowDispatch } from '../jobs/invoice-flow/dispatch.ts';
import { createRelay } from '../workers/outbox-relay.ts';
import { createRedis } from '../platform/redis.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { api, flowJobId, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { startWorkerProcess, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const pad = (n: number) => String(n).padStart(12, '0');

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let worker: ChildProcess | null = null;

beforeAll(async () => {
  e = await startE2E({ workers: false, simulator: { processingDelayMs: 50 } });
  s = await seedIssuer(e.db, e.config);
});

afterAll(async () => {
  if (worker) await stopProcess(worker, 'SIGKILL');
  await e.close();
});

/** `n` invoices recorded while no worker runs: their outbox rows wait together. */
async function createWaiting(n: number): Promise<number[]> {
  const created = await Promise.all(
    Array.from({ length: n }, () =>
      api(e, 'POST', '/api/v1/invoices', s.key, {
        client_id: `cli_${pad(s.client.id)}`,
        lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 3 }],
      }),
    ),
  );
  expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
  return created.map((r) => Number(String(r.json.id).slice(4))).sort((a, b) => a - b);
}

async function statuses(ids: number[]): Promise<Record<number, string>> {
  const rows = (await e.db('invoices').whereIn('id', ids).select('id', 'status')) as {
    id: string;
    status: string;
  }[];
  return Object.fromEntries(rows.map((r) => [Number(r.id), r.status]));
}

async function waitUntilFinal(ids: number[], ms = 60_000): Promise<Record<number, string>> {
  let now: Record<number, string> = {};
  await waitFor(
    async () => {
      now = await statuses(ids);
      return ids.every((id) => now[id] === 'aceptada' || now[id] === 'rechazada');
    },
    ms,
    100,
    'every invoice final',
  );
  return now;
}

async function chunksOf(ids: number[]): Promise<Set<string>> {
  return new Set(await e.db('invoices').whereIn('id', ids).pluck('flow_chunk'));
}

/** True once every one of these invoices has its chunk (the relay added its flow). */
async function allChunked(ids: number[]): Promise<boolean> {
  const n = await e.db('invoices').whereIn('id', ids).whereNotNull('flow_chunk').count('* as n');
  return Number(n[0]!.n) === ids.length;
}

/** Issue entries and their reversals (a cash sale's payment at issue: test/payments-at-issue.test.ts). */
async function entries(ids: number[]) {
  return (await e
    .db('journal_entries')
    .whereIn('invoice_id', ids)
    .whereIn('kind', ['invoice', 'invoice_reversal'])
    .select('invoice_id', 'kind')) as {
    invoiceId: string;
    kind: string;
  }[];
}

describe('a chunk of invoices', () => {
  it('one invoice that can never be signed is its own processing error; the others are accepted', async () => {
    const ids = await createWaiting(6);
    const bad = ids[2]!;
    // Its recorded total no longer matches what its lines compute: the document cannot be built.
    await e.db.raw(
      `update invoices set summary = jsonb_set(summary, '{summary,totalComprobante}', '"1.00"') where id = ?`,
      [bad],
    );
    await e.startWorkers();
    try {
      const good = ids.filter((id) => id !== bad);
      await waitFor(async () => {
        const st = await statuses(ids);
        return good.every((id) => st[id] === 'aceptada');
      }, 60_000);
      expect((await chunksOf(ids)).size).toBe(1);
      const row = await e.db('invoices').where({ id: bad }).first();
      expect(row.status).toBe('pendiente');
      expect(row.processingError).toMatchObject({ step: 'sign', permanent: true });
      expect(row.processingError.message).toMatch(/recomputed total differs/);
      expect(row.signedAt).toBeNull();
      // Booked exactly once each, the bad one never; its failure is an event of its own.
      const booked = await entries(ids);
      expect(booked.map((b) => Number(b.invoiceId)).sort((a, b) => a - b)).toEqual(good);
      const failedEvents = await e.db('events').where({ type: 'invoice.processing_failed' }).pluck('data');
      expect(failedEvents.map((d: { id: string }) => d.id)).toEqual([`inv_${pad(bad)}`]);
      // The chunk's flow ended well: its status job completed.
      const jobId = (await flowJobId(e.db, good[0]!, 'status'))!;
      await waitFor(
        async () => (await e.runtime!.queues.status.getJob(jobId))?.isCompleted() ?? false,
        10_000,
      );
    } finally {
      await e.stopWorkers();
    }
  }, 90_000);

  it('invoices of one chunk that reach different verdicts are each recorded with their own event and entries', async () => {
    e.sim.simulator.configure({ forcedRejectionRate: 0.5 });
    try {
      const ids = await createWaiting(16);
      await e.startWorkers();
      const final = await waitUntilFinal(ids);
      expect((await chunksOf(ids)).size).toBe(1);
      const accepted = ids.filter((id) => final[id] === 'aceptada');
      const rejected = ids.filter((id) => final[id] === 'rechazada');
      // By clave hash, half and half: both verdicts are all but certain among 16 (1 in 32,768 not).
      expect(accepted.length).toBeGreaterThan(0);
      expect(rejected.length).toBeGreaterThan(0);
      const booked = await entries(ids);
      const kinds = (id: number) =>
        booked
          .filter((b) => Number(b.invoiceId) === id)
          .map((b) => b.kind)
          .sort();
      for (const id of accepted) expect(kinds(id)).toEqual(['invoice']);
      // A rejection after booking reverses it; one before booking leaves nothing to reverse.
      for (const id of rejected) expect([[], ['invoice', 'invoice_reversal']]).toContainEqual(kinds(id));
      const events = (await e
        .db('events')
        .whereIn('type', ['invoice.accepted', 'invoice.rejected'])
        .select('type', 'data')) as {
        type: string;
        data: { id: string };
      }[];
      for (const id of ids) {
        const mine = events.filter((ev) => ev.data.id === `inv_${pad(id)}`).map((ev) => ev.type);
        expect(mine).toEqual([final[id] === 'aceptada' ? 'invoice.accepted' : 'invoice.rejected']);
      }
      const job = await e.runtime!.queues.status.getJob((await flowJobId(e.db, ids[0]!, 'status'))!);
      await waitFor(async () => (await job?.isCompleted()) ?? false, 10_000);
      expect((await e.runtime!.queues.status.getJob(job!.id!))?.returnvalue).toMatch(
        /aceptado \d+.*rechazado \d+|rechazado \d+.*aceptado \d+/,
      );
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
      await e.stopWorkers();
    }
  }, 90_000);

  it('a chunk whose jobs Redis lost is found by the reconciler and finished, each document sent once', async () => {
    const ids = await createWaiting(8);
    // The relay adds the chunk's flow and writes the chunk on its invoices…
    const flows = new FlowProducer({ connection: e.connection, prefix: e.config.queuePrefix });
    const relay = createRelay({
      db: e.db,
      config: { databaseUrl: e.database.url },
      log: pino({ level: 'silent' }),
      dispatch: { 'invoice.flow': flowDispatch({ flows, chunkSize: 50 }) },
    });
    expect(await relay.runOnce()).toBeGreaterThanOrEqual(1); // outbox rows: a group's invoices share one
    expect(Number((await e.db('outbox').count('* as n'))[0]!.n)).toBe(0); // moved rows leave the outbox
    await flows.close();
    const [chunk] = [...(await chunksOf(ids))];
    expect(chunk).toBeTruthy();
    // …then Redis loses every key of the service (a restart without persistence).
    const redis = createRedis(testRedisUrl(), 'worker');
    const keys = await redis.keys(`${e.config.queuePrefix}:*`);
    expect(keys.some((k) => k.includes(chunk!))).toBe(true);
    await redis.del(...keys);
    redis.disconnect();
    const before = e.sim.simulator.counters();
    await e.startWorkers({ reconcile: { everyMs: 300, staleMs: 60_000 } });
    try {
      const final = await waitUntilFinal(ids);
      expect(Object.values(final).every((st) => st === 'aceptada')).toBe(true);
      const after = e.sim.simulator.counters();
      expect(after.received - before.received).toBe(8);
      expect(after.duplicates - before.duplicates).toBe(0);
      expect((await entries(ids)).length).toBe(8);
    } finally {
      await e.stopWorkers();
    }
  }, 90_000);

  it('a chunk whose worker is killed mid-submit is finished by the next worker: each document received once, booked once', async () => {
    const ids = await createWaiting(10);
    // Hacienda answers slowly, so the kill lands while the chunk's POSTs are in flight.
    e.sim.simulator.configure({ latencyMs: 3000 });
    const env = {
      DATABASE_URL: e.database.url,
      REDIS_URL: testRedisUrl(),
      QUEUE_PREFIX: e.config.queuePrefix,
      SECRETS_KEY: TEST_SECRETS_KEY,
      PUBLIC_URL: e.apiUrl,
      HACIENDA_SANDBOX_IDP_URL: e.config.hacienda.sandbox.idpUrl,
      HACIENDA_SANDBOX_API_URL: e.config.hacienda.sandbox.apiUrl,
      STATUS_POLL_BASE_MS: '200',
      STATUS_POLL_MAX_MS: '1000',
      WORKER_LOCK_MS: '2000',
      RECONCILE_EVERY_MS: '1000',
      RECONCILE_STALE_MS: '30000',
    };
    const before = e.sim.simulator.counters();
    worker = startWorkerProcess(env);
    await waitFor(
      async () =>
        Number(
          (
            await e
              .db('hacienda_submissions')
              .whereIn('invoice_id', ids)
              .where({ outcome: 'sending' })
              .count('* as n')
          )[0]!.n,
        ) >= ids.length,
      120_000,
      50,
      'the chunk mid-submit',
    );
    await stopProcess(worker, 'SIGKILL');
    e.sim.simulator.configure({ latencyMs: 0 });
    worker = startWorkerProcess(env);
    try {
      const final = await waitUntilFinal(ids, 90_000);
      expect(Object.values(final).every((st) => st === 'aceptada')).toBe(true);
      expect((await chunksOf(ids)).size).toBe(1);
      const after = e.sim.simulator.counters();
      // Stored once each; any POST after the kill was a repeat Hacienda answered "ya fue recibido",
      // and the next worker asks before sending, so there is none.
      expect(after.received - before.received).toBe(10);
      expect(after.duplicates - before.duplicates).toBe(0);
      expect((await entries(ids)).length).toBe(10);
      // The killed attempts stay unfinished (their outcome is unknown); each invoice then has one
      // finished attempt, received, made by the next worker after asking Hacienda first.
      const rows = (await e
        .db('hacienda_submissions')
        .whereIn('invoice_id', ids)
        .whereNotNull('finished_at')
        .select('invoice_id', 'outcome')) as { invoiceId: string; outcome: string }[];
      expect(rows.map((r) => Number(r.invoiceId)).sort((a, b) => a - b)).toEqual(ids);
      expect(rows.every((r) => r.outcome === 'received')).toBe(true);
    } finally {
      await stopProcess(worker, 'SIGTERM');
      worker = null;
    }
  }, 240_000);

  it('under a trickle, invoices close behind a relay pass share the next chunk; one after a quiet moment goes at once', async () => {
    const flows = new FlowProducer({ connection: e.connection, prefix: e.config.queuePrefix });
    // Polls far apart: only the outbox notification can move a row within a few seconds.
    const relay = createRelay({
      db: e.db,
      config: { databaseUrl: e.database.url },
      log: pino({ level: 'silent' }),
      dispatch: { 'invoice.flow': flowDispatch({ flows, chunkSize: 50 }) },
      pollMs: 20_000,
      listeningPollMs: 20_000,
      gatherMs: 5000,
    });
    // Rows earlier tests left in the outbox go first, so the start's own pass moves none and the
    // lone invoice below comes after a quiet moment.
    while ((await relay.runOnce()) > 0);
    await relay.start();
    try {
      const [alone] = await createWaiting(1);
      await waitFor(() => allChunked([alone!]), 4000, 50, 'the lone invoice chunked');
      const close = await createWaiting(3);
      await waitFor(() => allChunked(close), 15_000, 50, 'the three chunked');
      const chunks = await chunksOf(close);
      expect(chunks.size).toBe(1);
      expect(chunks.has([...(await chunksOf([alone!]))][0]!)).toBe(false);
    } finally {
      await relay.stop();
      await flows.close();
    }
  }, 60_000);

  it('a pass whose dispatch fails leaves the rows it took in the outbox, and the next pass takes them in order', async () => {
    const quiet = { db: e.db, config: { databaseUrl: e.database.url }, log: pino({ level: 'silent' }) };
    const ids = await createWaiting(3);
    const outbox = async (kind?: string) =>
      (
        (await e
          .db('outbox')
          .where(kind ? { kind } : {})
          .orderBy('id')
          .select('id')) as { id: string }[]
      ).map((r) => Number(r.id));
    const all = await outbox();
    const flowRows = await outbox('invoice.flow');
    expect(flowRows.length).toBeGreaterThanOrEqual(1);
    const failing = createRelay({
      ...quiet,
      dispatch: {
        'invoice.flow': async () => {
          throw new Error('Redis unreachable');
        },
      },
    });
    await expect(failing.runOnce()).rejects.toThrow('Redis unreachable');
    expect(await outbox()).toEqual(all); // the rollback put back every row the pass took
    expect(await allChunked(ids)).toBe(false);
    const taken: number[] = [];
    const working = createRelay({
      ...quiet,
      dispatch: {
        'invoice.flow': async (_trx, rows) => {
          taken.push(...rows.map((r) => r.id));
        },
      },
    });
    expect(await working.runOnce()).toBe(all.length);
    expect(taken).toEqual(flowRows);
    expect(await outbox()).toEqual([]);
  });
});
