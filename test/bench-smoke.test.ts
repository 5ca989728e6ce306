// Keeps `npm run bench` from rotting: the whole harness runs at BENCH_SCALE=tiny (a few invoices
// per stage, a few thousand rows for reads) as a real child process with real API, worker and
// simulator processes, and results.json must carry every figure of every stage and every target
// row (figure, limit, ratio, target ratio, met). Performance itself is judged by the bench, never
// by tests: only shape and sanity are checked here.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TARGET_IDS } from '../bench/lib/targets.ts';
import { projectRoot } from '../config/index.ts';
import { adminUrl, testRedisUrl } from './helpers/db-urls.ts';

const results = join(projectRoot, 'test/artifacts', `bench-smoke-${process.pid}.json`);

function runBench(): Promise<{ code: number | null; output: string }> {
  mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts'], {
      cwd: projectRoot,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: adminUrl(),
        REDIS_URL: testRedisUrl(),
        BENCH_SCALE: 'tiny',
        BENCH_RESULTS: results,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

const num = expect.any(Number);

describe('npm run bench (BENCH_SCALE=tiny)', () => {
  it('runs every stage and writes every figure to results.json', { timeout: 420_000 }, async () => {
    rmSync(results, { force: true });
    const { code, output } = await runBench();
    expect(code, output).toBe(0);
    expect(existsSync(results), output).toBe(true);
    const r = JSON.parse(readFileSync(results, 'utf8'));
    rmSync(results, { force: true });

    expect(r).toMatchObject({
      timestamp: expect.any(String),
      duration_seconds: num,
      scale: 'tiny',
      machine: {
        node: process.version,
        cpu_model: expect.any(String),
        cores: num,
        postgres: expect.any(String),
      },
      // The processes ran the compiled build, as the Procfile runs them, from the bench's own
      // build folder, which is gone afterwards.
      setup: { processes: expect.stringContaining('the compiled build, plain node') },
    });
    expect(output).toMatch(/compiled build in [\d.]+ s/);
    const buildDir = /compiled build in [\d.]+ s \((.+)\)/.exec(output)?.[1];
    expect(buildDir && existsSync(buildDir), buildDir).toBe(false);
    const s = r.stages;
    expect(Object.keys(s).sort()).toEqual([
      'batch',
      'end_to_end',
      'intake',
      'latency',
      'light',
      'memory',
      'reads',
      'signing',
    ]);
    expect(s.intake).toMatchObject({
      rate_per_s: num,
      p50_ms: num,
      p99_ms: num,
      errors: 0,
      raw_pg_commit: { perSecond: num, p99Ms: num },
      ratio_to_raw_pg: num,
    });
    expect(s.intake.requests).toBeGreaterThan(0);
    expect(s.latency).toMatchObject({
      all_delivered: true,
      create_failures: 0,
      created_to_accepted_webhook_p99_ms: num,
      raw_rsa_sign_ms_one_core: num,
    });
    expect(s.latency.delivered).toBe(s.latency.invoices);
    expect(s.end_to_end).toMatchObject({
      all_delivered: true,
      create_failures: 0,
      rate_per_s: num,
      raw_rsa_per_s_one_core: num,
      service_cpu_ms_per_invoice: num,
      bench_cpu_ms_per_invoice: num,
      postgres_per_invoice: { xact_commit_per_unit: num },
      statuses: { aceptada: s.end_to_end.invoices },
      // The warm-up went the whole way too, and is not in the counted figures.
      warmup: { invoices: 4, accepted: true, service_cpu_ms_per_invoice: num },
      webhooks: { bad_signatures: 0, duplicates: 0 },
    });
    // Light load: idle, one invoice a second, and ten (the latency stage's figure).
    expect(s.light).toMatchObject({
      idle: { seconds: num, percent_of_one_core: num },
      one_per_second: { all_delivered: true, service_cpu_ms_per_invoice: num, percent_of_one_core: num },
      ten_per_second: { service_cpu_ms_per_invoice: num, source: 'latency stage' },
    });
    expect(s.light.one_per_second.service_cpu_ms_per_invoice).toBeGreaterThan(0);
    // The service's CPU leaves the simulator out; it is reported apart.
    expect(s.end_to_end.cpu_ms_per_invoice.simulator).toBeGreaterThan(0);
    expect(s.end_to_end.service_cpu_ms_per_invoice).toBeCloseTo(
      ['api', 'worker', 'postgres', 'redis'].reduce((a, k) => a + s.end_to_end.cpu_ms_per_invoice[k], 0),
      1,
    );

    // The floor: each part present and positive, the total their sum, the sizes of a real invoice.
    const f = r.floor;
    for (const part of ['sign', 'http', 'rows'] as const) {
      expect(f.parts[part], part).toBeGreaterThan(0);
      expect(f[part].cpu_ms_per_invoice, part).toBe(f.parts[part]);
    }
    expect(f.cpu_ms_per_invoice).toBeCloseTo(f.parts.sign + f.parts.http + f.parts.rows, 2);
    expect(f.sign.bytes.document).toBeGreaterThan(1000);
    expect(f.http.exchanges.map((x: { name: string }) => x.name)).toEqual([
      'create',
      'reception',
      'status',
      'webhook',
    ]);
    for (const x of f.http.exchanges) expect(x.requestBytes + x.responseBytes, x.name).toBeGreaterThan(100);
    expect(f.http.server_cpu_ms_per_invoice).toBeGreaterThan(0);
    expect(f.rows.backend_cpu_ms_per_invoice).toBeGreaterThan(0);
    expect(f.rows.rows_per_invoice.journal_lines).toBeGreaterThan(0);
    expect(f.rows.updates_per_invoice.invoices).toBeGreaterThan(0);
    expect(s.end_to_end.floor_cpu_ms_per_invoice).toBe(f.cpu_ms_per_invoice);
    expect(output).toMatch(/Floor: [\d.]+ CPU ms per accepted invoice/);
    // The same parts one invoice at a time at the latency stage's rate, beside the light figure.
    expect(f.light).toMatchObject({ rate: 10, invoices: 5, cpu_ms_per_invoice: num });
    for (const part of ['sign', 'http', 'rows'] as const)
      expect(f.light.parts[part], part).toBeGreaterThan(0);
    expect(f.light.cpu_ms_per_invoice).toBeCloseTo(
      f.light.parts.sign + f.light.parts.http + f.light.parts.rows,
      2,
    );
    expect(f.light.times_the_floor).toBeCloseTo(f.light.cpu_ms_per_invoice / f.cpu_ms_per_invoice, 1);
    const beside = r.other_figures.find((x: { limit: string }) =>
      x.limit.startsWith('the floor one invoice'),
    );
    expect(beside).toMatchObject({ stage: 'light', value: num, limit_value: f.light.cpu_ms_per_invoice });
    expect(output).toMatch(
      /at 10 invoices\/s, one at a time \(5 invoices each\): [\d.]+ ms = [\d.]+ × the floor/,
    );

    expect(s.signing).toMatchObject({
      docs_built_and_signed_per_s_one_core: num,
      raw_rsa_per_s_one_core: num,
      xadesjs_sign_per_s_one_core: num,
    });
    expect(s.batch).toMatchObject({
      recorded_seconds: num,
      accepted_seconds: num,
      rejected: 0,
      raw_pg_bulk_insert_seconds: num,
      counts_via_api: { pending: 0, failed: 0, created: s.batch.invoices },
    });
    // The batch's limit: the rows its recording wrote, written again raw, one transaction per
    // chunk of at most 500 of one batch.
    const n = s.batch.invoices;
    const chunks = s.batch.batches * Math.ceil(s.batch.batch_size / 500);
    expect(s.batch.raw_same_rows).toMatchObject({
      seconds: num,
      invoices: n,
      transactions: chunks,
      rows: {
        invoices: n,
        events: n,
        event_sequences: n,
        idempotency_keys: n,
        batch_items: n,
        outbox: 2 * chunks,
      },
      bytes_per_invoice: num,
    });
    expect(s.batch.raw_same_rows.bytes_per_invoice).toBeGreaterThan(1000);
    expect(r.targets.find((t: { id: string }) => t.id === 'batch.recorded')).toMatchObject({
      limit_value: s.batch.raw_same_rows.seconds,
    });
    expect(
      r.other_figures.find((x: { figure: string }) => x.figure.includes('one invoice-sized row')),
    ).toMatchObject({
      value: s.batch.recorded_seconds,
      limit_value: num,
    });
    expect(s.memory).toMatchObject({
      api: { peak_rss_mb: num, vm_hwm_mb: num },
      worker: { peak_rss_mb: num, vm_hwm_mb: num, growth_last_quarter_over_second: num },
      worker_growing: expect.any(Boolean),
    });
    for (const kind of ['get_invoice_by_id', 'list_invoices_by_status', 'client_name_search'])
      expect(s.reads[kind], kind).toMatchObject({ p50_ms: num, p99_ms: num, raw_sql_p99_ms: num });
    expect(s.reads.invoices).toBeGreaterThanOrEqual(2000);

    // Every target row, each with the figure, the limit measured beside it, the ratio, the target
    // ratio and met; the ratio is the figure over the limit.
    expect(r.targets.map((t: { id: string }) => t.id)).toEqual(TARGET_IDS);
    expect(TARGET_IDS).toEqual(
      expect.arrayContaining([
        'signing.docs_per_raw_rsa',
        'light.cpu_at_10_per_s',
        'light.idle_cpu',
        'end_to_end.service_cpu',
      ]),
    );
    expect(r.targets.find((t: { id: string }) => t.id === 'end_to_end.service_cpu').limit_value).toBe(
      r.floor.cpu_ms_per_invoice,
    );
    for (const t of r.targets) {
      expect(t, t.id).toMatchObject({
        figure: expect.any(String),
        value: num,
        limit: expect.any(String),
        limit_value: num,
        ratio: num,
        target_ratio: num,
        direction: expect.stringMatching(/^(<=|>=)$/),
        met: expect.any(Boolean),
      });
      expect(t.ratio, t.id).toBeCloseTo(t.value / t.limit_value, 2);
    }
    expect(r.targets_met).toEqual({ met: r.targets.filter((t: any) => t.met).length, of: TARGET_IDS.length });
    expect(r.notes.postgres_commits).toMatch(/autocommit/);
    expect(output).toMatch(
      /stage\s+figure\s+value\s+machine limit\s+limit\s+ratio\s+target\s+target ratio\s+met/,
    );
    expect(output).toMatch(/Postgres commits: .*autocommit/);
    // The same targets as a Markdown table, printed and in results.json, one row each.
    expect(r.markdown).toMatch(/^\| Figure \| Value \| Limit \| Ratio \| Target \| Met \|/);
    expect(r.markdown.split('\n')).toHaveLength(TARGET_IDS.length + 2);
    expect(output).toContain(r.markdown);
  });
});
