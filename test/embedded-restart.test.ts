// Embedded mode found and recovered. With no DATABASE_URL/REDIS_URL and nothing answering on the
// default addresses (moved here to closed ports with DEFAULT_DATABASE_URL/DEFAULT_REDIS_URL),
// `npm start` goes embedded and says why; with servers answering there it does not. A start killed
// with SIGKILL takes its processes with it (the children notice, the PostgreSQL's watchdog stops
// it); a PostgreSQL left running all the same (its watchdog killed too) is stopped by the next
// start, which comes up on the same data; a second start on a data directory in use is refused.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { adminUrl, testDatabaseUrl } from './helpers/db-urls.ts';
import {
  killAll,
  processesOf,
  spawnStart,
  startService,
  stopService,
  type Started,
} from './helpers/embedded-start.ts';
import { freePortIn, startRedisServer, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'factura-embedded-restart-'));
const running: Started[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const s of running) await stopService(s.child).catch(() => null);
  for (const c of cleanups) await c().catch(() => undefined);
  killAll(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

async function ports(n: number): Promise<number[]> {
  const taken: number[] = [];
  for (let i = 0; i < n; i++) taken.push(await freePortIn(24700, 24799, taken));
  return taken;
}

function serviceEnv(p: number[], prefix: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(p[0]),
    SIMULATOR_PORT: String(p[1]),
    MAIL_CATCHER_SMTP_PORT: String(p[2]),
    MAIL_CATCHER_HTTP_PORT: String(p[3]),
    QUEUE_PREFIX: prefix,
    SECRETS_KEY: TEST_SECRETS_KEY,
    STATUS_POLL_BASE_MS: '200',
  };
}

async function start(env: Record<string, string>): Promise<Started> {
  const s = await startService(env);
  running.push(s);
  return s;
}

async function kill(s: Started): Promise<void> {
  await stopService(s.child, 'SIGKILL');
  running.splice(running.indexOf(s), 1);
}

/** Waits until no process of the data directory is left; says which are when they are not. */
async function noneLeft(ms: number, of: string): Promise<void> {
  const t0 = Date.now();
  await waitFor(() => processesOf(dataDir).length === 0, ms, 100, `no process of ${of}`).catch(
    (err: Error) => {
      const left = processesOf(dataDir).map((x) => `${x.pid} ${x.cmdline.slice(0, 120)}`);
      throw new Error(`${err.message}; left after ${Date.now() - t0} ms:\n${left.join('\n')}`);
    },
  );
  console.log(`no process of ${of} after ${Date.now() - t0} ms`);
}

const postmasterPid = () =>
  Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

