// Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from BENCH_PROFILE=api,worker npm run
// bench): self time per function and per package or source file, heaviest first, so a stage's
// limit can be named from the numbers. Open the same file in Chrome DevTools for the flame graph.
//
//   npx tsx bench/profile-top.ts .local/bench/profiles/worker-…/*.cpuprofile [top=25]
// Several files (a process's main thread and its loader or worker threads) are summed.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../config/index.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const top = args.length > 1 && /^\d+$/.test(args.at(-1)!) ? Number(args.pop()) : 25;
const files = args;
if (!files.length) {
  console.error('usage: tsx bench/profile-top.ts <file.cpuprofile>... [top]');
  process.exit(2);
}
const file = files.join(' + ');
// Node ids are per file: each file's nodes are keyed by `<file index>:<id>`.
const byId = new Map<string, ProfileNode>();
const self = new Map<string, number>();
let totalUs = 0;
files.forEach((f, k) => {
  const profile = JSON.parse(readFileSync(f, 'utf8')) as Profile;
  for (const n of profile.nodes) byId.set(`${k}:${n.id}`, n);
  profile.samples.forEach((id, i) =>
    self.set(`${k}:${id}`, (self.get(`${k}:${id}`) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  totalUs += profile.endTime - profile.startTime;
});

function where(url: string): string {
  if (!url) return '(native)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (nm) return nm[1]!;
  if (path.startsWith('node:')) return path;
  return relative(projectRoot, path);
}

const fn = new Map<string, number>();
const pkg = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  if (n.callFrame.functionName === '(idle)') continue;
  const place = where(n.callFrame.url);
  const name = `${n.callFrame.functionName || '(anonymous)'}  ${place}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
  fn.set(name, (fn.get(name) ?? 0) + us);
  pkg.set(place, (pkg.get(place) ?? 0) + us);
}
const idle = [...self]
  .filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)')
  .reduce((a, [, us]) => a + us, 0);
const sampled = [...self.values()].reduce((a, b) => a + b, 0);
const busy = sampled - idle;
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `${((100 * us) / busy).toFixed(1).padStart(6)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`,
    );
};
console.log(
  `${file}: ${(totalUs / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy (${((100 * busy) / totalUs).toFixed(0)}%); shares below are of busy time`,
);
show('self time by package / file', pkg);
show('self time by function', fn);
