// The service's own processes, started the way the Procfile runs them (`node <compiled entry>`,
// or `node --import tsx <entry>` for the sources; one process each) with the bench's environment:
// the API (`web`), the worker and the Hacienda simulator (`sandbox`). Output goes to
// .local/bench/<name>.log; BENCH_PROFILE=api,worker adds `--cpu-prof`: profiles are written when
// the process exits, into .local/bench/profiles/<name>-<ms>/, one file per thread (the largest is
// the main thread; under tsx, the small one is its loader thread).
// Every child is stopped on exit, on an error and on Ctrl-C (see stopAll).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { projectRoot } from '../../config/index.ts';

export const benchDir = join(projectRoot, '.local/bench');
export const profileDir = join(benchDir, 'profiles');

export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  log: string;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** performance.now() at spawn, and the ms from spawn to ready once `waitUntil` saw it ready. */
  spawnedAt: number;
  readyMs?: number;
}

const children = new Set<Child>();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export function startChild(
  name: string,
  entry: string,
  env: Record<string, string>,
  opts: { profile?: boolean } = {},
): Child {
  mkdirSync(profileDir, { recursive: true });
  const log = join(benchDir, `${name}.log`);
  const out = createWriteStream(log, { flags: 'w' });
  const args = [
    ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, `${name}-${Date.now()}`)}`] : []),
    // TypeScript through tsx; a compiled entry (dist/…/*.js) with plain node.
    ...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []),
    resolve(projectRoot, entry),
  ];
  const proc = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const child: Child = { name, pid: proc.pid!, process: proc, log, exited, spawnedAt: performance.now() };
  children.add(child);
  void exited.then(() => children.delete(child));
  return child;
}

/** SIGTERM (the processes shut down gracefully), SIGKILL after `graceMs`. */
export async function stopChild(child: Child, graceMs = 15_000): Promise<void> {
  const p = child.process;
  if (p.exitCode !== null || p.signalCode !== null) return;
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

export async function stopAll(graceMs?: number): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c, graceMs)));
}

/** Last resort from a synchronous `exit` handler. */
export function killAllNow(): void {
  for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
}

export function assertRunning(child: Child): void {
  if (child.process.exitCode !== null || child.process.signalCode !== null)
    throw new Error(
      `${child.name} exited (${child.process.signalCode ?? child.process.exitCode}); see ${child.log}`,
    );
}

/** Polls `probe` until it returns true, failing early when the child dies. */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
  child?: Child,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child) assertRunning(child);
    try {
      if (await probe()) {
        if (child) child.readyMs ??= Math.round(performance.now() - child.spawnedAt);
        return;
      }
    } catch {
      // not ready yet
    }
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
