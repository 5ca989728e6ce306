// Scale-out on a Redis Cluster: three masters with one replica each (plain redis-server processes,
// test/helpers/redis-cluster.ts), a private PostgreSQL, two API processes and three worker
// processes with the invoice flow's queues in three shards (QUEUE_SHARDS, platform/shards.ts), three
// companies (one per shard). A steady load of single creates and batches runs while the master
// carrying one company's shard is SIGKILLed and its replica takes over, a worker is SIGKILLed and
// PostgreSQL is restarted. Afterwards: every invoice accepted exactly once, numbering gapless per
// company, one journal entry each, every event delivered, no 5xx but 503s (with Retry-After)
// inside the outage windows, and the queues' keys spread over all three masters. The figures are
// printed. Ports: from SCALEOUT_PORT_BASE (default 24100): PostgreSQL on + 0…4 and the APIs on
// + 10…99 (the first free ones), the cluster's six nodes (and their buses, + 10) in the first free
// block of 20 from + 100 (test/helpers/redis-cluster.ts). All within 24100–24520: below the OS's
// ephemeral range (32768–60999), where the connections of the tests running beside this one leave
// ports in TIME_WAIT that a listener cannot take.
import { createServer, type Server } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { Decimal } from 'decimal.js';
import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../db/connection.ts';
import { ensureDatabase, migrateLatest } from '../db/migrator.ts';
import { verifyWebhookSignature } from '../domain/webhook-signature.ts';
import { QUEUES } from '../jobs/invoice-flow/queues.ts';
import { shardOf, shardPrefixes } from '../platform/shards.ts';
import { buildSimulator, type SimulatorApp } from '../simulator/app.ts';
import { TEST_SECRETS_KEY, testConfig } from './helpers/app.ts';
import { seedIssuer } from './helpers/e2e.ts';
import {
  freePortIn,
  startApiProcess,
  startPostgresServer,
  startWorkerProcess,
  stopProcess,
  type PrivatePostgres,
} from './helpers/processes.ts';
import { startRedisCluster, type RedisClusterHandle } from './helpers/redis-cluster.ts';
import { waitFor } from './helpers/wait.ts';

