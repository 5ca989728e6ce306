// Readable rejection reasons: turns Hacienda's DetalleMensaje (or a whole MensajeHacienda, or the
// X-Error-Cause of a refused request) into short Spanish and English explanations with the field
// to fix, one item per reported row, plus a summary. Unknown texts keep Hacienda's own words; the
// raw text is always returned. The summary of an accepted document speaks of observations, never
// of a rejection.
import { parseDetalleMensaje } from './detalle-mensaje.ts';
import type { DetalleRow } from './detalle-mensaje.ts';
import { parseMensajeHacienda } from './mensaje-hacienda.ts';
import { CATALOGUE } from './rejection-catalogue.ts';
import type { Bilingual, Explanation } from './rejection-catalogue.ts';
import { CAUSE_ENTRIES, causeByStatus, readsSpanish } from './rejection-catalogue-causes.ts';
import type { Entry } from './rejection-entry.ts';

export type { Bilingual } from './rejection-catalogue.ts';

export interface ReasonItem {
  code: number | null;
  message: string;
  line: number | null;
  column: number | null;
  /** Catalogue entry that explained the row, or null when Hacienda's text is shown as is. */
  kind: string | null;
  /** The XML element (or request field) to fix, when the entry names one. */
  field: string | null;
  readable: Bilingual;
  fix: Bilingual;
}

export interface RejectionReason {
  summary: Bilingual;
  items: ReasonItem[];
  /** The DetalleMensaje (or X-Error-Cause) exactly as Hacienda sent it. */
  raw: string | null;
}

function explainWith(entries: readonly Entry[], row: DetalleRow): ReasonItem | null {
  for (const entry of entries) {
    const m = entry.match(row);
    if (!m) continue;
    const e: Explanation = entry.explain(row, m === true ? null : m);
    return {
      ...row,
      kind: entry.id,
      field: e.field ?? entry.field ?? null,
      readable: e.readable,
      fix: e.fix,
    };
  }
  return null;
}

/** Explains one parsed row; falls back to the raw text for texts not in the catalogue. */
export function explainRow(row: DetalleRow): ReasonItem {
  const known = explainWith(CATALOGUE, row);
  if (known) return known;
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
    field: null,
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

/** Explains a DetalleMensaje text; `accepted` when it came with Mensaje 1 (observations). */
export function explainDetalleMensaje(
  detalleMensaje: string,
  options: { accepted?: boolean } = {},
): RejectionReason {
  const parsed = parseDetalleMensaje(detalleMensaje);
  const items = parsed.rows.map(explainRow);
  const summary = options.accepted ? summariseAccepted(items) : summarise(items);
  return { summary, items, raw: detalleMensaje };
}

/** Explains a MensajeHacienda XML (the decoded respuesta-xml): a rejection, or an acceptance's observations. */
export function explainMensajeHacienda(xml: string): RejectionReason {
  const m = parseMensajeHacienda(xml);
  return explainDetalleMensaje(m.detalleMensaje, { accepted: m.accepted });
}

/**
 * Explains the X-Error-Cause of a request Hacienda refused before processing it (POST 400, GET
 * 404…). A cause the catalogue does not know is explained by its status; its words are shown in
 * Spanish only when they are Spanish.
 */
export function explainErrorCause(cause: string | null, status: number | null): RejectionReason {
  const message = (cause ?? '').trim();
  const row: DetalleRow = { code: null, message, line: null, column: null };
  const known = message ? explainWith(CAUSE_ENTRIES, row) : null;
  const byStatus = causeByStatus(status);
  const item: ReasonItem = known ?? {
    ...row,
    kind: null,
    field: null,
    readable: {
      es: message && readsSpanish(message) ? `${byStatus.es} Motivo indicado: ${message}` : byStatus.es,
      en: message ? `${byStatus.en} Cause given: "${message}"` : byStatus.en,
    },
    fix: { es: byStatus.fixEs, en: byStatus.fixEn },
  };
  return {
    summary: {
      es: `Hacienda no recibió el comprobante: ${item.readable.es}`,
      en: `Hacienda did not receive the document: ${item.readable.en}`,
    },
    items: [item],
    raw: cause,
  };
}

function more(items: ReasonItem[]): Bilingual {
  const n = items.length - 1;
  return n > 0
    ? {
        es: ` (y ${n} ${n === 1 ? 'motivo más' : 'motivos más'})`,
        en: ` (and ${n} more ${n === 1 ? 'reason' : 'reasons'})`,
      }
    : { es: '', en: '' };
}

function summarise(items: ReasonItem[]): Bilingual {
  const first = items[0];
  if (!first) {
    return {
      es: 'Hacienda rechazó el comprobante sin indicar el motivo.',
      en: 'Hacienda rejected the document without giving a reason.',
    };
  }
  const m = more(items);
  return {
    es: `Hacienda rechazó el comprobante: ${first.readable.es}${m.es}`,
    en: `Hacienda rejected the document: ${first.readable.en}${m.en}`,
  };
}

function summariseAccepted(items: ReasonItem[]): Bilingual {
  const first = items[0];
  if (!first) return { es: 'Hacienda aceptó el comprobante.', en: 'Hacienda accepted the document.' };
  const n = items.length;
  return {
    es: `Hacienda aceptó el comprobante con ${n === 1 ? 'una observación' : `${n} observaciones`}: ${first.readable.es}`,
    en: `Hacienda accepted the document with ${n === 1 ? 'one remark' : `${n} remarks`}: ${first.readable.en}`,
  };
}
