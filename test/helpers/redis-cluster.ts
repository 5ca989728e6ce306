// A private Redis Cluster for scale-out tests: plain `redis-server` processes in cluster mode on
// loopback ports from a base port (node i on base + 1 + i, its cluster bus on base + 11 + i),
// joined with `redis-cli --cluster create … --cluster-replicas 1`. Files live in a temporary
// folder removed by stop(). Slots stay served by the other masters while one master is down
// (`cluster-require-full-coverage no`), and a replica takes over a dead master after the node
// timeout (2 s).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertBelowEphemeral } from './processes.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ClusterNodeInfo {
  port: number;
  role: 'master' | 'slave';
  /** Slot ranges served (masters), e.g. [[0, 5460]]. */
  slots: [number, number][];
  up: boolean;
}

export interface RedisClusterHandle {
  /** `127.0.0.1:p,127.0.0.1:p,…` for REDIS_CLUSTER_NODES. */
  nodes: string;
  ports: number[];
  /** The hash slot of a key (CLUSTER KEYSLOT). */
  keySlot(key: string): Promise<number>;
  /** The cluster as one of its live nodes sees it. */
  topology(): Promise<ClusterNodeInfo[]>;
  /** SIGKILLs the master serving `slot`, waits for its replica to take over; returns the ms that took. */
  killMasterOf(slot: number): Promise<{ killed: number; promoted: number; ms: number }>;
  /** Starts a killed node again (it rejoins as a replica of whoever took over). */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A cluster on the first block of ports from `basePort` (blocks 20 apart, at most `blocks` of them)
 * whose every port can be bound (another run's cluster may hold a block).
 */
export async function startRedisCluster(
  basePort: number,
  masters = 3,
  blocks = 20,
): Promise<RedisClusterHandle> {
  assertBelowEphemeral(basePort, basePort + 20 * blocks);
  let last: unknown = new Error('no free block of ports');
  for (let i = 0; i < blocks; i++) {
    const base = basePort + 20 * i;
    const ports = Array.from({ length: masters * 2 }, (_, n) => base + 1 + n);
    if (!(await allFree([...ports, ...ports.map((p) => p + 10)]))) continue;
    try {
      return await startCluster(base, masters);
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

async function allFree(ports: number[]): Promise<boolean> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
  for (const port of ports) if (!(await free(port))) return false;
  return true;
}

async function startCluster(basePort: number, masters: number): Promise<RedisClusterHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const ports = Array.from({ length: masters * 2 }, (_, i) => basePort + 1 + i);
  const procs = new Map<number, ChildProcess>();
  const nodeDir = (port: number) => {
    const d = join(dir, String(port));
    mkdirSync(d, { recursive: true });
    return d;
  };
  const start = async (port: number) => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--cluster-port',
        String(port + 10),
        '--bind',
        '127.0.0.1',
        '--dir',
        nodeDir(port),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '2000',
        '--cluster-require-full-coverage',
        'no',
        '--cluster-replica-validity-factor',
        '0',
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server ${port} did not start`)), 10_000);
      child.stdout!.on('data', (b: Buffer) => {
        if (/Ready to accept connections/i.test(b.toString())) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`redis-server ${port} exited with ${code}`)));
    });
    child.stdout!.resume();
    procs.set(port, child);
  };
  const cli = (port: number, ...args: string[]) =>
    run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 }).then((r) => r.stdout);
  const alive = () => ports.filter((p) => procs.has(p));

  const topology = async (): Promise<ClusterNodeInfo[]> => {
    for (const port of alive()) {
      try {
        const text = await cli(port, 'cluster', 'nodes');
        return text
          .trim()
          .split('\n')
          .map((line) => {
            const [, addr, flags, , , , , , ...slots] = line.split(' ');
            return {
              port: Number(addr!.split('@')[0]!.split(':')[1]),
              role: flags!.includes('master') ? 'master' : 'slave',
              up: !/fail|noaddr/.test(flags!.replace('fail?', '')) && !flags!.includes('fail'),
              slots: slots
                .filter((s) => /^\d/.test(s))
                .map((s) => {
                  const [a, b] = s.split('-').map(Number);
                  return [a!, b ?? a!] as [number, number];
                }),
            } satisfies ClusterNodeInfo;
          });
      } catch {
        // that node is down: ask the next one
      }
    }
    throw new Error('no node of the cluster answers');
  };
  const healthy = async () => {
    for (const port of alive()) {
      const info = await cli(port, 'cluster', 'info').catch(() => '');
      if (!info.includes('cluster_state:ok')) return false;
    }
    const t = await topology();
    if (t.filter((n) => n.role === 'master' && n.up && n.slots.length).length !== masters) return false;
    // Every live replica has caught up with its master (else it could not take over).
    for (const n of t.filter((x) => x.role === 'slave' && procs.has(x.port))) {
      const info = await cli(n.port, 'info', 'replication').catch(() => '');
      if (!info.includes('master_link_status:up')) return false;
    }
    return true;
  };
  const waitHealthy = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await healthy())) {
      if (Date.now() > deadline) throw new Error('the Redis Cluster did not become healthy');
      await sleep(100);
    }
  };

  try {
    const started = await Promise.allSettled(ports.map(start));
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 60_000 },
    );
    await waitHealthy(60_000);
  } catch (err) {
    for (const p of procs.values()) p.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  return {
    nodes: ports.map((p) => `127.0.0.1:${p}`).join(','),
    ports,
    topology,
    keySlot: async (key) => Number((await cli(alive()[0]!, 'cluster', 'keyslot', key)).trim()),
    async killMasterOf(slot) {
      const before = await topology();
      const master = before.find(
        (n) => n.role === 'master' && n.slots.some(([a, b]) => slot >= a && slot <= b),
      );
      if (!master) throw new Error(`no master serves slot ${slot}`);
      const child = procs.get(master.port)!;
      procs.delete(master.port);
      const from = Date.now();
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      const deadline = Date.now() + 60_000;
      for (;;) {
        const t = await topology().catch(() => []);
        const now = t.find(
          (n) => n.role === 'master' && n.up && n.slots.some(([a, b]) => slot >= a && slot <= b),
        );
        if (now && now.port !== master.port && (await healthy())) {
          return { killed: master.port, promoted: now.port, ms: Date.now() - from };
        }
        if (Date.now() > deadline) throw new Error('no replica took over');
        await sleep(100);
      }
    },
    async restart(port) {
      await start(port);
      await waitHealthy(60_000);
    },
    async stop() {
      await Promise.all(
        [...procs.values()].map(
          (p) =>
            new Promise<void>((resolve) => {
              if (p.exitCode !== null) return resolve();
              p.once('exit', () => resolve());
              p.kill('SIGKILL');
            }),
        ),
      );
      procs.clear();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
