// Building blocks of the rejection catalogue: an entry recognises a DetalleMensaje row and says,
// in Spanish and English, what happened and what to fix.
import type { DetalleRow } from './detalle-mensaje.ts';

export interface Bilingual {
  es: string;
  en: string;
}

export interface Explanation {
  readable: Bilingual;
  fix: Bilingual;
}

export interface Entry {
  /** Stable id for logs and tests. */
  id: string;
  /**
   * False when Hacienda's code or wording for this rejection was never observed (rejection texts seen in Hacienda's answers): the
   * entry matches the local simulator's wording, written in Hacienda's style. Default true.
   */
  confirmed?: boolean;
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

export const text = (re: RegExp) => (row: DetalleRow) => re.exec(row.message);
export const code = (c: number, re?: RegExp) => (row: DetalleRow) =>
  row.code === c || (re ? re.test(row.message) : false);