const BASE = Number(process.env.SCALEOUT_PORT_BASE ?? 24100);
const LOAD_MS = Number(process.env.SCALEOUT_LOAD_MS ?? 30_000);
const PREFIX = '{scale}';
const SHARDS = 3;
const SUBSCRIBED = ['invoice.created', 'invoice.sent', 'invoice.accepted', 'invoice.rejected'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pad = (n: number) => String(n).padStart(12, '0');

let pg: PrivatePostgres | null = null;
let cluster: RedisClusterHandle | null = null;
let sim: SimulatorApp | null = null;
let receiver: Server | null = null;
let db: Db | null = null;
const apis: ChildProcess[] = [];
const workers: (ChildProcess | null)[] = [null, null, null];
let env: Record<string, string> = {};
let apiPorts: number[] = [];
let issuers: Awaited<ReturnType<typeof seedIssuer>>[] = [];
const secrets: string[] = [];
const received = new Map<string, number>();
let badSignatures = 0;

beforeAll(async () => {
  // A port of the range; another program may hold one for a moment (taken as an ephemeral port).
  for (let i = 0; !pg; i++) {
    try {
      pg = await startPostgresServer({ port: BASE + i });
    } catch (err) {
      if (i === 4) throw err;
    }
  }
  const dbUrl = pg.url('factura');
  await ensureDatabase(dbUrl);
  db = createDb({ url: dbUrl, poolMax: 5 });
  await migrateLatest(db);
  cluster = await startRedisCluster(BASE + 100);
  sim = await buildSimulator({ processingDelayMs: 100, logger: false, schemaDir: testConfig().xsdDir });
  const simUrl = await sim.listen({ port: 0, host: '127.0.0.1' });
  receiver = await new Promise<Server>((resolve) => {
    const srv = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const ok = verifyWebhookSignature(raw, String(req.headers['service-signature'] ?? ''), secrets);
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
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
  const receiverPort = (receiver.address() as { port: number }).port;

  // Three companies: in a fresh database their ids are 1, 2, 3, one per shard.
  const config = testConfig({ DATABASE_URL: dbUrl });
  issuers = [];
  for (const idNumber of ['3101123456', '3101654321', '3101777888'])
    issuers.push(await seedIssuer(db, config, idNumber));
  const apiPort = await freePortIn(BASE + 10, BASE + 99);
  apiPorts = [apiPort, await freePortIn(BASE + 10, BASE + 99, [apiPort])];
  env = {
    DATABASE_URL: dbUrl,
    REDIS_CLUSTER_NODES: cluster.nodes,
    QUEUE_PREFIX: PREFIX,
    QUEUE_SHARDS: String(SHARDS),
    SECRETS_KEY: TEST_SECRETS_KEY,
    PUBLIC_URL: `http://127.0.0.1:${apiPorts[0]}`,
    HACIENDA_SANDBOX_IDP_URL: `${simUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
    HACIENDA_SANDBOX_API_URL: `${simUrl}/recepcion-sandbox/v1`,
    HACIENDA_POST_TIMEOUT_MS: '3000',
    HACIENDA_GET_TIMEOUT_MS: '3000',
    STATUS_POLL_BASE_MS: '200',
    STATUS_POLL_MAX_MS: '2000',
    WORKER_LOCK_MS: '8000',
    RECONCILE_EVERY_MS: '1000',
    RECONCILE_STALE_MS: '8000',
    WEBHOOK_BACKOFF_BASE_MS: '200',
    WEBHOOK_MAX_ATTEMPTS: '40',
    WEBHOOK_TIMEOUT_MS: '2000',
  };
  for (const port of apiPorts) apis.push(await startApiProcess(env, port));
  for (let i = 0; i < 3; i++) workers[i] = startWorkerProcess(env);
  for (const s of issuers) {
    const hook = await fetch(`${base(0)}/api/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook`, events: SUBSCRIBED }),
    });
    expect(hook.status).toBe(201);
    secrets.push(((await hook.json()) as { secret: string }).secret);
  }
}, 240_000);

afterAll(async () => {
  await Promise.all([...apis, ...workers].filter(Boolean).map((p) => stopProcess(p!, 'SIGKILL')));
  await db?.destroy();
  await sim?.close();
  receiver?.close();
  await cluster?.stop();
  await pg?.stop();
});

const base = (i: number) => `http://127.0.0.1:${apiPorts[i % 2]}`;

const invoiceBody = (s: (typeof issuers)[number]) => ({
  client_id: `cli_${pad(s.client.id)}`,
  lines: [
    { service_id: `srv_${pad(s.consulting.id)}`, qty: 3 },
    { service_id: `srv_${pad(s.laptop.id)}`, qty: 1 },
  ],
});

interface Answer {
  at: number;
  status: number;
  retryAfter: string | null;
}

describe('scale-out on a Redis Cluster', () => {
  it('keeps every invariant through a master failover, a worker kill and a PostgreSQL restart', async () => {
    const started = Date.now();
    const answers: Answer[] = [];
    const outages: { what: string; from: number; to: number; ms: number }[] = [];
    const created = new Map<string, string>();
    const batchItems = new Map<string, number>();
    let stop = false;
    const post = async (url: string, key: string, body: unknown, headers: Record<string, string> = {}) => {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        const json = (await res.json()) as { id?: string };
        answers.push({ at: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after') });
        return { status: res.status, id: json.id };
      } catch {
        answers.push({ at: Date.now(), status: 0, retryAfter: null });
        return { status: 0, id: undefined };
      }
    };

    // 1. Load: single creates from four clients over the three companies, and a batch of 20
    //    every 2 s; a failed request is sent again with the same keys.
    const singles = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const s = issuers[(w + i) % issuers.length]!;
        const key = `scale-${w}-${i}`;
        for (let attempt = 0; ; attempt++) {
          const r = await post(`${base(i + attempt)}/api/v1/invoices`, s.key, invoiceBody(s), {
            'idempotency-key': key,
          });
          if (r.status === 201) {
            created.set(key, r.id!);
            break;
          }
          await sleep(200);
        }
        await sleep(30);
      }
    });
    const batches = (async () => {
      for (let b = 0; !stop; b++) {
        const s = issuers[b % issuers.length]!;
        const invoices = Array.from({ length: 20 }, (_, i) => ({
          ...invoiceBody(s),
          idempotency_key: `scale-batch-${b}-${i}`,
        }));
        for (let attempt = 0; ; attempt++) {
          const r = await post(`${base(b + attempt)}/api/v1/invoices/batch`, s.key, { invoices });
          if (r.status === 202) {
            batchItems.set(r.id!, invoices.length);
            break;
          }
          await sleep(200);
        }
        await sleep(2_000);
      }
    })();

    // 2. Faults: the master of company 1's shard, a worker, PostgreSQL.
    const at = (ms: number) => sleep(Math.max(0, started + ms - Date.now()));
    const t = LOAD_MS / 30_000;
    const killedShard = shardPrefixes(PREFIX, SHARDS)[shardOf(issuers[0]!.company.id, SHARDS)]!;
    const killedSlot = await cluster!.keySlot(killedShard);
    const chaos = (async () => {
      await at(4_000 * t);
      let from = Date.now();
      const failover = await cluster!.killMasterOf(killedSlot);
      outages.push({ what: 'redis master', from, to: Date.now(), ms: failover.ms });
      await cluster!.restart(failover.killed); // back as a replica of the promoted one
      await at(12_000 * t);
      await stopProcess(workers[1]!, 'SIGKILL');
      await sleep(500);
      workers[1] = startWorkerProcess(env);
      await at(18_000 * t);
      from = Date.now();
      await pg!.restart();
      outages.push({ what: 'postgres', from, to: Date.now(), ms: Date.now() - from });
    })();
    await chaos;
    await at(LOAD_MS);
    stop = true;
    await Promise.all([...singles, batches]);

    // 3. The queues' keys over the masters, while the flows are still there.
    const client = new Cluster(
      cluster!.nodes.split(',').map((hp) => ({ host: '127.0.0.1', port: Number(hp.split(':')[1]) })),
    );
    const spread: Record<string, Record<string, number>> = {};
    try {
      await new Promise((resolve, reject) => {
        client.once('ready', resolve);
        client.once('error', reject);
      });
      // Keys per master, by hash tag.
      for (const node of client.nodes('master')) {
        const name = `${node.options.host}:${node.options.port}`;
        spread[name] = {};
        for (const key of await node.keys('*')) {
          const tag = /^\{[^}]*\}/.exec(key)?.[0] ?? '(none)';
          spread[name]![tag] = (spread[name]![tag] ?? 0) + 1;
        }
      }
    } finally {
      client.disconnect();
    }

    // 4. Everything settles; the invariants. (Stuck: the states per company and the shards' queues.)
    const diagnose = async () => {
      const states = await db!('invoices')
        .groupBy('companyId', 'status')
        .select('companyId', 'status')
        .count('* as n');
      const queues: Record<string, unknown> = {};
      const connection = new Cluster([{ host: '127.0.0.1', port: cluster!.ports[0]! }], {
        redisOptions: { maxRetriesPerRequest: null },
      });
      for (const prefix of shardPrefixes(PREFIX, SHARDS))
        for (const name of Object.values(QUEUES)) {
          const q = new Queue(name, { connection, prefix });
          queues[`${prefix}:${name}`] = await q.getJobCounts(
            'waiting',
            'active',
            'delayed',
            'failed',
            'waiting-children',
          );
          await q.close();
        }
      connection.disconnect();
      console.log('scale-out stuck', JSON.stringify({ states, queues, topology: await cluster!.topology() }));
    };
    // Batches first: a batch recorded late adds invoices after every earlier one has settled.
    const batchIds = [...batchItems.keys()].map((id) => Number(id.replace(/^\D+_/, '')));
    try {
      await waitFor(
        async () =>
          (await db!('batches').whereIn('id', batchIds).whereNot({ status: 'completed' }).count('* as n'))[0]!
            .n == 0,
        60_000,
        500,
        'every batch completed',
      );
      await waitFor(
        async () =>
          Number(
            (await db!('invoices').whereNotIn('status', ['aceptada', 'rechazada']).count('* as n'))[0]!.n,
          ) === 0,
        240_000,
        500,
        'every invoice to reach a terminal state',
      );
    } catch (err) {
      await diagnose();
      throw err;
    }
    const events = await db!('events').whereIn('type', SUBSCRIBED).select('id');
    const eventIds = events.map((e) => `evt_${pad(e.id)}`);
    await waitFor(() => eventIds.every((id) => received.has(id)), 240_000, 500, 'every event delivered');

    const invoices = await db!('invoices').select('id', 'companyId', 'status', 'number', 'clave', 'total');
    const expected = created.size + [...batchItems.values()].reduce((a, b) => a + b, 0);
    const failures = (o: (typeof outages)[number]) =>
      answers.filter((r) => r.status !== 201 && r.status !== 202 && r.at >= o.from);
    const figures = {
      requests: answers.length,
      created: created.size,
      batches: batchItems.size,
      invoices: invoices.length,
      events: eventIds.length,
      deliveries: [...received.values()].reduce((a, b) => a + b, 0),
      status503: answers.filter((r) => r.status === 503).length,
      otherFailures: answers.filter((r) => ![201, 202, 503].includes(r.status)).length,
      outages: outages.map((o) => ({
        what: o.what,
        ms: o.ms,
        // From the fault to the last failed answer it caused (0: no request failed).
        recoveredAfterMs: Math.max(
          0,
          ...failures(o)
            .filter((r) => r.at <= o.to + 5000)
            .map((r) => r.at - o.from),
        ),
      })),
      keysPerMaster: spread,
      simulatorDuplicates: sim!.simulator.counters().duplicates,
    };
    console.log('scale-out figures', JSON.stringify(figures));
    const rejected = await db!('invoices')
      .where({ status: 'rechazada' })
      .select('id', 'companyId', 'number', 'rejectionReason');
    if (rejected.length > 0) console.log('scale-out rejected', JSON.stringify(rejected));
    // Every accepted request has exactly one invoice, every invoice accepted by Hacienda once.
    expect(new Set(created.values()).size).toBe(created.size);
    expect(invoices.length).toBe(expected);
    expect(invoices.filter((i) => i.status === 'aceptada').length).toBe(invoices.length);
    const docs = sim!.simulator.documents().filter((d) => d.state === 'aceptado');
    expect(docs.length).toBe(invoices.length);
    expect(new Set(docs.map((d) => d.clave))).toEqual(new Set(invoices.map((i) => i.clave)));
    // Numbering gapless per company (each has its own series).
    for (const s of issuers) {
      const numbers = invoices
        .filter((i) => Number(i.companyId) === s.company.id)
        .map((i) => Number(i.number))
        .sort((a, b) => a - b);
      expect(numbers.length).toBeGreaterThan(0);
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
    }
    // One journal entry per invoice; the ledger balances.
    const entries = await db!('journal_entries').where({ kind: 'invoice' }).select('invoice_id');
    expect(entries.length).toBe(invoices.length);
    expect(new Set(entries.map((e) => e.invoiceId)).size).toBe(invoices.length);
    const ledger = await db!('journal_lines').sum('debit as d').sum('credit as c').first();
    expect(new Decimal(ledger!.d).eq(ledger!.c)).toBe(true);
    expect(badSignatures).toBe(0);
    // No 5xx but 503, and 503s (with Retry-After) only around an outage.
    const inOutage = (at: number) => outages.some((o) => at >= o.from - 1000 && at <= o.to + 5000);
    expect(answers.filter((r) => r.status >= 500 && r.status !== 503)).toEqual([]);
    expect(answers.filter((r) => r.status === 503 && !inOutage(r.at))).toEqual([]);
    expect(answers.filter((r) => r.status === 503 && !r.retryAfter)).toEqual([]);
    expect(created.size).toBeGreaterThan(50);
    // The shards' keys live on all three masters.
    const shardsOn = Object.values(spread).map(
      (tags) => shardPrefixes(PREFIX, SHARDS).filter((p) => (tags[p] ?? 0) > 10).length,
    );
    expect(shardsOn).toEqual([1, 1, 1]);
  }, 600_000);
});
