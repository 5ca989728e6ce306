// What `npm start` does with the postmaster.pid it finds in its embedded cluster before starting
// the server (scripts/embedded-orphan.ts): a PostgreSQL of this data directory whose parent is
// gone is stopped; a file naming a process that is another program, or a PostgreSQL of another data
// directory, is stale and removed, and that process is left alone.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { stopOrphanServer } from '../scripts/embedded-orphan.ts';
import { freePortIn, startPostgresServer, stopProcess } from './helpers/processes.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c().catch(() => undefined);
});

/** A cluster directory holding only a postmaster.pid naming `pid`. */
function clusterNaming(pid: number): { dataDir: string; clusterDir: string; pidFile: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'factura-orphan-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const clusterDir = join(dataDir, 'postgres');
  const pidFile = join(clusterDir, 'postmaster.pid');
  mkdirSync(clusterDir);
  writeFileSync(pidFile, `${pid}\n${clusterDir}\n`);
  return { dataDir, clusterDir, pidFile };
}

describe('a postmaster.pid found at start', () => {
  it('stops a PostgreSQL of this data directory whose parent is gone', async () => {
    const server = await startPostgresServer({ port: await freePortIn(24700, 24799) });
    cleanups.push(() => server.stop());
    const c = new pg.Client({ connectionString: server.url() });
    await c.connect();
    const clusterDir = (await c.query<{ d: string }>(`select current_setting('data_directory') as d`))
      .rows[0]!.d;
    await c.end();
    const lines: string[] = [];
    await stopOrphanServer(dirname(clusterDir), clusterDir, (l) => lines.push(l));
    expect(lines.join('\n')).toMatch(/stopping the PostgreSQL an earlier start left running \(process \d+\)/);
    // A fast shutdown: the lock file is gone with the server.
    expect(existsSync(join(clusterDir, 'postmaster.pid'))).toBe(false);
    const again = new pg.Client({ connectionString: server.url(), connectionTimeoutMillis: 1000 });
    again.on('error', () => {});
    await expect(again.connect()).rejects.toThrow();
  });

  it('removes a file naming another program and leaves the program alone', async () => {
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    cleanups.push(() => stopProcess(other));
    const { dataDir, clusterDir, pidFile } = clusterNaming(other.pid!);
    const lines: string[] = [];
    await stopOrphanServer(dataDir, clusterDir, (l) => lines.push(l));
    expect(existsSync(pidFile)).toBe(false);
    expect(lines.join('\n')).toContain(`process ${other.pid} is now sleep`);
    expect(other.exitCode === null && other.signalCode === null).toBe(true);
  });

  it('removes a file naming a PostgreSQL of another data directory and leaves that server alone', async () => {
    // A session of another PostgreSQL: a postgres process whose working directory is that
    // server's data directory.
    const server = await startPostgresServer({ port: await freePortIn(24700, 24799) });
    cleanups.push(() => server.stop());
    const session = new pg.Client({ connectionString: server.url() });
    await session.connect();
    cleanups.push(() => session.end());
    const pid = (await session.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const { dataDir, clusterDir, pidFile } = clusterNaming(pid);
    const lines: string[] = [];
    await stopOrphanServer(dataDir, clusterDir, (l) => lines.push(l));
    expect(existsSync(pidFile)).toBe(false);
    expect(lines.join('\n')).toContain(`process ${pid} is now postgres of /`);
    expect((await session.query<{ one: number }>('select 1 as one')).rows[0]!.one).toBe(1);
  });
});
