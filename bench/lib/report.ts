// The bench's output: one table on stdout (stage, figure, target, met, the machine-limit figure
// beside it and the ratio) and the same rows, every stage's figures and the machine's identity
// in results.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { TableRow } from './context.ts';

export function machine(): { node: string; cpu_model: string; cores: number; memory_mb: number } {
  const c = cpus();
  return {
    node: process.version,
    cpu_model: c[0]?.model.trim() ?? 'unknown',
    cores: c.length,
    memory_mb: Math.round(totalmem() / 1024 / 1024),
  };
}

const fmt = (v: number | string | null, unit = ''): string =>
  v === null || (typeof v === 'number' && !Number.isFinite(v))
    ? '—'
    : `${typeof v === 'number' ? v.toLocaleString('en', { maximumFractionDigits: 2 }) : v}${unit && unit !== 'x' ? ` ${unit}` : unit}`;

export function renderTable(rows: TableRow[]): string {
  const header = ['stage', 'figure', 'value', 'target', 'met', 'machine limit', 'limit', 'ratio'];
  const cells = rows.map((r) => [
    r.stage,
    r.figure,
    fmt(r.value, r.unit),
    r.target,
    r.met === null ? '—' : r.met ? 'met' : 'NOT met',
    r.limit,
    fmt(r.limitValue, r.unit === 'x' ? '' : r.unit),
    r.ratio === null || !Number.isFinite(r.ratio) ? '—' : `${fmt(r.ratio)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

export function writeResults(path: string, results: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(results, null, 2) + '\n');
}
