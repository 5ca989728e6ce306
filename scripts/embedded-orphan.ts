// A PostgreSQL left running by an earlier `npm start` of the same data directory. Normally the
// server does not outlive the start that ran it (its watchdog, scripts/embedded-postgres.ts), but
// a watchdog killed too, or a machine under pressure, can leave one behind: it holds the data
// directory (postmaster.pid) and the port, and a new server would refuse to start. Before starting
// its server, `npm start` looks at the cluster's postmaster.pid:
// - no file, or its process gone: nothing to do (PostgreSQL replaces a stale file itself);
// - its process id now belongs to another program, or to a postgres of another data directory
//   (after a reboot): the stale file is removed, the process left alone;
// - a postgres whose data directory cannot be told (another user's process, no /proc): left
//   alone; PostgreSQL then refuses to start and says why;
// - a postgres of this data directory (the postmaster's working directory is its data directory;
//   without /proc, its command line names it) whose parent is still the start that ran it (postgres.started-by names it): another
//   `npm start` uses this data directory, and this one stops with that message;
// - a postgres whose parent is gone: an orphan. It is asked for a fast shutdown (SIGINT: running
//   sessions end, a checkpoint, no recovery needed), then, if it is still there after 30 s, for an
//   immediate one (SIGQUIT: the next start recovers from the WAL; committed data is kept).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

interface ProcessInfo {
  name: string;
  ppid: number;
  zombie: boolean;
  /** The process's working directory (a postmaster's is its data directory); null: unknown. */
  cwd: string | null;
  /** Its command line, when `cwd` is unknown (`ps`); null otherwise. */
  args: string | null;
}

function cwdOf(pid: number): string | null {
  try {
    return realpathSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** Name, parent and state of a process (/proc on Linux, `ps` elsewhere); null when it is gone. */
function processInfo(pid: number): ProcessInfo | null {
  if (existsSync('/proc/self/stat')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return null;
    }
    // "<pid> (<name>) <state> <ppid> …"; the name may hold spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const [state, ppid] = stat.slice(close + 2).split(' ');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    return { name, ppid: Number(ppid), zombie: state === 'Z', cwd: cwdOf(pid), args: null };
  }
  const ps = spawnSync('ps', ['-o', 'ppid=,stat=,comm=', '-p', String(pid)], { encoding: 'utf8' });
  const m = /^\s*(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(ps.stdout ?? '');
  if (ps.status !== 0 || !m) return null;
  const args = spawnSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).stdout ?? '';
  return { name: basename(m[3]!), ppid: Number(m[1]), zombie: m[2]!.startsWith('Z'), cwd: null, args };
}

function running(pid: number): boolean {
  const info = processInfo(pid);
  return info !== null && !info.zombie;
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return;
    throw new Error(
      `cannot stop the PostgreSQL left running (process ${pid}, another user's?): ${(err as Error).message}`,
    );
  }
}

const STARTED_BY = 'postgres.started-by';

/** Records that this process runs the data directory's server (read by a later start). */
export async function recordStarter(dataDir: string): Promise<void> {
  await writeFile(join(dataDir, STARTED_BY), `${process.pid}\n`);
}

/** Stops an orphaned server of `clusterDir` (see above); throws when a live start still runs it. */
export async function stopOrphanServer(
  dataDir: string,
  clusterDir: string,
  log: (line: string) => void,
): Promise<void> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0) return;
  const info = processInfo(pid);
  if (!info || info.zombie) return;
  const here = realpathSync(clusterDir);
  const elsewhere = info.cwd !== null && info.cwd !== here;
  if (info.name !== 'postgres' || elsewhere) {
    log(
      `removing a stale ${pidFile} (process ${pid} is now ${info.name}${elsewhere ? ` of ${info.cwd}` : ''})`,
    );
    await unlink(pidFile).catch(() => undefined);
    return;
  }
  if (info.cwd === null && !info.args?.includes(`-D ${clusterDir}`)) return;
  let starter = 0;
  try {
    starter = Number(readFileSync(join(dataDir, STARTED_BY), 'utf8').trim());
  } catch {
    // a server started otherwise (by hand): its parent is not a start of this service
  }
  if (starter > 0 && info.ppid === starter && starter !== process.pid)
    throw new Error(
      `another npm start (process ${starter}) runs the PostgreSQL of this data directory (process ${pid})`,
    );
  log(`stopping the PostgreSQL an earlier start left running (process ${pid})`);
  signal(pid, 'SIGINT');
  if (await gone(pid, 30_000)) return;
  log(`PostgreSQL (process ${pid}) is still running after 30 s: immediate shutdown`);
  signal(pid, 'SIGQUIT');
  if (!(await gone(pid, 15_000)))
    throw new Error(`the PostgreSQL left running (process ${pid}) does not stop; stop it and start again`);
}
