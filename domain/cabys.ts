// The official CABYS catalogue (Catálogo de Bienes y Servicios of the Banco Central and the
// Ministerio de Hacienda): every CodigoCABYS a comprobante may carry, its description, the IVA
// rate the catalogue gives it and the categories its digits name. The data is the file shipped in
// catalogues/ (source, version and how to refresh it: catalogues/README.md), read once, on first
// use, like a part of the code: the only read of this folder, the rest is pure.
//
// The file is a gzipped TSV: a comment line, a header (codigo, impuesto, descripcion), then one
// row per category (a code of 1–11 digits, no impuesto) and one per good or service (13 digits,
// impuesto `13`, `4`, `2`, `1`, `exento` or `na`, as the spreadsheet's "Impuesto" column).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { FieldError } from './errors.ts';

/** One level of the code's hierarchy: its first 1, 2, 3, 4, 5, 7, 9 or 11 digits. */
export interface CabysCategory {
  level: number;
  code: string;
  /** Null when the shipped file does not carry that level's name. */
  description: string | null;
}

export interface CabysEntry {
  code: string;
  description: string;
  /** The catalogue's IVA rate in percent (0 when exento or not applicable). */
  taxRate: number;
  /** The catalogue's own text: `13%`, `1%`, `Exento`, `na`. */
  tax: string;
  categories: CabysCategory[];
}

export interface CabysCatalogue {
  items: ReadonlyMap<string, { description: string; tax: string }>;
  categories: ReadonlyMap<string, string>;
  /** The word index of searches, built on the first search. */
  index?: WordIndex;
}

/** Folded word → the positions (in `codes`) of the entries whose description has it. */
interface WordIndex {
  codes: string[];
  words: Map<string, number[]>;
  /** The index's words, sorted: a prefix's words are a run found by binary search. */
  vocabulary: string[];
}

/** Where each category level ends within the 13 digits (levels 1–8; level 9 is the code). */
export const CABYS_LEVEL_DIGITS = [1, 2, 3, 4, 5, 7, 9, 11] as const;

/** Lower case, accents and ñ's tilde removed, punctuation as spaces: how searches compare. */
export function foldText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Pure: the catalogue of a TSV text in the shipped format. */
export function parseCabysTsv(text: string): CabysCatalogue {
  const items = new Map<string, { description: string; tax: string }>();
  const categories = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [code = '', tax = '', description = ''] = line.split('\t');
    if (!/^\d{1,13}$/.test(code) || !description) continue;
    if (code.length === 13) items.set(code, { description, tax });
    else categories.set(code, description);
  }
  return { items, categories };
}

/** The folder of the shipped data: the nearest `catalogues/` above this module (source or build). */
function dataFile(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'catalogues', 'cabys.tsv.gz');
    if (existsSync(file)) return file;
    const up = dirname(dir);
    if (up === dir) throw new Error('catalogues/cabys.tsv.gz not found above ' + import.meta.url);
    dir = up;
  }
}

let shipped: CabysCatalogue | null = null;

/** The shipped catalogue, read and indexed once. */
export function cabysCatalogue(): CabysCatalogue {
  shipped ??= parseCabysTsv(gunzipSync(readFileSync(dataFile())).toString('utf8'));
  return shipped;
}

/** Every code of the shipped catalogue (what the simulator checks a CodigoCABYS against). */
export function cabysCodes(): ReadonlySet<string> {
  return new Set(cabysCatalogue().items.keys());
}

/** `13` → 13; `exento`/`na` → 0. */
function taxRateOf(tax: string): number {
  const n = Number(tax);
  return Number.isFinite(n) ? n : 0;
}

function taxText(tax: string): string {
  if (tax === 'exento') return 'Exento';
  return /^\d+$/.test(tax) ? `${tax}%` : tax;
}

function entryOf(cat: CabysCatalogue, code: string): CabysEntry | null {
  const item = cat.items.get(code);
  if (!item) return null;
  return {
    code,
    description: item.description,
    taxRate: taxRateOf(item.tax),
    tax: taxText(item.tax),
    categories: CABYS_LEVEL_DIGITS.map((n, i) => ({
      level: i + 1,
      code: code.slice(0, n),
      description: cat.categories.get(code.slice(0, n)) ?? null,
    })),
  };
}

