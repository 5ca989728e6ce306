// The fault suite: two API processes and three worker processes against the Hacienda simulator,
// with private PostgreSQL and Redis instances (so no other test is disturbed).
// 1. Invoices created continuously while workers are killed (SIGKILL) again and again, Redis and
//    PostgreSQL are restarted, Hacienda answers 5xx, hangs, rate-limits and expires tokens, and
//    the webhook receiver goes down.
// 2. Redis killed and restarted empty under a backlog of thousands of invoices in flight (batches
//    still being recorded among them), with the default stale threshold: everything in flight
//    must be moving again within 30 s of Redis's return, re-created by one reconciler.
// The load carries one document that cannot be booked (its entry overflows a ledger narrowed for
// this database only: the API refuses one that would overflow numeric(18,5) itself): it must fail
// alone and visibly, every other document accepted and booked once.
// After each, the invariants are checked and their counts printed.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { Decimal } from 'decimal.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../db/connection.ts';
import { ensureDatabase, migrateLatest } from '../db/migrator.ts';
import { verifyWebhookSignature } from '../domain/webhook-signature.ts';
import { chunkJobId } from '../jobs/invoice-flow/queues.ts';
import { buildSimulator, type SimulatorApp } from '../simulator/app.ts';
import { TEST_SECRETS_KEY, testConfig } from './helpers/app.ts';
import { seedIssuer } from './helpers/e2e.ts';
import {
  freePort,
  startApiProcess,
  startPostgresServer,
  startRedisServer,
  startWorkerProcess,
  stopProcess,
  type PrivatePostgres,
} from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const LOAD_MS = Number(process.env.FAULT_LOAD_MS ?? 45_000);
/** Invoices sent as batches of 1,000 for the Redis-loss case. */
const BACKLOG = Number(process.env.FAULT_BACKLOG ?? 3_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pad = (n: number) => String(n).padStart(12, '0');
const PREFIX = '{fault}';
const SUBSCRIBED = ['invoice.created', 'invoice.sent', 'invoice.accepted', 'invoice.rejected'];

let pg: PrivatePostgres | null = null;
let redis: ChildProcess | null = null;
let redisPort = 0;
let sim: SimulatorApp | null = null;
let receiver: Server | null = null;
let db: Db | null = null;
const apis: ChildProcess[] = [];
const workers: ((ChildProcess & { logFile: string }) | null)[] = [null, null, null];
let env: Record<string, string> = {};
let apiPorts: number[] = [];
let s: Awaited<ReturnType<typeof seedIssuer>>;
const received = new Map<string, number>();
let badSignatures = 0;
let startReceiver: () => Promise<Server>;

beforeAll(async () => {
  // Private Postgres and Redis, the simulator, a webhook receiver.
  pg = await startPostgresServer();
  const dbUrl = pg.url('factura');
  await ensureDatabase(dbUrl);
  db = createDb({ url: dbUrl, poolMax: 5 });
  await migrateLatest(db);
  // The ledger narrowed to numeric(12,2): an entry of ₡10,000,000,000 or more fails with Postgres's
  // own "numeric field overflow", as numeric(18,5) does at ₡10^13.
  await db.raw(`alter table journal_lines add constraint journal_lines_narrow_test
    check (debit::numeric(12, 2) is not null and credit::numeric(12, 2) is not null)`);
  redisPort = await freePort();
  redis = await startRedisServer(redisPort);
  sim = await buildSimulator({
    processingDelayMs: 100,
    logger: false,
    timeoutHangMs: 3_000,
    schemaDir: testConfig().xsdDir,
  });
  const simUrl = await sim.listen({ port: 0, host: '127.0.0.1' });

  let secret = '';
  const receiverPort = await freePort();
  startReceiver = () =>
    new Promise<Server>((resolve) => {
      const srv = createServer((req, res) => {
        let raw = '';
        req.on('data', (c: Buffer) => (raw += c.toString()));
        req.on('end', () => {
          const ok = verifyWebhookSignature(raw, String(req.headers['service-signature'] ?? ''), [secret]);
          if (!ok.ok) {
            badSignatures += 1;
            res.writeHead(400).end();
            return;
          }
          const id = (JSON.parse(raw) as { id: string }).id;
          received.set(id, (received.get(id) ?? 0) + 1);
          res.writeHead(200).end();
        });
      });
      srv.listen(receiverPort, '127.0.0.1', () => resolve(srv));
    });
  receiver = await startReceiver();

  // An issuer, two API processes, three worker processes.
  const config = testConfig({ DATABASE_URL: dbUrl });
  s = await seedIssuer(db, config);
  // The load is far below what a real issuer sends, but above the business plan's default.
  await db('companies').where({ id: s.company.id }).update({ rateLimitPerSecond: 100_000 });
  apiPorts = [await freePort(), await freePort()];
  env = {
    DATABASE_URL: dbUrl,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    QUEUE_PREFIX: PREFIX,
    SECRETS_KEY: TEST_SECRETS_KEY,
    PUBLIC_URL: `http://127.0.0.1:${apiPorts[0]}`,
    HACIENDA_SANDBOX_IDP_URL: `${simUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
    HACIENDA_SANDBOX_API_URL: `${simUrl}/recepcion-sandbox/v1`,
    HACIENDA_POST_TIMEOUT_MS: '1500',
    HACIENDA_GET_TIMEOUT_MS: '1500',
    STATUS_POLL_BASE_MS: '200',
    STATUS_POLL_MAX_MS: '2000',
    WORKER_LOCK_MS: '4000',
    RECONCILE_EVERY_MS: '1000',
    RECONCILE_STALE_MS: '8000',
    WEBHOOK_BACKOFF_BASE_MS: '200',
    WEBHOOK_MAX_ATTEMPTS: '40',
    WEBHOOK_TIMEOUT_MS: '2000',
  };
  for (const port of apiPorts) apis.push(await startApiProcess(env, port));
  for (let i = 0; i < 3; i++) workers[i] = startWorkerProcess(env);
  const hook = await fetch(`${base(0)}/api/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook`, events: SUBSCRIBED }),
  });
  expect(hook.status).toBe(201);
  secret = ((await hook.json()) as { secret: string }).secret;
}, 180_000);

afterAll(async () => {
  await Promise.all([...apis, ...workers].filter(Boolean).map((p) => stopProcess(p!, 'SIGKILL')));
  await db?.destroy();
  await sim?.close();
  receiver?.close();
  if (redis) await stopProcess(redis, 'SIGKILL');
  await pg?.stop();
});

const base = (i: number) => `http://127.0.0.1:${apiPorts[i % 2]}`;

const invoiceBody = () => ({
  client_id: `cli_${pad(s.client.id)}`,
  lines: [
    { service_id: `srv_${pad(s.consulting.id)}`, qty: 3 },
    { service_id: `srv_${pad(s.laptop.id)}`, qty: 1 },
  ],
});

/** 100 laptops at 450,000 USD + IVA, × 500: ₡25,425,000,000, beyond the narrowed ledger. */
const unbookableBody = () => ({
  client_id: `cli_${pad(s.client.id)}`,
  currency: 'USD',
  exchange_rate: '500',
  lines: [{ service_id: `srv_${pad(s.laptop.id)}`, qty: 100 }],
});
/** The unbookable documents of the load (numeric ids). */
const unbookable: number[] = [];

/** Every invoice final and every subscribed event delivered; then the invariants, over all invoices. */
async function settleAndCheck(timeoutMs: number) {
  const terminal = async () => {
    const r = await db!('invoices').whereNotIn('status', ['aceptada', 'rechazada']).count('* as n');
    return Number(r[0]!.n) === 0;
  };
  await waitFor(terminal, timeoutMs, 500, 'every invoice to reach a terminal state');
  const events = await db!('events')
    .where({ companyId: s.company.id })
    .whereIn('type', SUBSCRIBED)
    .select('id');
  const eventIds = events.map((e) => `evt_${pad(e.id)}`);
  await waitFor(() => eventIds.every((id) => received.has(id)), timeoutMs, 500, 'every event delivered');

  const invoices = await db!('invoices').select('id', 'status', 'number', 'clave', 'total');
  // Every invoice reached a terminal state, all accepted (no rejection was forced), the unbookable
  // one too: Hacienda's verdict is recorded whatever became of its booking.
  expect(invoices.filter((i) => i.status === 'aceptada').length).toBe(invoices.length);
  // Consecutivos gapless and unique on the one series.
  const numbers = invoices.map((i) => Number(i.number)).sort((a, b) => a - b);
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  // The unbookable document failed alone and visibly: its permanent processing error and event,
  // nothing booked, nothing paid.
  expect(unbookable).toHaveLength(1);
  const failed = await db!('invoices')
    .whereIn('id', unbookable)
    .select('id', 'processing_error', 'accounted_at');
  for (const f of failed) {
    expect(f.processingError).toMatchObject({ step: 'accounting', code: 'booking_failed', permanent: true });
    expect(f.processingError.message).toMatch(/numeric field overflow/);
    expect(f.accountedAt).toBeNull();
  }
  const failedEvents = await db!('events').where({ type: 'invoice.processing_failed' }).pluck('data');
  expect(failedEvents.map((d: { id: string }) => d.id)).toEqual(unbookable.map((id) => `inv_${pad(id)}`));
  const booked = invoices.filter((i) => !unbookable.includes(Number(i.id)));
  // Exactly one journal entry per other issued invoice; the ledger balances.
  const entries = await db!('journal_entries').where({ kind: 'invoice' }).select('invoice_id');
  expect(entries.length).toBe(booked.length);
  expect(new Set(entries.map((e) => Number(e.invoiceId)))).toEqual(new Set(booked.map((i) => Number(i.id))));
  const ledger = await db!('journal_lines').sum('debit as d').sum('credit as c').first();
  expect(new Decimal(ledger!.d).eq(ledger!.c)).toBe(true);
  // The ledger is in centavos: each invoice's receivable is its total rounded to centavos; each (a
  // cash sale) was paid at issue exactly once, for that same amount.
  const total = booked.reduce(
    (a, i) => a.plus(new Decimal(i.total).toDecimalPlaces(2, Decimal.ROUND_HALF_UP)),
    new Decimal(0),
  );
  const debits = (await db!('journal_entries as j')
    .join('journal_lines as l', 'l.entry_id', 'j.id')
    .groupBy('j.kind')
    .select('j.kind')
    .sum('l.debit as d')) as { kind: string; d: string }[];
  const debitOf = (kind: string) => new Decimal(debits.find((x) => x.kind === kind)?.d ?? 0).toFixed(5);
  expect(debitOf('invoice')).toBe(total.toFixed(5));
  expect(debitOf('payment')).toBe(total.toFixed(5));
  expect(new Decimal(ledger!.d).toFixed(5)).toBe(total.times(2).toFixed(5));
  const atIssue = await db!('payments').where({ atIssue: true }).select('invoice_id');
  expect(atIssue.length).toBe(booked.length);
  expect(new Set(atIssue.map((p) => p.invoiceId)).size).toBe(booked.length);
  // Exactly one accepted submission per clave.
  const docs = sim!.simulator.documents().filter((d) => d.state === 'aceptado');
  expect(docs.length).toBe(invoices.length);
  expect(new Set(docs.map((d) => d.clave))).toEqual(new Set(invoices.map((i) => i.clave)));
  // Every event delivered at least once, with a valid signature.
  expect(eventIds.every((id) => received.has(id))).toBe(true);
  expect(badSignatures).toBe(0);
  return {
    invoices: invoices.length,
    events: eventIds.length,
    deliveries: [...received.values()].reduce((a, b) => a + b, 0),
    simulatorAccepted: sim!.simulator.counters().accepted,
    simulatorDuplicates: sim!.simulator.counters().duplicates,
  };
}

describe('fault suite', () => {
  it('keeps every invariant through kills, restarts, Hacienda faults and a receiver outage', async () => {
    // 1. Load: invoices created continuously; a failed request is retried with its key.
    const started = Date.now();
    const outages: { from: number; to: number; what: string }[] = [];
    const responses: { at: number; status: number }[] = [];
    const created = new Map<string, string>();
    let stop = false;
    const body = JSON.stringify(invoiceBody());
    const load = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const key = `fault-${w}-${i}`;
        // One document of the load cannot be booked: sent early, so its chunk meets the chaos.
        const poisoned = w === 0 && i === 20;
        for (let attempt = 0; ; attempt++) {
          try {
            const res = await fetch(`${base(i + attempt)}/api/v1/invoices`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${s.key}`,
                'content-type': 'application/json',
                'idempotency-key': key,
              },
              body: poisoned ? JSON.stringify(unbookableBody()) : body,
              signal: AbortSignal.timeout(10_000),
            });
            const json = (await res.json()) as { id?: string };
            responses.push({ at: Date.now(), status: res.status });
            if (res.status === 201) {
              created.set(key, json.id!);
              if (poisoned) unbookable.push(Number(json.id!.slice(4)));
              break;
            }
          } catch {
            responses.push({ at: Date.now(), status: 0 });
          }
          await sleep(200);
        }
        await sleep(20);
      }
    });

    // 2. Chaos.
    const at = (ms: number) => sleep(Math.max(0, started + ms - Date.now()));
    const killWorker = async (i: number) => {
      await stopProcess(workers[i]!, 'SIGKILL');
      await sleep(500);
      workers[i] = startWorkerProcess(env);
    };
    const chaos = (async () => {
      const t = LOAD_MS / 45_000;
      await at(3_000 * t);
      await killWorker(0);
      await at(7_000 * t);
      let from = Date.now();
      await stopProcess(redis!, 'SIGKILL');
      await sleep(2_000);
      redis = await startRedisServer(redisPort);
      outages.push({ from, to: Date.now() + 3_000, what: 'redis' });
      await at(13_000 * t);
      await killWorker(1);
      await at(16_000 * t);
      from = Date.now();
      await pg!.restart();
      outages.push({ from, to: Date.now() + 3_000, what: 'postgres' });
      await at(20_000 * t);
      sim!.simulator.configure({ serverErrorRate: 0.3 });
      await at(26_000 * t);
      sim!.simulator.configure({ serverErrorRate: 0, timeoutRate: 0.1 });
      await killWorker(2);
      await at(30_000 * t);
      sim!.simulator.configure({ timeoutRate: 0, rateLimitedRate: 0.3 });
      await at(34_000 * t);
      sim!.simulator.configure({ rateLimitedRate: 0, tokenLifetimeSeconds: 2, refreshLifetimeSeconds: 4 });
      sim!.simulator.revokeTokens();
      await at(37_000 * t);
      receiver!.close();
      receiver!.closeAllConnections();
      await killWorker(0);
      await at(43_000 * t);
      receiver = await startReceiver();
      sim!.simulator.configure({ tokenLifetimeSeconds: 300, refreshLifetimeSeconds: 1800 });
    })();
    await chaos;
    await at(LOAD_MS);
    stop = true;
    await Promise.all(load);

    // 3. Everything settles; the invariants.
    const settled = await settleAndCheck(180_000);
    const counts = {
      requests: responses.length,
      created: created.size,
      ...settled,
      status503: responses.filter((r) => r.status === 503).length,
      otherFailures: responses.filter((r) => r.status !== 201 && r.status !== 503).length,
    };
    console.log('fault suite invariant counts', JSON.stringify(counts));

    // Every accepted create request has exactly one invoice (and no invoice lacks a request).
    expect(new Set(created.values()).size).toBe(created.size);
    expect(settled.invoices).toBe(created.size);
    // No 5xx other than 503, and 503s only around an outage.
    const inOutage = (t: number) => outages.some((o) => t >= o.from - 1000 && t <= o.to + 5000);
    expect(responses.filter((r) => r.status >= 500 && r.status !== 503)).toEqual([]);
    expect(responses.filter((r) => r.status === 503 && !inOutage(r.at))).toEqual([]);
    expect(counts.created).toBeGreaterThan(50);
  }, 600_000);

  it(`Redis restarted empty under a backlog of ${BACKLOG} invoices: all in flight again within 30 s`, async () => {
    // 1. Workers with the production reconciler settings (stale after 120 s, a pass every 30 s):
    //    only noticing the empty Redis itself can bring the work back within 30 s.
    const before = Number((await db!('invoices').count('* as n'))[0]!.n);
    const prodEnv = { ...env, RECONCILE_EVERY_MS: '30000', RECONCILE_STALE_MS: '120000' };
    for (let i = 0; i < workers.length; i++) {
      await stopProcess(workers[i]!, 'SIGTERM');
      workers[i] = startWorkerProcess(prodEnv);
    }

    // 2. The backlog: batches of 1,000, recorded by the workers while earlier ones flow.
    const batchIds: string[] = [];
    for (let b = 0; b < BACKLOG / 1000; b++) {
      const invoices = Array.from({ length: 1000 }, (_, i) => ({
        ...invoiceBody(),
        idempotency_key: `backlog-${b}-${i}`,
      }));
      const res = await fetch(`${base(b)}/api/v1/invoices/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ invoices }),
      });
      expect(res.status).toBe(202);
      batchIds.push(((await res.json()) as { id: string }).id);
    }
    const recorded = async () => Number((await db!('invoices').count('* as n'))[0]!.n) - before;
    await waitFor(
      async () => (await recorded()) >= BACKLOG * 0.8,
      300_000,
      200,
      'most of the backlog recorded',
    );

    // 3. Redis dies and comes back empty.
    const inFlight = async () =>
      Number((await db!('invoices').whereIn('status', ['pendiente', 'enviada']).count('* as n'))[0]!.n);
    const atWipe = {
      inFlight: await inFlight(),
      recorded: await recorded(),
      batchesProcessing: Number((await db!('batches').where({ status: 'processing' }).count('* as n'))[0]!.n),
      accepted: Number((await db!('invoices').where({ status: 'aceptada' }).count('* as n'))[0]!.n),
    };
    await stopProcess(redis!, 'SIGKILL');
    await sleep(1_000);
    redis = await startRedisServer(redisPort);
    const back = Date.now();

    // 4. Recovery: every invoice in flight has its flow (the status job is its root) and every
    //    batch still processing has its job, checked in Redis by this test itself.
    const probe = new Redis({ port: redisPort, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    probe.on('error', () => {});
    let recoveryMs = -1;
    try {
      const allCarried = async () => {
        // An invoice is carried by the chunk written on it (none yet: not carried).
        const chunks = (await db!('invoices')
          .whereIn('status', ['pendiente', 'enviada'])
          .pluck('flow_chunk')) as (string | null)[];
        if (chunks.includes(null)) return false;
        const batches = (await db!('batches').where({ status: 'processing' }).pluck('id')) as number[];
        const p = probe.pipeline();
        for (const chunk of new Set(chunks))
          p.exists(`${PREFIX}:invoice-status:${chunkJobId(chunk!, 'status')}`);
        for (const id of batches) p.exists(`${PREFIX}:invoice-batches:batch-${id}`);
        const res = (await p.exec()) ?? [];
        return res.every(([err, n]) => !err && n === 1);
      };
      await waitFor(allCarried, 300_000, 250, 'everything in flight carried by Redis again');
      recoveryMs = Date.now() - back;
    } finally {
      probe.disconnect();
    }

    // 5. Who re-created what: one sweep, by one worker, with no more flows than were in flight
    //    (its log line follows the last re-created page by a moment).
    const sweepLines = () =>
      workers
        .flatMap((w) => readFileSync(w!.logFile, 'utf8').split('\n'))
        .filter((line) => line.includes('Redis had lost its data'))
        .map((line) => JSON.parse(line) as { invoices: number; batches: number; ms: number });
    await waitFor(() => sweepLines().length > 0, 60_000, 100, 'the sweep to be logged');
    const sweeps = sweepLines();
    const recreated = sweeps.reduce((a, x) => a + x.invoices, 0);
    console.log(
      'fault suite Redis-loss recovery',
      JSON.stringify({ backlog: BACKLOG, atWipe, recoveryMs, sweeps }),
    );
    expect(recoveryMs).toBeGreaterThanOrEqual(0);
    expect(recoveryMs).toBeLessThan(30_000);
    expect(sweeps).toHaveLength(1);
    expect(recreated).toBeGreaterThan(0);
    expect(recreated).toBeLessThanOrEqual(before + BACKLOG - atWipe.accepted);

    // 6. Everything settles, every batch complete, nothing lost or doubled.
    const settled = await settleAndCheck(900_000);
    console.log('fault suite Redis-loss invariant counts', JSON.stringify(settled));
    const batchStates = await db!('batches')
      .whereIn(
        'id',
        batchIds.map((id) => Number(id.replace(/^\D+_/, ''))),
      )
      .pluck('status');
    expect(batchStates).toEqual(batchIds.map(() => 'completed'));
    expect(settled.invoices).toBe(before + BACKLOG);
    expect(sweepLines()).toHaveLength(1);
  }, 1_200_000);
});
