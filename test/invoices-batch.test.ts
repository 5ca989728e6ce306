// The batch API: up to 1,000 invoices per request, per-item outcomes, partial failure, repeats
// that create nothing twice, and a processor that can run twice without harm.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Job } from 'bullmq';
import { pino } from 'pino';
import { processBatch, type BatchJobData } from '../jobs/batches/process.ts';
import type { JobContext } from '../jobs/context.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { createDb } from '../db/connection.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
let cli: string;
let srv: string;

beforeAll(async () => {
  e = await startE2E({ simulator: { processingDelayMs: 20 } });
  s = await seedIssuer(e.db, e.config);
  cli = `cli_${pad(s.client.id)}`;
  srv = `srv_${pad(s.consulting.id)}`;
});
afterAll(async () => {
  await e.close();
});

const item = (extra: Record<string, unknown>) => ({
  client_id: cli,
  lines: [{ service_id: srv, qty: 1 }],
  ...extra,
});

async function waitCompleted(id: string) {
  let b: any;
  await waitFor(async () => {
    b = (await api(e, 'GET', `/api/v1/batches/${id}`, s.key)).json;
    return b.status === 'completed';
  }, 30_000);
  return b;
}

describe('POST /api/v1/invoices/batch', () => {
  it('records the good items, reports the bad ones, and carries the invoices to aceptada', async () => {
    const run = Date.now();
    const items = [
      ...Array.from({ length: 20 }, (_, i) => item({ idempotency_key: `k-${run}-${i}` })),
      ...Array.from({ length: 5 }, (_, i) => item({ external_id: `x-${run}-${i}` })),
      item({ idempotency_key: `bad-qty-${run}`, lines: [{ service_id: srv, qty: 0 }] }),
      item({ idempotency_key: `bad-srv-${run}`, lines: [{ service_id: 'srv_000099999999', qty: 1 }] }),
      item({}),
      item({ idempotency_key: `k-${run}-0` }),
      item({ idempotency_key: `bad-field-${run}`, total: '5.00' }),
    ];
    const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: items });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ object: 'batch', status: 'processing', total: 30 });
    expect(res.json.id).toMatch(/^bat_\d{12}$/);
    expect(res.headers.get('location')).toBe(`/api/v1/batches/${res.json.id}`);

    const b = await waitCompleted(res.json.id);
    if (process.env.TEST_PROGRESS) console.log('batch completed', new Date().toISOString());
    expect(b.counts).toEqual({ pending: 0, created: 25, replayed: 0, failed: 5 });
    const byIndex = (i: number) => b.items[i];
    expect(byIndex(25).error.errors[0]).toMatchObject({ path: '/lines/0/qty' });
    expect(byIndex(26).error.errors[0]).toMatchObject({
      path: '/lines/0/service_id',
      code: 'unknown_service',
    });
    expect(byIndex(27).error.errors[0]).toMatchObject({ path: '/idempotency_key', code: 'required' });
    expect(byIndex(28).error.errors[0]).toMatchObject({ path: '/idempotency_key', code: 'duplicate' });
    expect(byIndex(29).error.errors[0]).toMatchObject({ path: '/total', code: 'unknown_field' });
    const created = b.items.filter((x: any) => x.status === 'created');
    const numbers = created
      .map((x: any) => Number(x.invoice.consecutivo.slice(10)))
      .sort((a: number, c: number) => a - c);
    expect(numbers).toEqual(Array.from({ length: 25 }, (_, i) => numbers[0] + i));
    const ids = created.map((x: any) => x.invoice.id);
    await waitFor(async () => {
      const n = await e
        .db('invoices')
        .whereIn(
          'id',
          ids.map((id: string) => Number(id.slice(4))),
        )
        .where({ status: 'aceptada' })
        .count('* as n');
      return Number(n[0]!.n) === 25;
    }, 60_000);
    const entries = await e
      .db('journal_entries')
      .where({ kind: 'invoice' })
      .whereIn(
        'invoice_id',
        ids.map((id: string) => Number(id.slice(4))),
      );
    expect(entries).toHaveLength(25);

    // A repeated batch creates nothing twice: keyed items replay, external_id items are refused.
    const before = Number((await e.db('invoices').count('* as n'))[0]!.n);
    const again = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: items.slice(0, 25) });
    const b2 = await waitCompleted(again.json.id);
    expect(b2.counts).toEqual({ pending: 0, created: 0, replayed: 20, failed: 5 });
    expect(b2.items.slice(0, 20).map((x: any) => x.invoice.id)).toEqual(
      b.items.slice(0, 20).map((x: any) => x.invoice.id),
    );
    expect(b2.items[20].error).toMatchObject({
      code: 'duplicate_external_id',
      existing_invoice_id: b.items[20].invoice.id,
    });
    expect(Number((await e.db('invoices').count('* as n'))[0]!.n)).toBe(before);
    // And a single create with a batch item's key replays that item's invoice.
    const single = await api(e, 'POST', '/api/v1/invoices', s.key, item({}), {
      'idempotency-key': `k-${run}-3`,
    });
    expect(single.status).toBe(201);
    expect(single.headers.get('idempotent-replayed')).toBe('true');
    expect(single.json.id).toBe(b.items[3].invoice.id);
  }, 120_000);

  it('replays the whole batch for a repeated Idempotency-Key', async () => {
    const key = `batch-${Date.now()}`;
    const body = { invoices: [item({ idempotency_key: `${key}-1` })] };
    const a = await api(e, 'POST', '/api/v1/invoices/batch', s.key, body, { 'idempotency-key': key });
    const b = await api(e, 'POST', '/api/v1/invoices/batch', s.key, body, { 'idempotency-key': key });
    expect(b.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.json.id).toBe(a.json.id);
    const c = await api(
      e,
      'POST',
      '/api/v1/invoices/batch',
      s.key,
      { invoices: [item({ idempotency_key: `${key}-2` })] },
      { 'idempotency-key': key },
    );
    expect(c.status).toBe(422);
  });

  it('validates the envelope and isolates tenants', async () => {
    expect((await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: [] })).status).toBe(422);
    const tooMany = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
      invoices: Array.from({ length: 1001 }, () => ({})),
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json.errors[0]).toMatchObject({ path: '/invoices', code: 'too_many_items' });
    expect((await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: 'x' })).status).toBe(422);
    const mine = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
      invoices: [item({ idempotency_key: `iso-${Date.now()}` })],
    });
    const other = await seedIssuer(e.db, e.config, '3101888001');
    expect((await api(e, 'GET', `/api/v1/batches/${mine.json.id}`, other.key)).status).toBe(404);
  });

  it('drafts, facturas and tiquetes in one batch are recorded in one transaction, each series numbered from 1', async () => {
    const mixed = await seedIssuer(e.db, e.config, '3101888002');
    const c = `cli_${pad(mixed.client.id)}`;
    const sv = `srv_${pad(mixed.consulting.id)}`;
    const run = Date.now();
    const shapes = [
      { client_id: c },
      { client_id: c, send: false },
      { document_type: '04' },
      { document_type: '04', send: false },
    ];
    const invoices = Array.from({ length: 12 }, (_, i) => ({
      ...shapes[i % 4],
      lines: [{ service_id: sv, qty: 1 }],
      idempotency_key: `mixed-${run}-${i}`,
    }));
    const res = await api(e, 'POST', '/api/v1/invoices/batch', mixed.key, { invoices });
    expect(res.status).toBe(202);
    let b: any;
    await waitFor(async () => {
      b = (await api(e, 'GET', `/api/v1/batches/${res.json.id}`, mixed.key)).json;
      return b.status === 'completed';
    }, 30_000);
    expect(b.counts).toEqual({ pending: 0, created: 12, replayed: 0, failed: 0 });
    const rows = await e
      .db('invoices')
      .where({ companyId: mixed.company.id })
      .select('docType', 'number', 'situacion', 'createdAt', 'requestId')
      .orderBy('id');
    expect(rows).toHaveLength(12);
    // A shared transaction gives every row the same created_at (now() is the transaction's time):
    // the chunk was not split into one transaction per item.
    expect(new Set(rows.map((r) => new Date(r.createdAt).getTime())).size).toBe(1);
    const numbers = (docType: string) =>
      rows.filter((r) => r.docType === docType && r.number !== null).map((r) => Number(r.number));
    expect(numbers('01').sort()).toEqual([1, 2, 3]);
    expect(numbers('04').sort()).toEqual([1, 2, 3]);
    expect(rows.filter((r) => r.number === null)).toHaveLength(6);
    expect(rows.every((r) => r.situacion === '1')).toBe(true);
  });
});

