// Which servers a command on this machine talks to, decided the same way by `npm start` and by the
// command-line tool. Embedded mode when FACTURA_EMBEDDED=1, or when no DATABASE_URL, REDIS_URL or
// REDIS_CLUSTER_NODES is given and PostgreSQL or Redis does not answer at the default addresses
// (DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL). In embedded mode without a DATABASE_URL, the tool
// finds the server `npm start` runs from its data directory: the cluster's `postmaster.pid` (a live
// process, and the port it listens on) and the password file beside it, in the configured
// directory or, as root, in the directory it was moved to (embedded-data-dir.ts).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../config/index.ts';
import { createRedis, waitForRedis } from '../platform/redis.ts';
import { relocatedDataDir } from './embedded-data-dir.ts';

type Env = Record<string, string | undefined>;

/** Whether a server answers at `url` within 1,5 s (an error from the server counts as an answer). */
export async function answers(kind: 'postgres' | 'redis', url: string): Promise<boolean> {
  if (kind === 'postgres') {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
    c.on('error', () => {});
    try {
      await c.connect();
      return true;
    } catch (err) {
      // A server that answers with an error (no such database, a refused login) answers: the
      // normal start-up then creates the database or says what is wrong.
      return /^[0-9A-Z]{5}$/.test((err as { code?: string }).code ?? '');
    } finally {
      await c.end().catch(() => {});
    }
  }
  const r = createRedis(url, 'api', { retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await waitForRedis(r, 1500);
    return true;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** Why embedded mode applies (for the banner), or null when the configured servers are used. */
export async function embeddedReason(config: Config, env: Env = process.env): Promise<string | null> {
  if (config.embedded) return 'FACTURA_EMBEDDED=1';
  if (['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES'].some((v) => env[v])) return null;
  const [pgUp, redisUp] = await Promise.all([
    answers('postgres', config.databaseUrl),
    answers('redis', config.redisUrl),
  ]);
  if (pgUp && redisUp) return null;
  const [what, url] = !pgUp ? ['PostgreSQL', config.databaseUrl] : ['Redis', config.redisUrl];
  return `no DATABASE_URL or REDIS_URL, and no ${what} at ${new URL(url).host}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // Another user's process (the `postgres` user's, under root's start) exists all the same.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface RunningServer {
  /** postgres://… of the `factura` database. */
  url: string;
  dataDir: string;
}

/**
 * The embedded server running for the data directory `configured` (EMBEDDED_DATA_DIR, `.local/`
 * by default), or null when none runs: its postmaster.pid names a live process and its port.
 */
export function runningEmbeddedServer(configured: string): RunningServer | null {
  for (const dataDir of [configured, relocatedDataDir(configured)]) {
    const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
    const passwordFile = join(dataDir, 'postgres.password');
    if (!existsSync(pidFile) || !existsSync(passwordFile)) continue;
    // postmaster.pid: the process id, the data directory, the start time, the port, …
    const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
    if (!/^\d+$/.test(pid ?? '') || !/^\d+$/.test(port ?? '') || !alive(Number(pid))) continue;
    const password = readFileSync(passwordFile, 'utf8').trim();
    return {
      url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${Number(port)}/factura`,
      dataDir,
    };
  }
  return null;
}
