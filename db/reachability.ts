// Start-up checks: tell the operator exactly which URL failed and how to fix it,
// instead of a stack trace from deep inside a driver.
import { isDatabaseUnavailable } from './connection.ts';

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    // A Cluster's `redis+cluster://user:pass@h:p,h:p` is not a URL the parser takes.
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  }
}

export function describeConnectionFailure(kind: 'postgres' | 'redis', url: string, err: unknown): string {
  const reason = err instanceof Error ? err.message : String(err);
  if (kind === 'postgres') {
    return [
      `Cannot reach PostgreSQL at ${redact(url)} (${reason}).`,
      'Set DATABASE_URL to a reachable server, e.g. DATABASE_URL=postgres://user:pass@host:5432/factura,',
      'or start a local one: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
    ].join('\n');
  }
  return [
    `Cannot reach Redis at ${redact(url)} (${reason}).`,
    'Set REDIS_URL to a reachable server, e.g. REDIS_URL=redis://host:6379 (a Cluster:',
    'REDIS_CLUSTER_NODES=host:port,host:port),',
    'or start a local one: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
  ].join('\n');
}

/** A process waiting for Redis at start: the first notice says how to fix it, later ones how long. */
export function describeRedisWait(url: string, err: unknown, waited: { first: boolean; ms: number }): string {
  if (waited.first)
    return `${describeConnectionFailure('redis', url, err)}\nWaiting for Redis: this process comes up as soon as it answers.`;
  const reason = err instanceof Error ? err.message : String(err);
  return `Still waiting for Redis at ${redact(url)} (${reason}) after ${Math.round(waited.ms / 1000)} s.`;
}

/** A process waiting for PostgreSQL at start: the first notice says how to fix it, later ones how long. */
export function describePostgresWait(
  url: string,
  err: unknown,
  waited: { first: boolean; ms: number },
): string {
  if (waited.first)
    return `${describeConnectionFailure('postgres', url, err)}\nWaiting for PostgreSQL: this process comes up as soon as it answers.`;
  const reason = err instanceof Error ? err.message : String(err);
  return `Still waiting for PostgreSQL at ${redact(url)} (${reason}) after ${Math.round(waited.ms / 1000)} s.`;
}

/**
 * Runs `check` (a first query) until PostgreSQL answers it. While the server is unreachable
 * (isDatabaseUnavailable: refused, reset, starting up...) it retries every `retryMs` and calls
 * `onWait` at most every `everyMs`; any other error (a wrong password, a missing database) is
 * thrown at once. Returns what `check` returned.
 */
export async function untilPostgresReady<T>(
  check: () => Promise<T>,
  onWait: (err: unknown, waited: { first: boolean; ms: number }) => void,
  opts: { everyMs?: number; retryMs?: number } = {},
): Promise<T> {
  const everyMs = opts.everyMs ?? 10_000;
  const retryMs = opts.retryMs ?? 1_000;
  const since = Date.now();
  let told = -Infinity;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      if (Date.now() - told >= everyMs) {
        const first = told < 0;
        told = Date.now();
        onWait(err, { first, ms: told - since });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}
