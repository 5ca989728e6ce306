// The application's strings: Spanish (Costa Rica) and English hold the same keys, every key the
// pages ask for exists, and role names are the ones of domain/roles.ts.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { ROLE_NAMES } from '../domain/roles.ts';

type Tree = { [key: string]: string | Tree };
const read = (name: string) =>
  JSON.parse(readFileSync(join(projectRoot, 'web/src/i18n', name), 'utf8')) as Tree;
/** The frame's strings with the pages' laid over, as web/src/i18n/index.ts merges them. */
function merged(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = typeof v === 'object' && typeof b === 'object' ? merged(b, v) : v;
  }
  return out;
}
const es = merged(read('es-CR.json'), read('pages.es-CR.json'));
const en = merged(read('en.json'), read('pages.en.json'));

function keys(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([k, v]) =>
    typeof v === 'string' ? [prefix + k] : keys(v, `${prefix}${k}.`),
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe('the application strings', () => {
  it('has the same keys in Spanish and English, none empty', () => {
    expect(keys(en).sort()).toEqual(keys(es).sort());
    for (const tree of [es, en])
      for (const key of keys(tree)) {
        const value = key.split('.').reduce<Tree | string>((t, k) => (t as Tree)[k]!, tree);
        expect(String(value).trim(), key).not.toBe('');
      }
  });

  it('has every key the pages ask for with t("…")', () => {
    const known = new Set(keys(es));
    const used = new Set<string>();
    for (const file of sources(join(projectRoot, 'web/src')))
      for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([\w.]+)'/g)) used.add(m[1]!);
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((k) => !known.has(k))).toEqual([]);
  });

  it('names the roles as domain/roles.ts does', () => {
    for (const [role, names] of Object.entries(ROLE_NAMES)) {
      expect((es.roles as Tree)[role]).toBe(names.es);
      expect((en.roles as Tree)[role]).toBe(names.en);
    }
  });
});
