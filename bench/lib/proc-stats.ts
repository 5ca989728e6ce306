// What the processes cost while a stage runs, read from /proc (Linux): resident memory of the
// API and workers sampled every 200 ms (VmRSS, and VmHWM, the kernel's own peak), and CPU seconds
// per process group next to the whole machine's busy time, which shows where a stage's CPU went.
// Groups: the API, every worker process together, the simulator, the Postgres processes that
// serve the scratch database (its backends and the server's own background processes, not the
// backends of other databases on a shared server), redis-server (shared: other users' commands
// count too), and the bench process itself (load generator and webhook receiver), kept apart
// from the service.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

const CLK_TCK = 100;
const round2 = (x: number) => Math.round(x * 100) / 100; // USER_HZ on Linux x86-64 and arm64

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export const rssMb = (pid: number): number | null => {
  const kb = statusKb(pid, 'VmRSS');
  return kb === null ? null : kb / 1024;
};
export const hwmMb = (pid: number): number | null => {
  const kb = statusKb(pid, 'VmHWM');
  return kb === null ? null : kb / 1024;
};

export interface RssSeries {
  samples: number[];
  peakMb: number;
  hwmMb: number | null;
  /** Mean of the last quarter of samples over the mean of the second quarter. */
  growth: number;
}

export interface RssSampler {
  stop(): Record<string, RssSeries>;
}

export function sampleRss(pids: Record<string, number>, everyMs = 200): RssSampler {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(pids).map((k) => [k, []]));
  const tick = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const mb = rssMb(pid);
      if (mb !== null) samples[name]!.push(mb);
    }
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return Object.fromEntries(
        Object.entries(samples).map(([name, s]) => {
          const q = Math.floor(s.length / 4);
          const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / Math.max(1, a.length);
          const second = mean(s.slice(q, 2 * q));
          const last = mean(s.slice(s.length - q));
          return [
            name,
            {
              samples: s,
              peakMb: Math.max(0, ...s),
              hwmMb: hwmMb(pids[name]!),
              growth: q > 0 && second > 0 ? last / second : 1,
            },
          ];
        }),
      );
    },
  };
}

function ticksOf(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime + stime
  } catch {
    return 0;
  }
}

/**
 * CPU time of one process in nanoseconds: /proc/<pid>/schedstat (time on a CPU, every thread),
 * or utime + stime in ticks where the kernel keeps no schedstat. 0 once the process is gone.
 */
export function cpuNsOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return ticksOf(pid) * (1e9 / CLK_TCK);
  }
}

/**
 * Waits until `pid` spends under `percent` of one core over half a second (at most `maxMs`): the
 * work a process does just after it is ready (the API builds its response serializers once it
 * listens) is over before anything is measured. Resolves with the milliseconds waited.
 */
export async function untilQuiet(pid: number, percent = 5, maxMs = 20_000): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const before = ticksOf(pid);
    await new Promise((r) => setTimeout(r, 500));
    const used = ((ticksOf(pid) - before) / CLK_TCK / 0.5) * 100;
    const waited = performance.now() - t0;
    if (used < percent || waited >= maxMs) return Math.round(waited);
  }
}

/** CPU milliseconds of a process's own clock (process.cpuUsage) between two readings. */
export function ownCpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

function commTicks(comm: string): number {
  let total = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === comm) total += ticksOf(d);
    } catch {
      // gone
    }
  }
  return total;
}

function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return user! + nice! + system! + irq! + softirq! + steal!;
}

export interface CpuSnapshot {
  at: number;
  /** Ticks per group, and per pid of the groups read pid by pid (a pid seen first later counts from 0). */
  groups: Record<string, number>;
  pids: Record<string, Record<number, number>>;
  machine: number;
}

/**
 * CPU ticks of each group of pids. Postgres backends come and go: a backend born during the
 * interval counts from zero, one that ended during it loses what it spent after the first reading.
 */
export function cpuSnapshot(groups: Record<string, number[]>): CpuSnapshot {
  const pids: Record<string, Record<number, number>> = {};
  const totals: Record<string, number> = {};
  for (const [name, list] of Object.entries(groups)) {
    pids[name] = Object.fromEntries(list.map((pid) => [pid, ticksOf(pid)]));
    totals[name] = Object.values(pids[name]!).reduce((a, b) => a + b, 0);
  }
  totals.redis = commTicks('redis-server');
  totals.bench = ticksOf(process.pid);
  return { at: performance.now(), groups: totals, pids, machine: machineBusyTicks() };
}

