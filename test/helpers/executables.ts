// Finds the command-line programs the tests drive (xmlsec1, chromium, PostgreSQL's initdb and
// pg_ctl) on this machine instead of assuming one machine's absolute paths: the PATH first, then
// the places Debian installs them. An explicit environment variable wins.
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first of `names` found on the PATH, else in `fallbackDirs`; null when none is installed. */
export function findExecutable(names: string[], fallbackDirs: string[] = []): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...fallbackDirs];
  for (const name of names)
    for (const dir of dirs) {
      const path = join(dir, name);
      if (executable(path)) return path;
    }
  return null;
}

/**
 * The folder holding PostgreSQL's server programs (initdb, pg_ctl): TEST_PG_BINDIR, else the
 * newest /usr/lib/postgresql/<version>/bin (Debian keeps them off the PATH), else the PATH.
 */
export function postgresBinDir(): string {
  if (process.env.TEST_PG_BINDIR) return process.env.TEST_PG_BINDIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => executable(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join(root, versions[0], 'bin');
  const initdb = findExecutable(['initdb']);
  if (initdb) return dirname(initdb);
  throw new Error('initdb not found: install the PostgreSQL server or set TEST_PG_BINDIR');
}
