// Hacienda's observations on an ACCEPTED document. Hacienda accepts some documents with remarks:
// a MensajeHacienda with Mensaje 1 whose DetalleMensaje carries a bare table, with no intro
// sentence and no brackets, after the sandbox preamble when there is one:
//
//   Este comprobante fue aceptado en el ambiente de pruebas, por lo cual no tiene validez para fines tributarios
//
//   codigo, mensaje, fila, columna
//   -16, "El archivo XML, fue enviado a la Dirección General de Tributación de manera extemporánea; …", 0, 0
//
// (answers quoted in CRLibre/API_Hacienda issue #50 and CRLibre/fe-hacienda-cr-odoo issue #63; -37,
// the emisor's location not as registered, comes the same way). The rows are read by
// detalle-mensaje.ts (readObservations), which knows every format real answers use.
// Each observation keeps Hacienda's code and words and gets the catalogue's Spanish and English
// reading (rejection-reasons.ts explainRow). A rejected answer has no observations: its rows are
// the rejection's reasons.
import { readObservations, type DetalleRow } from './detalle-mensaje.ts';
import { MensajeHaciendaParseError, parseMensajeHacienda } from './mensaje-hacienda.ts';
import type { MensajeHacienda } from './mensaje-hacienda.ts';
import { explainRow } from './rejection-reasons.ts';
import type { Bilingual } from './rejection-entry.ts';

export interface Observation {
  /** Hacienda's code (-16, -37 …); null when a row has none. */
  code: number | null;
  /** Hacienda's own words. */
  message: string;
  /** What it means, in Spanish and English. */
  readable: Bilingual;
  /** What to do about it for the next documents (this one stands: it was accepted). */
  fix: Bilingual;
}

const NO_ENTRY_FIX: Bilingual = {
  es: 'El comprobante fue aceptado; revise la observación para los próximos comprobantes.',
  en: 'The document was accepted; review the observation for the next documents.',
};

/** One row as an observation, read by the rejection catalogue. */
export function observationOf(row: DetalleRow): Observation {
  const item = explainRow(row);
  return {
    code: row.code,
    message: row.message,
    readable: item.readable,
    fix: item.kind === null ? NO_ENTRY_FIX : item.fix,
  };
}

/** A DetalleMensaje start tag, and its end tag right after its text, with or without a prefix. */
const DETALLE_START = /<(?:[A-Za-z_][\w.-]*:)?DetalleMensaje(?=[\s/>])/g;
const DETALLE_END = /^<\/(?:[A-Za-z_][\w.-]*:)?DetalleMensaje\s*>/;

/**
 * Whether an answer can carry observations at all, read from its text without parsing it. Every
 * observation is a coded row, and a coded row quotes its message (`-16, "…", 0, 0`), so an answer
 * whose one DetalleMensaje is plain text (no markup up to its end tag) with no double quote and no
 * reference (`&…;`), in a document without comments or CDATA, has none. Anything else may, and is
 * parsed. Most acceptances have no remarks, and parsing the whole signed answer was most of what
 * their handling cost.
 */
export function mayHoldObservations(responseXml: string): boolean {
  if (responseXml.includes('<!--') || responseXml.includes('<![CDATA[')) return true;
  const starts = [...responseXml.matchAll(DETALLE_START)];
  if (starts.length !== 1) return true;
  const from = starts[0]!.index + starts[0]![0].length;
  const end = responseXml.indexOf('<', from);
  if (end < 0 || !DETALLE_END.test(responseXml.slice(end, end + 100))) return true;
  const detalle = responseXml.slice(from, end);
  return detalle.includes('"') || detalle.includes('&');
}

/**
 * The observations of a MensajeHacienda (the decoded respuesta-xml): none unless it accepts, and
 * none when it cannot be read (the acceptance stands on `ind-estado` all the same).
 */
export function observationsOf(responseXml: string): Observation[] {
  if (!mayHoldObservations(responseXml)) return [];
  let answer: MensajeHacienda;
  try {
    answer = parseMensajeHacienda(responseXml);
  } catch (err) {
    if (err instanceof MensajeHaciendaParseError) return [];
    throw err;
  }
  if (!answer.accepted) return [];
  return readObservations(answer.detalleMensaje).map(observationOf);
}