/** The catalogue's entry for a code, or null when the code is not in it. */
export function lookupCabys(code: string, cat: CabysCatalogue = cabysCatalogue()): CabysEntry | null {
  return /^\d{13}$/.test(code) ? entryOf(cat, code) : null;
}

export function isKnownCabys(code: string, cat: CabysCatalogue = cabysCatalogue()): boolean {
  return /^\d{13}$/.test(code) && cat.items.has(code);
}

/**
 * The field error of a 13-digit code that is not in the catalogue (Hacienda rejects it), or null.
 * `unknown_cabys` at `path`.
 */
export function unknownCabysError(code: string, path: string): FieldError | null {
  if (isKnownCabys(code)) return null;
  return {
    path,
    code: 'unknown_cabys',
    message:
      `el código CABYS ${code} no existe en el catálogo de bienes y servicios de Hacienda; ` +
      `búsquelo en GET /api/v1/cabys?q=… (CABYS code ${code} is not in Hacienda's catalogue; ` +
      'search it at GET /api/v1/cabys?q=…)',
  };
}

export interface CabysSearch {
  /** How many entries match, of which `results` are the first `limit`. */
  total: number;
  results: CabysEntry[];
}

/**
 * Entries whose description holds every word of `words` (accents and case ignored; a word matches
 * the start of a word of the description), best first: more words matched whole, then the shorter
 * description, then the code. Digits alone search by code prefix.
 */
export function searchCabys(words: string, limit = 10, cat: CabysCatalogue = cabysCatalogue()): CabysSearch {
  const q = foldText(words);
  if (!q) return { total: 0, results: [] };
  const found = /^\d+$/.test(q) ? byCodePrefix(cat, q) : byWords(cat, q.split(' '));
  return { total: found.length, results: found.slice(0, limit).map((code) => entryOf(cat, code)!) };
}

function byCodePrefix(cat: CabysCatalogue, prefix: string): string[] {
  return [...cat.items.keys()].filter((c) => c.startsWith(prefix)).sort();
}

function wordIndex(cat: CabysCatalogue): WordIndex {
  if (cat.index) return cat.index;
  const codes = [...cat.items.keys()].sort();
  const words = new Map<string, number[]>();
  codes.forEach((code, i) => {
    for (const w of new Set(foldText(cat.items.get(code)!.description).split(' '))) {
      const list = words.get(w);
      if (list) list.push(i);
      else words.set(w, [i]);
    }
  });
  const index = { codes, words, vocabulary: [...words.keys()].sort() };
  (cat as { index?: WordIndex }).index = index;
  return index;
}

/** The index's words that start with `prefix`. */
function wordsStartingWith(index: WordIndex, prefix: string): string[] {
  const v = index.vocabulary;
  let lo = 0;
  let hi = v.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (v[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: string[] = [];
  for (let i = lo; i < v.length && v[i]!.startsWith(prefix); i++) out.push(v[i]!);
  return out;
}

function byWords(cat: CabysCatalogue, words: string[]): string[] {
  const index = wordIndex(cat);
  const whole = new Map<number, number>();
  let found: number[] | null = null;
  for (const w of new Set(words)) {
    const here = new Set<number>();
    for (const v of wordsStartingWith(index, w)) for (const i of index.words.get(v)!) here.add(i);
    for (const i of index.words.get(w) ?? []) whole.set(i, (whole.get(i) ?? 0) + 1);
    const kept: number[] = found === null ? [...here] : found.filter((i) => here.has(i));
    if (kept.length === 0) return [];
    found = kept;
  }
  const length = (i: number) => cat.items.get(index.codes[i]!)!.description.length;
  return (found ?? [])
    .sort((a, b) => (whole.get(b) ?? 0) - (whole.get(a) ?? 0) || length(a) - length(b) || a - b)
    .map((i) => index.codes[i]!);
}
