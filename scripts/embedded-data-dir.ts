// Where embedded mode's data lives. Normally the configured directory (EMBEDDED_DATA_DIR, `.local/`
// of the checkout by default). As root the server runs as the `postgres` user (PostgreSQL refuses
// to run as root), who must reach the cluster's directory: inside a checkout only root may enter (a
// 0700 directory, as a fresh temporary clone often is) it cannot. The data then lives in a directory
// of its own for that configured path, /var/tmp/factura-embedded-<hash of the path> (/var/tmp is
// kept across reboots, unlike /tmp on many systems): owned by root, mode 0755, holding the password
// file (root's, 0600) and the cluster (the `postgres` user's, 0700). The same checkout finds the
// same directory at every start, and `npm start`'s banner names it.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reachableBy, type UserIds } from './embedded-binaries.ts';

export interface DataDir {
  dir: string;
  /** True when the configured directory was out of the `postgres` user's reach. */
  relocated: boolean;
}

/** The directory used for `configured` when the server runs as another user (`ids`), as root. */
export function relocatedDataDir(configured: string): string {
  const base = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const hash = createHash('sha256').update(configured).digest('hex').slice(0, 16);
  return join(base, `factura-embedded-${hash}`);
}

/**
 * The data directory for `configured`, created if needed. `ids`: the server's user when this runs
 * as root (null otherwise: the configured directory, as it is).
 */
export async function embeddedDataDir(configured: string, ids: UserIds | null): Promise<DataDir> {
  await mkdir(configured, { recursive: true });
  if (!ids) return { dir: configured, relocated: false };
  // The server's user must pass through the directory to its cluster (which it owns).
  if (!existsSync(join(configured, 'postgres', 'PG_VERSION'))) await chmod(configured, 0o755);
  if (reachableBy(configured, ids)) return { dir: configured, relocated: false };
  const dir = relocatedDataDir(configured);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  // A predictable name in a directory everyone may write: it must be root's own directory (not a
  // link, not someone else's), or it is not used.
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== 0)
    throw new Error(`${dir} is not a directory of root's; remove it or set EMBEDDED_DATA_DIR`);
  await chmod(dir, 0o755);
  if (!reachableBy(dir, ids)) throw new Error(`the postgres user cannot enter ${dir} either`);
  return { dir, relocated: true };
}
