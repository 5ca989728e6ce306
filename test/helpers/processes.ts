// Real processes for fault tests: a worker process (killed with SIGKILL on purpose) and a
// private redis-server on its own port (stopped and started on purpose) so other test files
// sharing the machine's Redis are never disturbed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { projectRoot } from '../../config/index.ts';

/** Starts `workers/main.ts`; its output goes to test/artifacts/worker-<n>.log. */
export function startWorkerProcess(env: Record<string, string>): ChildProcess {
  const dir = join(projectRoot, 'test/artifacts');
  mkdirSync(dir, { recursive: true });
  const out = openSync(join(dir, `worker-${process.pid}-${Date.now()}.log`), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG ?? 'warn', ...env },
    stdio: ['ignore', out, out],
  });
  return child;
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

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

export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start')), 10_000);
    child.stdout!.on('data', (b: Buffer) => {
      if (/Ready to accept connections/i.test(b.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return child;
}
