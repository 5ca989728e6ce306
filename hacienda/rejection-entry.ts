// Building blocks of the rejection catalogue: an entry recognises a DetalleMensaje row (by its code
// AND its text: Hacienda reuses no code for two rules, but a code seen with another text is not
// the rule we know) and says, in Spanish and English, what happened, which XML field to fix and how.
import type { DetalleRow } from './detalle-mensaje.ts';

export interface Bilingual {
  es: string;
  en: string;
}

export interface Explanation {
  readable: Bilingual;
  fix: Bilingual;
  /** The XML element (or request field) to fix, when one is named. */
  field?: string | null;
}

export interface Entry {
  /** Stable id for logs and tests. */
  id: string;
  /**
   * False when Hacienda's code or wording for this rejection was never observed: the entry matches
   * the local simulator's own rule (code -1 and a plain sentence). Default true.
   */
  confirmed?: boolean;
  /** The field the entry is about (an explanation may name a more precise one). */
  field?: string | null;
  match: (row: DetalleRow) => RegExpExecArray | boolean | null;
  explain: (row: DetalleRow, m: RegExpExecArray | null) => Explanation;
}

/** `{"https://…/facturaElectronica":Codigo, "…":Detalle}` → [Codigo, Detalle]; a bare `Codigo` → [Codigo]. */
export function localNames(fragment: string): string[] {
  const names = [...fragment.matchAll(/"\s*:\s*([\w.-]+)/g)].map((m) => m[1] ?? '');
  if (names.length > 0) return [...new Set(names)];
  const bare = fragment.replace(/[{}'"]/g, '').trim();
  return bare ? [bare] : [];
}

export const at = (row: DetalleRow): Bilingual =>
  row.line && row.line > 0
    ? {
        es: ` (línea ${row.line}, columna ${row.column ?? 0} del XML firmado)`,
        en: ` (line ${row.line}, column ${row.column ?? 0} of the signed XML)`,
      }
    : { es: '', en: '' };

/** A text alone (free-text messages, which carry no code). */
export const text = (re: RegExp) => (row: DetalleRow) => re.exec(row.message);
/** A code AND a text: the same code with another text is not this rule. */
export const coded = (c: number, re: RegExp) => (row: DetalleRow) =>
  row.code === c ? re.exec(row.message) : null;
/** A text under any of the codes Hacienda used for it across versions (or none). */
export const codedAny = (codes: readonly (number | null)[], re: RegExp) => (row: DetalleRow) =>
  codes.includes(row.code) ? re.exec(row.message) : null;

/**
 * A fixed entry: [readable, fix] in each language, both naming `field` (the XML element to fix).
 */
export const fixed = (
  id: string,
  field: string,
  match: Entry['match'],
  es: [readable: string, fix: string],
  en: [readable: string, fix: string],
  confirmed = true,
): Entry => ({
  id,
  confirmed,
  field,
  match,
  explain: () => ({ readable: { es: es[0], en: en[0] }, fix: { es: es[1], en: en[1] }, field }),
});
