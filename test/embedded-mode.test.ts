// Embedded mode: `npm start` (scripts/start.ts) with FACTURA_EMBEDDED=1, no DATABASE_URL and a
// REDIS_URL where nothing listens runs the whole service on one machine: its own PostgreSQL (data
// in a temporary directory here, `.local/` by default), BullMQ on PostgreSQL, and rate limits,
// key-cache invalidation and usage counters in PostgreSQL. An invoice reaches `aceptada`, its
// webhook is delivered and verified, Bull Board and /metrics read the queues; SIGTERM stops
// everything (the embedded server last, cleanly: no postmaster.pid left, no process left), and a
// second start finds the same data.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { freePortIn, stopProcess } from './helpers/processes.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'factura-embedded-'));
let running: ChildProcess | null = null;
let receiver: Receiver | null = null;

/** Processes (other than this one) whose environment names this run's data directory. */
function processesOfThisRun(): number[] {
  const mine: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(`EMBEDDED_DATA_DIR=${dataDir}\0`))
        mine.push(Number(entry));
      else if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(dataDir)) mine.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return mine;
}

afterAll(async () => {
  if (running) await stopProcess(running);
  await receiver?.close();
  for (const pid of processesOfThisRun()) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const v of ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'QUEUE_SHARDS']) delete base[v];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running = child;
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
      return /Service ready:[\s\S]*(npm run cli -- key create|Issue an invoice[\s\S]*status=aceptada)/.test(
        out,
      );
    },
    90_000,
    100,
    'npm start to print its URLs',
  );
  return { child, output: () => out };
}

/** SIGTERM, then the exit code; the embedded server must be gone with it. */
async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const code = await exited;
  running = null;
  return code;
}

