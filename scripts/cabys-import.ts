// `npm run cabys:import -- <file> [version]`: rebuilds catalogues/cabys.tsv.gz from the official CABYS
// spreadsheet (Catalogo-de-bienes-servicios.xlsx, published by the Banco Central de Costa Rica)
// saved as CSV or TSV (UTF-8; any of tab, semicolon or comma). The sheet's header row names its
// columns: "Categoría 1" … "Categoría 8" with "Descripción (categoría N)", the code ("Categoría 9"
// or "Código del bien o servicio"), its description and "Impuesto". Every category level's name is
// kept, so the rebuilt file names all eight levels. `version` (e.g. "2026-01") goes into the file's
// comment line; catalogues/README.md says where the current file came from.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { projectRoot } from '../config/index.ts';
import { parseCabysTsv } from '../domain/cabys.ts';

/** The rows of a delimited text export (quoted fields with doubled quotes allowed). */
export function parseDelimited(text: string): string[][] {
  const first = text.split('\n', 1)[0] ?? '';
  const sep = ['\t', ';', ','].sort((a, b) => first.split(b).length - first.split(a).length)[0]!;
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field.replace(/\r$/, ''));
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted && ch === '"') quoted = false;
    else if (quoted) field += ch;
    else if (ch === '"' && field === '') quoted = true;
    else if (ch === sep) endField();
    else if (ch === '\n') {
      endField();
      rows.push(row);
      row = [];
    } else field += ch;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

interface Columns {
  levels: { code: number; description: number }[];
  code: number;
  description: number;
  tax: number;
}

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

/** Where each column is, from the header row (the first row naming "Categoría 1"). */
function findColumns(rows: string[][]): { header: number; columns: Columns } {
  const header = rows.findIndex((r) => r.some((c) => fold(c) === 'categoria 1'));
  if (header < 0) throw new Error('no header row with "Categoría 1": is this the CABYS spreadsheet?');
  const names = rows[header]!.map(fold);
  const at = (...wanted: string[]) => names.findIndex((n) => wanted.includes(n));
  const levels = Array.from({ length: 8 }, (_, i) => ({
    code: at(`categoria ${i + 1}`),
    description: at(`descripcion (categoria ${i + 1})`),
  }));
  const columns = {
    levels,
    code: at('categoria 9', 'codigo del bien o servicio'),
    description: at('descripcion (categoria 9)', 'descripcion del bien o servicio'),
    tax: at('impuesto'),
  };
  const missing = [columns.code, columns.description, columns.tax, ...levels.map((l) => l.code)];
  if (missing.some((i) => i < 0))
    throw new Error(`missing columns in the header: ${rows[header]!.join(' | ')}`);
  return { header, columns };
}

/** `13%` → `13`, `Exento` → `exento`, `na` → `na`. */
export function normaliseTax(raw: string): string {
  const t = fold(raw).replace(/\s+/g, '');
  if (!/^\d*\.?\d+%?$/.test(t)) return t;
  const n = Number(t.replace('%', ''));
  // A rate saved as a fraction (0.13) rather than as a percentage.
  return String(n > 0 && n < 1 && !t.endsWith('%') ? Math.round(n * 100) : n);
}

/** A code cell as digits, with the leading zeros a spreadsheet export may have dropped. */
const codeOf = (cell: string, length: number) => {
  const digits = cell.replace(/\D/g, '');
  return digits && digits.length <= length ? digits.padStart(length, '0') : '';
};

const LEVEL_DIGITS = [1, 2, 3, 4, 5, 7, 9, 11];

/** The shipped file's text: comment, header, categories (by code), then goods and services. */
export function catalogueTsv(rows: string[][], source: string): { text: string; items: number } {
  const { header, columns } = findColumns(rows);
  const categories = new Map<string, string>();
  const items = new Map<string, string>();
  for (const r of rows.slice(header + 1)) {
    const code = codeOf(r[columns.code] ?? '', 13);
    const description = (r[columns.description] ?? '').replace(/\s+/g, ' ').trim();
    if (!code || !description) continue;
    columns.levels.forEach((l, i) => {
      const c = codeOf(r[l.code] ?? '', LEVEL_DIGITS[i]!);
      const d = (r[l.description] ?? '').replace(/\s+/g, ' ').trim();
      if (c && d && !categories.has(c)) categories.set(c, d);
    });
    items.set(code, `${code}\t${normaliseTax(r[columns.tax] ?? '')}\t${description}`);
  }
  if (items.size === 0) throw new Error('no 13-digit code with a description found');
  const lines = [
    `# CABYS: Catálogo de Bienes y Servicios (BCCR / Ministerio de Hacienda), from ${source}. See catalogues/README.md.`,
    'codigo\timpuesto\tdescripcion',
    ...[...categories].sort(([a], [b]) => (a < b ? -1 : 1)).map(([c, d]) => `${c}\t\t${d}`),
    ...[...items.keys()].sort().map((c) => items.get(c)!),
  ];
  return { text: lines.join('\n') + '\n', items: items.size };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, version] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npm run cabys:import -- <Catalogo-de-bienes-servicios.csv> [version]');
    process.exit(2);
  }
  const source = `${basename(file)}${version ? ` (version ${version})` : ''}`;
  const { text, items } = catalogueTsv(
    parseDelimited(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')),
    source,
  );
  const check = parseCabysTsv(text);
  const out = join(projectRoot, 'catalogues', 'cabys.tsv.gz');
  writeFileSync(out, gzipSync(Buffer.from(text, 'utf8'), { level: 9 }));
  console.log(`${out}: ${items} codes, ${check.categories.size} category names (${source})`);
}