/** Ticks a pid-by-pid group spent between two readings (pids of either reading). */
function groupDelta(a: CpuSnapshot, b: CpuSnapshot, name: string): number {
  const before = a.pids[name];
  const after = b.pids[name];
  if (!before || !after) return (b.groups[name] ?? 0) - (a.groups[name] ?? 0);
  let ticks = 0;
  for (const [pid, t] of Object.entries(after)) ticks += t - (before[Number(pid)] ?? 0);
  return Math.max(0, ticks);
}

export interface CpuUse {
  seconds: number;
  /** Busy CPU-seconds per group over the interval. */
  cpuSeconds: Record<string, number>;
  /** Share of the machine's capacity (cores × seconds) each group used, in %. */
  percentOfMachine: Record<string, number>;
}

export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): CpuUse {
  const seconds = (b.at - a.at) / 1000;
  const capacity = seconds * cpus().length;
  const cpuSeconds: Record<string, number> = {};
  const percentOfMachine: Record<string, number> = {};
  const add = (name: string, ticks: number) => {
    cpuSeconds[name] = Math.round((ticks / CLK_TCK) * 100) / 100;
    percentOfMachine[name] = capacity > 0 ? Math.round((ticks / CLK_TCK / capacity) * 1000) / 10 : 0;
  };
  let known = 0;
  for (const name of Object.keys(b.groups)) {
    const ticks = groupDelta(a, b, name);
    known += ticks;
    add(name, ticks);
  }
  // Everything else on the machine (other people's tests, xmllint, the kernel's own threads).
  add('other', Math.max(0, b.machine - a.machine - known));
  add('machine', b.machine - a.machine);
  return { seconds, cpuSeconds, percentOfMachine };
}

/** CPU milliseconds per unit (invoice, request) for each process group, the machine's included. */
export function perInvoice(cpuSeconds: Record<string, number>, units: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(cpuSeconds).map(([k, sec]) => [
      k,
      units > 0 ? Math.round((sec * 1e5) / units) / 100 : NaN,
    ]),
  );
}

/**
 * The service's processes. Not counted: the simulator (Hacienda's work, on Hacienda's machines),
 * `bench` (load generator and receiver) and `other`; each is printed apart.
 */
export const SERVICE_GROUPS = ['api', 'worker', 'postgres', 'redis'];

/** CPU ms per unit of the service's processes together. */
export function serviceCpuMs(msPerUnit: Record<string, number>): number {
  return Math.round(SERVICE_GROUPS.reduce((a, k) => a + (msPerUnit[k] ?? 0), 0) * 100) / 100;
}

/**
 * What the stage's rate would be if the service's processes (API, worker, Postgres, Redis) had
 * every core to themselves at the CPU cost per unit measured: cores × 1000 ÷ their
 * CPU ms per unit. On a machine shared with other work this is the figure to compare runs by.
 */
export function cpuCeiling(msPerUnit: Record<string, number>): {
  service_cpu_ms_per_unit: number;
  ceiling_per_s: number;
} {
  const ms = serviceCpuMs(msPerUnit);
  return {
    service_cpu_ms_per_unit: ms,
    ceiling_per_s: ms > 0 ? Math.round((cpus().length * 1000) / ms) : NaN,
  };
}

/** The service's CPU over an interval: ms in all, % of one core, and each group's % of one core. */
export function serviceLoad(cpu: CpuUse): {
  cpu_ms: number;
  percent_of_one_core: number;
  groups: Record<string, number>;
} {
  const ms = serviceCpuMs(Object.fromEntries(Object.entries(cpu.cpuSeconds).map(([k, s]) => [k, s * 1000])));
  const pct = (s: number) => round2((s / Math.max(cpu.seconds, 1e-9)) * 100);
  return {
    cpu_ms: ms,
    percent_of_one_core: pct(ms / 1000),
    groups: Object.fromEntries(Object.entries(cpu.cpuSeconds).map(([k, s]) => [k, pct(s)])),
  };
}