describe('embedded mode', () => {
  it('runs on one machine without Redis, stops cleanly and starts again with its data', async () => {
    const started = Date.now();
    const ports: number[] = [];
    for (let i = 0; i < 5; i++) ports.push(await freePortIn(24800, 24899, ports));
    const [port, simPort, mailPort, mailPagePort, pgPort] = ports as [number, number, number, number, number];
    // Nothing listens on this Redis port: any Redis call of the service would fail.
    const noRedis = await freePortIn(24800, 24899, ports);
    const env = {
      FACTURA_EMBEDDED: '1',
      EMBEDDED_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      REDIS_URL: `redis://127.0.0.1:${noRedis}`,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      SIMULATOR_PORT: String(simPort),
      MAIL_CATCHER_SMTP_PORT: String(mailPort),
      MAIL_CATCHER_HTTP_PORT: String(mailPagePort),
      QUEUE_PREFIX: '{h-emb}',
      SECRETS_KEY: TEST_SECRETS_KEY,
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 'emb-pass',
      STATUS_POLL_BASE_MS: '200',
      METRICS_PUBLISH_MS: '200',
      USAGE_FLUSH_MS: '200',
    };
    const phases: string[] = [];
    let mark = Date.now();
    const phase = (name: string) => {
      phases.push(`${name} ${((Date.now() - mark) / 1000).toFixed(1)} s`);
      mark = Date.now();
    };
    const first = await start(env);
    phase('first start');
    const out = first.output();
    expect(out).toContain('EMBEDDED MODE');
    expect(out).toContain(`127.0.0.1:${pgPort} with its data in ${dataDir}`);
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    const key = /export KEY=(ik_test_[0-9A-Za-z]{32,})/.exec(out)?.[1];
    expect(key, out).toBeDefined();
    const body = /-d '([^']+)'/.exec(out)![1]!;
    const base = `http://127.0.0.1:${port}`;
    const api = (path: string, init: RequestInit = {}, secret = key!) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...init.headers },
      });

    // A webhook endpoint on a receiver of this test.
    receiver = await startReceiver();
    const ep = await api('/api/v1/webhook_endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: `${receiver.url}/hooks`, events: ['invoice.accepted'] }),
    });
    expect(ep.status).toBe(201);
    receiver.secrets.push(((await ep.json()) as { secret: string }).secret);

    // The README's curl: an invoice, accepted by the simulator, its webhook delivered.
    const created = await api('/api/v1/invoices', { method: 'POST', headers: { prefer: 'wait=10' }, body });
    const invoice = (await created.json()) as { id: string; status: string };
    expect(created.status, JSON.stringify(invoice)).toBe(201);
    // Rate limits are counted (in Postgres): the policy and what is left.
    expect(created.headers.get('ratelimit-policy')).toBe('50;w=1');
    expect(created.headers.get('ratelimit')).toMatch(/^limit=50, remaining=\d+, reset=\d+$/);
    await waitFor(
      async () => {
        const status = ((await (await api(`/api/v1/invoices/${invoice.id}`)).json()) as { status: string })
          .status;
        if (status === 'rechazada') throw new Error('the invoice was rejected');
        return status === 'aceptada';
      },
      30_000,
      200,
      'the invoice to be accepted',
    );
    await waitFor(() => receiver!.ofKind('invoice.accepted').length > 0, 20_000, 100, 'the webhook');
    const hook = receiver.ofKind('invoice.accepted')[0]!;
    expect(hook.verified.ok).toBe(true);
    expect(hook.body.data.object?.id ?? hook.body.data.id).toBe(invoice.id);

    // The application is served, and signing in (its attempt limits counted in Postgres) answers.
    const page = await fetch(`${base}/app/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root"');
    const signIn = await fetch(`${base}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nadie@example.com', password: 'una clave cualquiera' }),
    });
    expect(signIn.status).toBe(401);
    expect(((await signIn.json()) as { code: string }).code).toBe('invalid_credentials');

    // Bull Board and /metrics read BullMQ's Postgres backend; the workers' totals arrive too.
    const admin = { authorization: `Basic ${Buffer.from('ops:emb-pass').toString('base64')}` };
    const board = await fetch(`${base}/admin/queues/api/queues`, { headers: admin });
    expect(board.status).toBe(200);
    const queues = ((await board.json()) as { queues: { name: string }[] }).queues.map((q) => q.name);
    expect(queues).toEqual(expect.arrayContaining(['invoice-sign', 'invoice-status', 'webhooks']));
    let metrics = '';
    await waitFor(
      async () => {
        metrics = await (await fetch(`${base}/metrics`, { headers: admin })).text();
        // A scrape on a loaded machine may give up on a source (2 s) and say so with a 0: ask again.
        return (
          /factura_job_duration_seconds_count\{[^}]*queue="invoice-status"[^}]*\} [1-9]/.test(metrics) &&
          metrics.includes('factura_metrics_source_up{source="queues"} 1') &&
          metrics.includes('factura_metrics_source_up{source="workers"} 1')
        );
      },
      30_000,
      200,
      'the workers’ metrics',
    );
    expect(metrics).toContain('factura_metrics_source_up{source="queues"} 1');
    expect(metrics).toContain('factura_metrics_source_up{source="workers"} 1');

    // Usage counters reach the usage endpoint.
    const usage = (await (await api('/api/v1/usage')).json()) as { totals: { requests: number } };
    expect(usage.totals.requests).toBeGreaterThan(0);

    // A revoked key stops working at once: the key caches are told through Postgres.
    const made = await api('/api/v1/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'short-lived', scopes: ['read:invoices'] }),
    });
    expect(made.status).toBe(201);
    const other = (await made.json()) as { id: string; secret: string };
    expect((await api(`/api/v1/invoices/${invoice.id}`, {}, other.secret)).status).toBe(200);
    expect((await api(`/api/v1/keys/${other.id}`, { method: 'DELETE' })).status).toBe(200);
    // Within the cache's 5 s life: only the announcement can make it fail now.
    const revokedAt = Date.now();
    await waitFor(
      async () => (await api(`/api/v1/invoices/${invoice.id}`, {}, other.secret)).status === 401,
      3000,
      50,
      'the revoked key to be refused',
    );
    expect(Date.now() - revokedAt).toBeLessThan(3000);

    // A wrong key is counted against its address: with the rate limits, in the embedded server's
    // tables that stand in for Redis's keys.
    expect((await api('/api/v1/invoices', {}, 'ik_test_notakeyatall0000000000000000')).status).toBe(401);
    const password = readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim();
    const kv = new pg.Client({
      connectionString: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/factura`,
    });
    await kv.connect();
    try {
      const keys = (await kv.query<{ key: string }>('select distinct key from factura_kv.entries')).rows.map(
        (r) => r.key,
      );
      expect(keys).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^\{h-emb:authfail\}:127\.0\.0\.1$/),
          expect.stringMatching(/^\{h-emb:rl\}:company:/),
          '{h-emb}:reconciler',
        ]),
      );
      const jobs = await kv.query<{ n: string }>('select count(*) as n from bullmq.job');
      expect(Number(jobs.rows[0]!.n)).toBeGreaterThan(0);
    } finally {
      await kv.end();
    }
    phase('invoice, webhook, board, metrics, keys');
    // SIGTERM: everything stops, the embedded PostgreSQL last and cleanly.
    expect(await stop(first.child)).toBe(0);
    phase('stop');
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    await waitFor(() => processesOfThisRun().length === 0, 5000, 100, 'no process of this run');

    // A second start: the same data, no new demo company.
    const second = await start(env);
    phase('second start');
    expect(second.output()).not.toContain('export KEY=');
    expect(second.output()).not.toContain('created database');
    const again = await api(`/api/v1/invoices/${invoice.id}`);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { status: string }).status).toBe('aceptada');
    expect(await stop(second.child)).toBe(0);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    await waitFor(() => processesOfThisRun().length === 0, 5000, 100, 'no process of this run');
    phase('second stop');
    console.log(`embedded mode: ${Math.round((Date.now() - started) / 1000)} s (${phases.join(', ')})`);
  }, 180_000);
});
