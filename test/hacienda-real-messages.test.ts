// The corpus of real Hacienda messages (test/fixtures/hacienda-real-messages.json): texts that Hacienda's
// reception API really sent, quoted in public issue threads or committed to public repositories, each with its
// source (hacienda/SOURCES.md). This file checks only the fixture's shape; the explainer's own tests read the
// same file and assert what each row means.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Expectation {
  code: number | null;
  field: string | null;
  meaning: string;
}

interface RealMessage {
  id: string;
  source: string;
  version: '4.2' | '4.3' | '4.4' | 'unknown';
  kind: 'detalle' | 'x-error-cause';
  mensaje: 1 | 2 | 3 | null;
  text: string;
  expect: Expectation[];
}

const corpus = JSON.parse(
  readFileSync(new URL('./fixtures/hacienda-real-messages.json', import.meta.url), 'utf8'),
) as RealMessage[];

const KEYS = ['id', 'source', 'version', 'kind', 'mensaje', 'text', 'expect'].sort();

describe('the corpus of real Hacienda messages', () => {
  it('is a non-empty array', () => {
    expect(Array.isArray(corpus)).toBe(true);
    expect(corpus.length).toBeGreaterThanOrEqual(20);
  });

  it('has unique kebab-case ids and no text twice', () => {
    const ids = corpus.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    const texts = corpus.map((m) => m.text);
    expect(new Set(texts).size).toBe(texts.length);
  });

  it.each(corpus.map((m) => [m.id, m] as const))('%s has the fixture shape', (_id, m) => {
    expect(Object.keys(m).sort()).toEqual(KEYS);
    expect(m.source).toMatch(/^(https:\/\/github\.com\/|[\w.-]+\/[\w.-]+:)/);
    expect(['4.2', '4.3', '4.4', 'unknown']).toContain(m.version);
    expect(['detalle', 'x-error-cause']).toContain(m.kind);
    expect(m.text.trim().length).toBeGreaterThan(0);
    if (m.kind === 'x-error-cause') expect(m.mensaje).toBeNull();
    else expect([1, 2, 3]).toContain(m.mensaje);
    expect(Array.isArray(m.expect)).toBe(true);
    for (const e of m.expect) {
      expect(Object.keys(e).sort()).toEqual(['code', 'field', 'meaning']);
      if (e.code !== null) expect(Number.isInteger(e.code) && e.code < 0).toBe(true);
      if (e.field !== null) expect(e.field).toMatch(/^[A-Za-z][\w.]*$/);
      expect(e.meaning.length).toBeGreaterThan(10);
    }
  });

  it('lists one expectation per numbered row of each table, in order', () => {
    for (const m of corpus) {
      if (m.kind !== 'detalle') continue;
      const rowCodes = [...m.text.matchAll(/(?:^|\n|\[|\\n|columna)\s*(-\d+)\s*,\s*(?:\\?")/g)].map((r) =>
        Number(r[1]),
      );
      const expected = m.expect.filter((e) => e.code !== null).map((e) => e.code);
      expect({ id: m.id, codes: rowCodes }).toEqual({ id: m.id, codes: expected });
    }
  });
});
