// Readable rejection reasons: turns Hacienda's DetalleMensaje (or a whole MensajeHacienda) into
// short Spanish and English explanations with what to fix, one item per reported error, plus a
// summary. Unknown texts keep Hacienda's own words; the raw DetalleMensaje is always returned.
import { parseDetalleMensaje } from './detalle-mensaje.ts';
import type { DetalleRow } from './detalle-mensaje.ts';
import { parseMensajeHacienda } from './mensaje-hacienda.ts';
import { CATALOGUE } from './rejection-catalogue.ts';
import type { Bilingual, Explanation } from './rejection-catalogue.ts';

export type { Bilingual } from './rejection-catalogue.ts';

export interface ReasonItem {
  code: number | null;
  message: string;
  line: number | null;
  column: number | null;
  /** Catalogue entry that explained the row, or null when Hacienda's text is shown as is. */
  kind: string | null;
  readable: Bilingual;
  fix: Bilingual;
}

export interface RejectionReason {
  summary: Bilingual;
  items: ReasonItem[];
  /** The DetalleMensaje exactly as Hacienda sent it. */
  raw: string;
}

/** Explains one parsed row; falls back to the raw text for texts not in the catalogue. */
export function explainRow(row: DetalleRow): ReasonItem {
  for (const entry of CATALOGUE) {
    const m = entry.match(row);
    if (!m) continue;
    const e: Explanation = entry.explain(row, m === true ? null : m);
    return { ...row, kind: entry.id, readable: e.readable, fix: e.fix };
  }
  const codeText = row.code === null ? '' : ` (${row.code})`;
  const where =
    row.line && row.line > 0
      ? {
          es: ` [línea ${row.line}, columna ${row.column ?? 0}]`,
          en: ` [line ${row.line}, column ${row.column ?? 0}]`,
        }
      : { es: '', en: '' };
  return {
    ...row,
    kind: null,
    readable: {
      es: `${row.message}${codeText}${where.es}`,
      en: `Hacienda reported${codeText}: "${row.message}"${where.en}`,
    },
    fix: {
      es: 'Revise el comprobante según el mensaje de Hacienda y emita uno nuevo corregido.',
      en: "Review the document against Hacienda's message and issue a corrected one.",
    },
  };
}

/** Explains a DetalleMensaje text. */
export function explainDetalleMensaje(detalleMensaje: string): RejectionReason {
  const parsed = parseDetalleMensaje(detalleMensaje);
  const items = parsed.rows.map(explainRow);
  return { summary: summarise(items), items, raw: detalleMensaje };
}

/** Explains a MensajeHacienda XML (the decoded respuesta-xml). */
export function explainMensajeHacienda(xml: string): RejectionReason {
  return explainDetalleMensaje(parseMensajeHacienda(xml).detalleMensaje);
}

function summarise(items: ReasonItem[]): Bilingual {
  const first = items[0];
  if (!first) {
    return {
      es: 'Hacienda rechazó el comprobante sin indicar el motivo.',
      en: 'Hacienda rejected the document without giving a reason.',
    };
  }
  const more = items.length - 1;
  return {
    es: `Hacienda rechazó el comprobante: ${first.readable.es}${more > 0 ? ` (y ${more} ${more === 1 ? 'motivo más' : 'motivos más'})` : ''}`,
    en: `Hacienda rejected the document: ${first.readable.en}${more > 0 ? ` (and ${more} more ${more === 1 ? 'reason' : 'reasons'})` : ''}`,
  };
}
