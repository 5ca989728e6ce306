// Real processes for fault tests: a worker process (killed with SIGKILL on purpose) and a
// private redis-server on its own port (stopped and started on purpose) so other test files
// sharing the machine's Redis are never disturbed. Ports are taken free from the OS, programs
// found on this machine (executables.ts), and a private server's files live in the OS temporary
// folder and are removed when it stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { projectRoot } from '../../config/index.ts';
import { postgresBinDir } from './executables.ts';

/** Starts `workers/main.ts`; its output goes to `logFile` (test/artifacts/worker-<pid>-<time>-<n>.log). */
export function startWorkerProcess(env: Record<string, string>): ChildProcess & { logFile: string } {
  const dir = join(projectRoot, 'test/artifacts');
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, `worker-${process.pid}-${Date.now()}-${++started}.log`);
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG ?? 'warn', ...env },
    stdio: ['ignore', out, out],
  });
  return Object.assign(child, { logFile });
}
let started = 0;

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Refuses a fixed port range that overlaps the OS's ephemeral range: there, connections of the
 * tests running beside it leave ports in TIME_WAIT that a listener cannot bind, and on a busy run
 * every port of a small range can be held.
 */
export function assertBelowEphemeral(from: number, to: number): void {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    // not Linux: keep the common default
  }
  if (to >= low) throw new Error(`test ports ${from}–${to} reach the ephemeral range (from ${low})`);
}

/** The first port from `from` to `to` that can be bound now (not one of `except`). */
export async function freePortIn(from: number, to: number, except: number[] = []): Promise<number> {
  assertBelowEphemeral(from, to);
  for (let port = from; port <= to; port++) {
    if (except.includes(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port from ${from} to ${to}`);
}

export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start')), 10_000);
    child.stdout!.on('data', (b: Buffer) => {
      if (/Ready to accept connections/i.test(b.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return child;
}

export interface PrivatePostgres {
  url(database?: string): string;
  port: number;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A private PostgreSQL instance (initdb in a temporary folder, its own port) for tests that
 * stop and restart the database, so other test files sharing the machine's server are never
 * disturbed. As root it runs as the `postgres` system user (PostgreSQL refuses to run as root);
 * otherwise as the current user. stop() removes its folder. Its port: `port`, else a free one.
 */
export async function startPostgresServer(options: { port?: number } = {}): Promise<PrivatePostgres> {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, chmodSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const bin = postgresBinDir();
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const asPg = (cmd: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], {
          stdio: 'pipe',
          timeout: 60_000,
        })
      : execFileSync(join(bin, cmd), args, { stdio: 'pipe', timeout: 60_000 });
  asPg('initdb', ['-D', data, '--auth=trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const start = () => asPg('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']);
  try {
    start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async restart() {
      asPg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      start();
    },
    async stop() {
      try {
        asPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts `api/server.ts` on a port without waiting for it; output to `logFile` in test/artifacts.
 * `fdLimit` lowers the process's limit on open files (ulimit -n: Node raises its soft limit to the hard one).
 */
export function spawnApiProcess(
  env: Record<string, string>,
  port: number,
  options: { fdLimit?: number } = {},
): ChildProcess & { logFile: string } {
  const dir = join(projectRoot, 'test/artifacts');
  mkdirSync(dir, { recursive: true });
  const logFile = join(dir, `api-${port}-${Date.now()}.log`);
  const out = openSync(logFile, 'a');
  const node = [process.execPath, '--import', 'tsx', 'api/server.ts'];
  const [command, ...args] =
    options.fdLimit === undefined
      ? node
      : ['sh', '-c', `ulimit -n ${Math.floor(options.fdLimit)} && exec "$@"`, 'sh', ...node];
  const child = spawn(command!, args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG ?? 'warn',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', out, out],
  });
  return Object.assign(child, { logFile });
}

/** Starts `api/server.ts` on a port; resolves once /ready answers. Output to test/artifacts. */
export async function startApiProcess(
  env: Record<string, string>,
  port: number,
  options: { fdLimit?: number } = {},
): Promise<ChildProcess> {
  const child = spawnApiProcess(env, port, options);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`api process exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('api process did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
}