describe('the batch processor', () => {
  it('running twice at once creates each invoice once', async () => {
    await e.stopWorkers();
    try {
      const run = Date.now();
      const items = [
        ...Array.from({ length: 30 }, (_, i) => item({ idempotency_key: `twice-${run}-${i}` })),
        ...Array.from({ length: 10 }, (_, i) => item({ external_id: `twice-x-${run}-${i}` })),
      ];
      const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: items });
      const batchId = Number(res.json.id.slice(4));
      const ctx = { db: e.db, log: pino({ level: 'silent' }), config: e.config } as unknown as JobContext;
      const job = { data: { v: 1, batchId }, updateProgress: async () => {} } as unknown as Job<BatchJobData>;
      await Promise.all([processBatch(job, ctx), processBatch(job, ctx)]);
      const rows = await e
        .db('invoices')
        .where('request_id', 'like', '%#%')
        .whereIn(
          'external_id',
          items.slice(30).map((x) => (x as Record<string, unknown>).external_id as string),
        );
      expect(rows).toHaveLength(10);
      const items2 = await e.db('batch_items').where({ batchId });
      expect(items2.every((x) => x.status === 'created')).toBe(true);
      expect(new Set(items2.map((x) => x.invoiceId)).size).toBe(40);
      const keyed = await e.db('idempotency_keys').where('key', 'like', `twice-${run}-%`);
      expect(keyed).toHaveLength(30);
    } finally {
      await e.startWorkers();
    }
  });
});

