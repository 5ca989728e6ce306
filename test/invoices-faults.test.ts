// Faults during issuance: a worker process killed with SIGKILL in the middle of 500 invoices,
// and Redis stopped (and restarted empty) while invoices are being created. Postgres is the
// source of truth: everything recorded completes, exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import type { ChildProcess } from 'node:child_process';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { freePort, startRedisServer, startWorkerProcess, stopProcess } from './helpers/processes.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { waitFor } from './helpers/wait.ts';

const pad = (n: number) => String(n).padStart(12, '0');

async function statusCounts(e: E2E) {
  const rows = await e.db('invoices').groupBy('status').select('status').count('* as n');
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])) as Record<string, number>;
}

async function checkExactlyOnce(e: E2E, expected: number) {
  // One invoice entry per issued invoice, each balanced; one accepted document per clave.
  const entries = await e.db('journal_entries').where({ kind: 'invoice' }).select('invoice_id');
  expect(entries.length).toBe(expected);
  expect(new Set(entries.map((x) => x.invoiceId)).size).toBe(expected);
  const unbalanced = await e.db.raw(
    `select entry_id from journal_lines group by entry_id having sum(debit) <> sum(credit)`,
  );
  expect(unbalanced.rows).toEqual([]);
  const claves = await e.db('invoices').whereNotNull('clave').pluck('clave');
  const docs = e.sim.simulator.documents();
  const accepted = docs.filter((d) => d.state === 'aceptado');
  expect(accepted.length).toBe(expected);
  expect(new Set(accepted.map((d) => d.clave))).toEqual(new Set(claves));
  expect(e.sim.simulator.counters().accepted).toBe(expected);
  // The ledger is in centavos: each invoice's receivable is its total rounded to centavos, and each
  // (a cash sale) was paid at issue once, for that amount, so the clients owe nothing.
  const total = await e.db('invoices').select(e.db.raw('sum(round(total, 2)) as t')).first();
  const atIssue = await e.db('payments').where({ atIssue: true }).select('invoice_id', 'amount');
  expect(new Set(atIssue.map((p) => p.invoiceId)).size).toBe(expected);
  expect(atIssue.length).toBe(expected);
  const paid = atIssue.reduce((a, p) => a.plus(p.amount), new Decimal(0));
  expect(paid.toFixed(5)).toBe(new Decimal(total!.t).toFixed(5));
  const balances = await e.db('clients').sum('balance as b').first();
  expect(new Decimal(balances!.b).toFixed(5)).toBe('0.00000');
}

describe('a worker killed with SIGKILL mid-run', () => {
  let e: E2E;
  let worker: ChildProcess | null = null;
  beforeAll(async () => {
    e = await startE2E({ workers: false, simulator: { processingDelayMs: 50 } });
  });
  afterAll(async () => {
    if (worker) await stopProcess(worker, 'SIGKILL');
    await e.close();
  });

  it('500 invoices all end accepted, with exactly one journal entry and one accepted submission each', async () => {
    const s = await seedIssuer(e.db, e.config);
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
      WORKER_LOCK_MS: '3000',
      RECONCILE_EVERY_MS: '2000',
      RECONCILE_STALE_MS: '15000',
    };
    worker = startWorkerProcess(env);
    const N = 500;
    const ids: string[] = [];
    const create = async () => {
      const r = await api(e, 'POST', '/api/v1/invoices', s.key, {
        client_id: `cli_${pad(s.client.id)}`,
        lines: [
          { service_id: `srv_${pad(s.consulting.id)}`, qty: 2 },
          { service_id: `srv_${pad(s.laptop.id)}`, qty: 1 },
          { service_id: `srv_${pad(s.exempt.id)}`, qty: '1.5' },
        ],
      });
      expect(r.status).toBe(201);
      ids.push(r.json.id);
    };
    for (let i = 0; i < N; i += 25) await Promise.all(Array.from({ length: Math.min(25, N - i) }, create));

    // Kill the worker once it is well into the run, then start a new one.
    await waitFor(async () => ((await statusCounts(e)).aceptada ?? 0) >= 80, 60_000, 50, '80 accepted');
    await stopProcess(worker, 'SIGKILL');
    const atKill = await statusCounts(e);
    expect(atKill.aceptada ?? 0).toBeLessThan(N);
    worker = startWorkerProcess(env);
    await waitFor(
      async () => {
        const c = await statusCounts(e);
        if (process.env.TEST_PROGRESS) console.log(JSON.stringify(c));
        return (c.aceptada ?? 0) === N;
      },
      240_000,
      1000,
      'all accepted',
    );
    expect(await statusCounts(e)).toEqual({ aceptada: N });
    await checkExactlyOnce(e, N);
    await stopProcess(worker, 'SIGTERM');
    worker = null;
  }, 300_000);
});

describe('Redis stopped for a few seconds during creation', () => {
  let e: E2E;
  let redis: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    redis = await startRedisServer(port);
    e = await startE2E({
      redisUrl: `redis://127.0.0.1:${port}`,
      simulator: { processingDelayMs: 50 },
      workers: { reconcile: { everyMs: 500, staleMs: 3000 } },
    });
  });
  afterAll(async () => {
    await e.close().catch(() => {});
    await stopProcess(redis, 'SIGKILL');
  });

  it('requests succeed (the outbox holds the work) or fail with 503 + Retry-After; every recorded invoice completes', async () => {
    const s = await seedIssuer(e.db, e.config);
    const results: { status: number; retryAfter: string | null; id?: string }[] = [];
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const r = await api(e, 'POST', '/api/v1/invoices', s.key, {
          client_id: `cli_${pad(s.client.id)}`,
          lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
        });
        results.push({ status: r.status, retryAfter: r.headers.get('retry-after'), id: r.json?.id });
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    await waitFor(() => results.length >= 20, 20_000);
    await stopProcess(redis, 'SIGKILL');
    const during = results.length;
    await new Promise((res) => setTimeout(res, 3000));
    // Redis down degrades the instance but does not make it unready (it still records invoices).
    const ready = await fetch(`${e.apiUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'degraded',
      checks: { postgres: 'ok', redis: 'unavailable' },
    });
    redis = await startRedisServer(port);
    await waitFor(() => results.length >= during + 20, 20_000);
    stop = true;
    await load;
    expect(results.length).toBeGreaterThan(40);
    for (const r of results) {
      expect([201, 503]).toContain(r.status);
      if (r.status === 503) expect(r.retryAfter).toBeTruthy();
    }
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThan(0);
    // Redis came back empty: the relay retries and the reconciler re-creates lost flows.
    await waitFor(
      async () => (await statusCounts(e)).aceptada === created.length,
      90_000,
      250,
      'all recorded invoices accepted',
    );
    expect(await statusCounts(e)).toEqual({ aceptada: created.length });
    await checkExactlyOnce(e, created.length);
  }, 180_000);
});
