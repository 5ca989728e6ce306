// How the command-line tool finds the embedded PostgreSQL of a running `npm start`: the cluster's
// postmaster.pid (a live process and its port) and the password file of the data directory.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runningEmbeddedServer } from '../scripts/embedded-choice.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A data directory as `npm start` leaves it while its server runs as process `pid` on `port`. */
function dataDir(pid: number | null, port: number, password = 'clave+/='): string {
  const dir = mkdtempSync(join(tmpdir(), 'factura-choice-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'postgres'));
  writeFileSync(join(dir, 'postgres.password'), `${password}\n`);
  if (pid !== null)
    writeFileSync(
      join(dir, 'postgres', 'postmaster.pid'),
      `${pid}\n${dir}/postgres\n1764294000\n${port}\n\n`,
    );
  return dir;
}

describe('runningEmbeddedServer', () => {
  it('reads the port of the running server and its password', () => {
    const dir = dataDir(process.pid, 54329);
    expect(runningEmbeddedServer(dir)).toEqual({
      url: 'postgres://postgres:clave%2B%2F%3D@127.0.0.1:54329/factura',
      dataDir: dir,
    });
  });

  it('finds none when the server is not running or never ran', () => {
    // A process id beyond the kernel's limit (4194304) names no process.
    expect(runningEmbeddedServer(dataDir(4_194_305, 54329))).toBeNull();
    expect(runningEmbeddedServer(dataDir(null, 54329))).toBeNull();
  });
});