describe('a batch recording that dies mid-way', () => {
  it('leaves nothing behind; the next run records each item exactly once, numbered without gaps', async () => {
    await e.stopWorkers();
    const dying = createDb({ url: e.config.databaseUrl, applicationName: 'batch-dying', poolMax: 2 });
    try {
      const run = Date.now();
      const items = [
        ...Array.from({ length: 30 }, (_, i) => item({ idempotency_key: `die-${run}-${i}` })),
        ...Array.from({ length: 8 }, (_, i) => item({ external_id: `die-x-${run}-${i}` })),
        item({ idempotency_key: `die-bad-${run}`, lines: [{ service_id: 'srv_000099999999', qty: 1 }] }),
      ];
      const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: items });
      const batchId = Number(res.json.id.slice(4));
      const { companyId } = await e.db('batches').where({ id: batchId }).first('company_id');
      const series = { companyId, livemode: false, docType: '01', branch: '001', terminal: '00001' };
      const lastBefore = Number((await e.db('numbering_series').where(series).first())?.lastNumber ?? 0);
      const job = (db: unknown) => ({
        job: { data: { v: 1, batchId, requestId: `die-${run}` }, updateProgress: async () => {} },
        ctx: { db, log: pino({ level: 'silent' }), config: e.config },
      });

      // The first run is cut off at its last statement: its invoices are inserted and numbered but
      // not committed when its connections are terminated (as when the process dies).
      const locker = await e.db.transaction();
      await locker.raw('lock table events in exclusive mode');
      const first = job(dying);
      const dead = processBatch(
        first.job as unknown as Job<BatchJobData>,
        first.ctx as unknown as JobContext,
      );
      let settled = false;
      void dead.catch(() => {}).finally(() => (settled = true));
      let cut = 0;
      while (!settled) {
        const waiting = await e.db.raw(
          `select pid, query from pg_stat_activity
           where application_name = 'batch-dying' and wait_event_type = 'Lock'`,
        );
        for (const w of waiting.rows as { pid: number; query: string }[]) {
          if (cut === 0) expect(w.query).toContain('insert into events');
          await e.db.raw('select pg_terminate_backend(?)', [w.pid]);
          cut++;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      await expect(dead).rejects.toThrow();
      await locker.commit();
      expect(cut).toBeGreaterThan(0);
      expect(await e.db('batch_items').where({ batchId, status: 'pending' }).count('* as n')).toEqual([
        { n: 39 },
      ]);
      expect(Number((await e.db('numbering_series').where(series).first())?.lastNumber ?? 0)).toBe(
        lastBefore,
      );
      expect(await e.db('invoices').where('request_id', 'like', `die-${run}#%`)).toHaveLength(0);

      // The job runs again (as the queue or the reconciler would start it).
      const again = job(e.db);
      await processBatch(again.job as unknown as Job<BatchJobData>, again.ctx as unknown as JobContext);
      const outcome = await e.db('batch_items').where({ batchId }).orderBy('position');
      expect(outcome.filter((x) => x.status === 'created')).toHaveLength(38);
      expect(outcome[38]).toMatchObject({ status: 'failed', problem: { code: 'validation_failed' } });
      const invoices = await e.db('invoices').where('request_id', 'like', `die-${run}#%`).orderBy('number');
      expect(invoices).toHaveLength(38);
      expect(new Set(invoices.map((x) => x.id))).toEqual(
        new Set(outcome.slice(0, 38).map((x) => x.invoiceId)),
      );
      expect(invoices.map((x) => Number(x.number))).toEqual(
        Array.from({ length: 38 }, (_, i) => lastBefore + 1 + i),
      );
      expect(Number((await e.db('numbering_series').where(series).first()).lastNumber)).toBe(lastBefore + 38);
      const events = await e
        .db('events')
        .where({ type: 'invoice.created', requestId: `die-${run}` })
        .select(e.db.raw(`data->>'id' as id`));
      expect(events.map((x) => x.id).sort()).toEqual(invoices.map((x) => `inv_${pad(x.id)}`).sort());
      expect(await e.db('idempotency_keys').where('key', 'like', `die-${run}-%`)).toHaveLength(30);
    } finally {
      await dying.destroy().catch(() => {});
      await e.startWorkers();
    }
  }, 60_000);

  it('a database that comes back between the chunk and its items fails no item: the job runs again', async () => {
    await e.stopWorkers();
    const flaky = createDb({ url: e.config.databaseUrl, applicationName: 'batch-flaky', poolMax: 2 });
    try {
      const run = Date.now();
      const items = Array.from({ length: 12 }, (_, i) => item({ idempotency_key: `flaky-${run}-${i}` }));
      const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, { invoices: items });
      const batchId = Number(res.json.id.slice(4));
      const job = (db: unknown) =>
        [
          { data: { v: 1, batchId, requestId: `flaky-${run}` }, updateProgress: async () => {} },
          { db, log: pino({ level: 'silent' }), config: e.config },
        ] as unknown as [Job<BatchJobData>, JobContext];

      // The chunk's connection is lost (terminated while it waits), and so is the next statement
      // on a new connection; then the database is back. Before the fix the second loss was written
      // as that item's own failure (internal_error) and the batch completed without its invoice.
      const locker = await e.db.transaction();
      await locker.raw('lock table events in exclusive mode');
      const first = processBatch(...job(flaky));
      let settled = false;
      void first.catch(() => {}).finally(() => (settled = true));
      // Each connection is cut once (a terminated backend can still show as waiting for a moment).
      const cut = new Set<number>();
      while (!settled && cut.size < 2) {
        const waiting = await e.db.raw(
          `select pid from pg_stat_activity where application_name = 'batch-flaky' and wait_event_type = 'Lock'`,
        );
        for (const w of waiting.rows as { pid: number }[]) {
          if (cut.has(w.pid)) continue;
          await e.db.raw('select pg_terminate_backend(?)', [w.pid]);
          cut.add(w.pid);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      await locker.commit();
      await expect(first).rejects.toThrow(/ECONNRESET|terminat|Connection/i);
      expect(cut.size).toBe(1);
      const afterFirst = await e.db('batch_items').where({ batchId }).select('status');
      expect(afterFirst.map((x) => x.status)).toEqual(items.map(() => 'pending'));

      // The job's next attempt records every item.
      await processBatch(...job(e.db));
      const outcome = await e.db('batch_items').where({ batchId }).orderBy('position');
      expect(outcome.map((x) => x.status)).toEqual(items.map(() => 'created'));
      expect(await e.db('invoices').where('request_id', 'like', `flaky-${run}#%`)).toHaveLength(12);
    } finally {
      await flaky.destroy().catch(() => {});
      await e.startWorkers();
    }
  }, 60_000);
});

describe('npm run cli -- import', () => {
  it('sends a JSON-lines file through the batch API, reports failures by line, and is safe to repeat', async () => {
    const run = Date.now();
    const lines = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify(
        i === 10
          ? item({ idempotency_key: `imp-${run}-${i}`, lines: [] })
          : item({ idempotency_key: `imp-${run}-${i}` }),
      ),
    );
    const dir = mkdtempSync(join(tmpdir(), 'import-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'invoices.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const runImport = async () => {
      try {
        const r = await promisify(execFile)(
          process.execPath,
          [
            '--import',
            'tsx',
            'cli/main.ts',
            'import',
            '--file',
            file,
            '--key',
            s.key,
            '--url',
            e.apiUrl,
            '--batch-size',
            '25',
            '--wait',
            'accepted',
            '--json',
          ],
          { env: { ...process.env, NODE_ENV: 'test', SECRETS_KEY: TEST_SECRETS_KEY } },
        );
        return { code: 0, out: r.stdout };
      } catch (err) {
        const x = err as { code: number; stdout: string };
        return { code: x.code, out: x.stdout };
      }
    };
    const before = Number((await e.db('invoices').count('* as n'))[0]!.n);
    const first = await runImport();
    expect(first.code).toBe(1);
    const summary = JSON.parse(first.out);
    expect(summary).toMatchObject({ total: 60, recorded: 59, failed: 1, accepted: 59, rejected: 0 });
    expect(summary.batches).toHaveLength(3);
    expect(summary.failures[0]).toMatchObject({ line: 11 });
    expect(Number((await e.db('invoices').count('* as n'))[0]!.n)).toBe(before + 59);
    const second = JSON.parse((await runImport()).out);
    expect(second).toMatchObject({ recorded: 59, failed: 1, accepted: 59 });
    expect(Number((await e.db('invoices').count('* as n'))[0]!.n)).toBe(before + 59);
  }, 120_000);
});