describe('embedded mode, found and recovered', () => {
  it('goes embedded when nothing answers on the defaults, and a start killed with SIGKILL stops nothing after it', async () => {
    const p = await ports(7);
    const [pgPort, closedPg, closedRedis] = p.slice(4) as [number, number, number];
    const env = {
      ...serviceEnv(p, '{h-embk}'),
      DEFAULT_DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPg}/factura`,
      DEFAULT_REDIS_URL: `redis://127.0.0.1:${closedRedis}`,
      EMBEDDED_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
    };
    const first = await start(env);
    expect(first.output()).toContain(
      `embedded mode (no DATABASE_URL or REDIS_URL, and no PostgreSQL at 127.0.0.1:${closedPg}): ` +
        `starting PostgreSQL on 127.0.0.1:${pgPort}, data in ${dataDir}`,
    );
    expect(first.output()).toContain('EMBEDDED MODE');
    const key = /export KEY=(ik_test_[0-9A-Za-z]{32,})/.exec(first.output())?.[1];
    expect(key, first.output()).toBeDefined();
    const body = /-d '([^']+)'/.exec(first.output())![1]!;
    const base = `http://127.0.0.1:${p[0]}`;
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key!}`, 'content-type': 'application/json', ...init.headers },
      });
    const created = await api('/api/v1/invoices', { method: 'POST', headers: { prefer: 'wait=10' }, body });
    const invoice = (await created.json()) as { id: string };
    expect(created.status, JSON.stringify(invoice)).toBe(201);
    const status = async () =>
      ((await (await api(`/api/v1/invoices/${invoice.id}`)).json()) as { status: string }).status;
    await waitFor(async () => (await status()) === 'aceptada', 30_000, 200, 'the invoice to be accepted');

    // SIGKILL: no handler of the start runs; its children and its PostgreSQL stop by themselves.
    await kill(first);
    await noneLeft(40_000, 'the killed start');
    // The PostgreSQL's shutdown (smart: after its clients) removes its lock file.
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await start(env);
    expect(second.output()).not.toContain('export KEY=');
    expect(await status()).toBe('aceptada');

    // A second start on the same data directory while this one runs is refused, and changes nothing.
    const other = spawnStart({ ...env, ...serviceEnv(await ports(4), '{h-embk2}') });
    const code = await new Promise<number | null>((resolve) => other.child.once('exit', resolve));
    expect(code, other.output()).toBe(1);
    expect(other.output()).toContain(`another npm start (process ${second.child.pid})`);
    expect(await status()).toBe('aceptada');

    // The worst case: the watchdog killed too, then the start. Its PostgreSQL is left running,
    // holding the data directory and the port, while the other processes stop.
    const orphan = postmasterPid();
    const watchdog = processesOf(dataDir).find((x) => x.cmdline.includes('factura-postgres-watchdog'));
    expect(watchdog, JSON.stringify(processesOf(dataDir))).toBeDefined();
    process.kill(watchdog!.pid, 'SIGKILL');
    await kill(second);
    await waitFor(
      () => processesOf(dataDir).every((x) => x.name === 'postgres'),
      20_000,
      100,
      'only the PostgreSQL left',
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(processesOf(dataDir).map((x) => x.pid)).toContain(orphan);

    // The next start stops it and comes up on the same data.
    const third = await start(env);
    expect(third.output()).toContain(
      `stopping the PostgreSQL an earlier start left running (process ${orphan})`,
    );
    expect(third.output()).not.toContain('export KEY=');
    expect(processesOf(dataDir).map((x) => x.pid)).not.toContain(orphan);
    expect(postmasterPid()).not.toBe(orphan);
    expect(await status()).toBe('aceptada');

    // A clean stop leaves nothing of this data directory running.
    expect(await stopService(third.child)).toBe(0);
    running.splice(running.indexOf(third), 1);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    await waitFor(() => processesOf(dataDir).length === 0, 5000, 100, 'no process of this data directory');
  }, 240_000);

  it('does not go embedded when PostgreSQL and Redis answer on the defaults', async () => {
    const p = await ports(5);
    const redis = await startRedisServer(p[4]!);
    cleanups.push(() => stopProcess(redis));
    const database = `factura_defaults_${randomBytes(4).toString('hex')}`;
    cleanups.push(async () => {
      const admin = new pg.Client({ connectionString: adminUrl() });
      await admin.connect();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    });
    const unusedDataDir = join(dataDir, 'not-used');
    const env = {
      ...serviceEnv(p, '{h-embd}'),
      DEFAULT_DATABASE_URL: testDatabaseUrl(database),
      DEFAULT_REDIS_URL: `redis://127.0.0.1:${p[4]}`,
      EMBEDDED_DATA_DIR: unusedDataDir,
    };
    const s = await start(env);
    expect(s.output()).toContain(`created database ${database}`);
    expect(s.output()).not.toMatch(/embedded mode/i);
    expect(existsSync(unusedDataDir)).toBe(false);
    // The queues are on the default Redis.
    const r = new Redis(`redis://127.0.0.1:${p[4]}`);
    try {
      await waitFor(async () => (await r.keys('{h-embd}*')).length > 0, 10_000, 100, 'queue keys in Redis');
    } finally {
      r.disconnect();
    }
    expect(await stopService(s.child)).toBe(0);
    running.splice(running.indexOf(s), 1);
  }, 120_000);
});
