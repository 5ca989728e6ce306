// `npm start` (scripts/start.ts) as a child of a test, for the embedded-mode tests: started with
// an environment of the test's (no DATABASE_URL/REDIS_URL of the machine's), waited for until it
// prints its URLs, stopped with SIGTERM or killed; and the processes of one run found by their
// data directory (EMBEDDED_DATA_DIR in their environment, or the directory on their command line).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { projectRoot } from '../../config/index.ts';
import { waitFor } from './wait.ts';

export interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Starts `npm start` with `env` over this process's (less its server URLs); does not wait. */
export function spawnStart(env: Record<string, string>): Started {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const v of ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'QUEUE_SHARDS', 'FACTURA_EMBEDDED'])
    delete base[v];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  return { child, output: () => out };
}

/** Starts `npm start` and waits until it prints its URLs (and the first run's key, if any). */
export async function startService(env: Record<string, string>): Promise<Started> {
  const started = spawnStart(env);
  await waitFor(
    () => {
      if (started.child.exitCode !== null)
        throw new Error(`npm start exited (${started.child.exitCode}):\n${started.output()}`);
      return /Service ready:[\s\S]*(npm run cli -- key create|Issue an invoice[\s\S]*status=aceptada)/.test(
        started.output(),
      );
    },
    90_000,
    100,
    'npm start to print its URLs',
  );
  return started;
}

/** Sends `signal` and resolves with the exit code (null when killed by a signal). */
export async function stopService(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}

export interface RunProcess {
  pid: number;
  /** The program's name (`postgres`, `node`, `sh`). */
  name: string;
  cmdline: string;
}

/** Processes (other than this one) whose environment or command line names `dataDir`. */
export function processesOf(dataDir: string, alsoNamed: string[] = []): RunProcess[] {
  const found: RunProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'latin1');
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (
        environ.includes(`EMBEDDED_DATA_DIR=${dataDir}\0`) ||
        [dataDir, ...alsoNamed].some((d) => cmdline.includes(d))
      ) {
        const name = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
        // A zombie is gone but for its parent's wait.
        if (!/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${entry}/stat`, 'utf8')))
          found.push({ pid: Number(entry), name, cmdline: cmdline.replaceAll('\0', ' ').trim() });
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Kills whatever of the run is left (a test's last resort, after its assertions). */
export function killAll(dataDir: string, alsoNamed: string[] = []): void {
  for (const p of processesOf(dataDir, alsoNamed)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
