// How the command-line tool finds its database the way `npm start` does: DATABASE_URL; else the
// servers at the default addresses when both answer; else the embedded PostgreSQL of a running
// `npm start`, found by the cluster's postmaster.pid (a live process and its port) and the password
// file of the data directory.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliConfig } from '../cli/context.ts';
import { runningEmbeddedServer } from '../scripts/embedded-choice.ts';
import { adminUrl, testRedisUrl } from './helpers/db-urls.ts';
import { freePort } from './helpers/processes.ts';

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

describe('the command-line tool’s configuration', () => {
  it('uses the local servers when they answer on the default addresses, embedded mode otherwise', async () => {
    const dir = dataDir(process.pid, 54331);
    const base = { NODE_ENV: 'test', EMBEDDED_DATA_DIR: dir, DEFAULT_REDIS_URL: testRedisUrl() };
    const local = await cliConfig({ ...base, DEFAULT_DATABASE_URL: adminUrl() });
    expect(local.embedded).toBe(false);
    expect(local.databaseUrl).toBe(adminUrl());

    const closed = `postgres://postgres@127.0.0.1:${await freePort()}/factura`;
    const embedded = await cliConfig({ ...base, DEFAULT_DATABASE_URL: closed });
    expect(embedded.embedded).toBe(true);
    expect(embedded.databaseUrl).toBe('postgres://postgres:clave%2B%2F%3D@127.0.0.1:54331/factura');

    // DATABASE_URL wins, as with npm start.
    const given = await cliConfig({ ...base, DEFAULT_DATABASE_URL: closed, DATABASE_URL: adminUrl() });
    expect(given.databaseUrl).toBe(adminUrl());
    expect(given.embedded).toBe(false);
  });

  it('says to start the service when embedded mode applies and no embedded server runs', async () => {
    const dir = dataDir(null, 54331);
    await expect(
      cliConfig({ NODE_ENV: 'test', EMBEDDED_DATA_DIR: dir, FACTURA_EMBEDDED: '1' }),
    ).rejects.toThrow(/no hay un PostgreSQL integrado en marcha.*npm start/);
  });
});
