// The bench's output: the targets table on stdout (figure, the machine limit measured beside it,
// ratio, target ratio, met), then the other figures and the same targets as a Markdown table;
// results.json holds the same rows, every stage's figures and the machine's identity.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { InfoRow, TargetRow } from './targets.ts';

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
    : `${typeof v === 'number' ? v.toLocaleString('en', { maximumFractionDigits: 3 }) : v}${unit && unit !== 'x' ? ` ${unit}` : unit}`;

function table(header: string[], cells: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** The targets: figure, the machine limit beside it, the ratio, the target ratio, met or not. */
export function renderTargets(rows: TargetRow[]): string {
  return table(
    ['stage', 'figure', 'value', 'machine limit', 'limit', 'ratio', 'target', 'target ratio', 'met'],
    rows.map((r) => [
      r.stage,
      r.figure,
      fmt(r.value, r.unit),
      r.limit,
      fmt(r.limit_value, r.limit_unit),
      fmt(r.ratio),
      r.target,
      `${r.direction} ${fmt(r.target_ratio)}`,
      r.met ? 'met' : 'NOT met',
    ]),
  );
}

/** Other figures worth reading beside the targets (estimates, growth, the signing path). */
export function renderInfo(rows: InfoRow[]): string {
  return table(
    ['stage', 'figure', 'value', 'beside', 'value ', 'ratio'],
    rows.map((r) => [
      r.stage,
      r.figure,
      fmt(r.value, r.unit),
      r.limit,
      fmt(r.limit_value),
      r.ratio === null || !Number.isFinite(r.ratio) ? '—' : `${fmt(r.ratio)}x`,
    ]),
  );
}

/** A Markdown table cell's text, its pipes escaped. */
export const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The targets as a Markdown table (Figure | Value | Limit | Ratio | Target | Met), for a README. */
export function renderMarkdown(rows: TargetRow[]): string {
  return [
    '| Figure | Value | Limit | Ratio | Target | Met |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${[
          `${r.stage}: ${r.figure}`,
          fmt(r.value, r.unit),
          `${r.limit} (${fmt(r.limit_value, r.limit_unit)})`,
          fmt(r.ratio),
          r.target.endsWith('× limit')
            ? r.target
            : `${r.target} (ratio ${r.direction === '>=' ? '≥' : '≤'} ${fmt(r.target_ratio)})`,
          r.met ? 'yes' : 'no',
        ]
          .map(cell)
          .join(' | ')} |`,
    ),
  ].join('\n');
}

export function writeResults(path: string, results: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(results, null, 2) + '\n');
}
