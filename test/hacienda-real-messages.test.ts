// The corpus of real Hacienda messages (test/fixtures/hacienda-real-messages.json): texts that Hacienda's
// reception API really sent, quoted in public issue threads or committed to public repositories, each with its
// source (hacienda/SOURCES.md). This file checks the fixture's shape, then what the explainer makes of each
// message.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readObservations } from '../hacienda/detalle-mensaje.ts';
import { explainDetalleMensaje, explainErrorCause } from '../hacienda/rejection-reasons.ts';
import type { ReasonItem } from '../hacienda/rejection-reasons.ts';

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

// What the explainer makes of each real message: the rows Hacienda wrote, with the expected codes in
// order, each explained by a catalogue entry (never the fallback that repeats Hacienda's words) that
// names the field to fix in Spanish and in English; an accepted document's summary never says it was
// rejected. The score (rows right / rows) is printed; every row must be right.
describe('the explainer on the real messages', () => {
  const explain = (m: RealMessage) =>
    m.kind === 'x-error-cause'
      ? explainErrorCause(m.text, /No existe/i.test(m.text) ? 404 : 400)
      : explainDetalleMensaje(m.text, { accepted: m.mensaje === 1 });

  /** Why a row is not right (null when it is). */
  function wrong(item: ReasonItem | undefined, e: Expectation): string | null {
    if (!item) return 'no row';
    if (item.code !== e.code) return `code ${item.code}, expected ${e.code}`;
    if (item.kind === null) return 'not explained (fallback)';
    if (e.field === null) return null;
    if (!item.field?.includes(e.field)) return `field ${item.field}, expected ${e.field}`;
    for (const lang of ['es', 'en'] as const)
      if (!`${item.readable[lang]} ${item.fix[lang]}`.includes(e.field))
        return `${lang} text does not name ${e.field}`;
    return null;
  }

  it.each(corpus.map((m) => [m.id, m] as const))('%s', (_id, m) => {
    const r = explain(m);
    expect(r.items).toHaveLength(m.expect.length);
    expect(r.items.map((i) => i.code)).toEqual(m.expect.map((e) => e.code));
    expect(m.expect.map((e, i) => wrong(r.items[i], e))).toEqual(m.expect.map(() => null));
    expect(r.raw).toBe(m.text);
    if (m.mensaje === 1) {
      expect(r.summary.es).not.toMatch(/rechaz/i);
      expect(r.summary.en).not.toMatch(/reject/i);
      expect(readObservations(m.text).map((row) => row.code)).toEqual(m.expect.map((e) => e.code));
    }
  });

  it('explains every row right (the score)', () => {
    let right = 0;
    let total = 0;
    for (const m of corpus) {
      const r = explain(m);
      m.expect.forEach((e, i) => {
        total += 1;
        if (r.items.length === m.expect.length && wrong(r.items[i], e) === null) right += 1;
      });
    }
    console.info(`hacienda-real-messages: ${right}/${total} rows explained right`);
    expect(right).toBe(total);
  });
});
