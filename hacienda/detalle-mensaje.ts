// DetalleMensaje parsing: turns the free text Hacienda writes into a MensajeHacienda into rows.
// The real format (Hacienda's reception API, and samples of real answers) is an optional sandbox preamble, then either free
// text ("La firma del comprobante electrónico no es válida") or the sentence
// "El comprobante electrónico tiene los siguientes errores:" followed by a bracketed table
//   [
//   codigo, mensaje, fila, columna
//   -99, "La numeración consecutiva …", 0, 0
//   -1, "cvc-complex-type.2.4.a: … '{"https://…":Codigo}' is expected.", 2, 1573
//   ]
// Messages are double-quoted but NOT escaped: Xerces texts carry raw double quotes and commas, and
// some clients print the table on one line. A row therefore ends only at `", <int>, <int>` followed
// by the next row or the end of the table. The raw text is always kept.

export interface DetalleRow {
  /** Hacienda's code (negative in practice); null for free-text messages. */
  code: number | null;
  message: string;
  /** Row/column of the offending XML for schema errors; 0 for business rules; null for free text. */
  line: number | null;
  column: number | null;
}

export interface ParsedDetalle {
  /** The sandbox preamble, when present ("Este comprobante fue aceptado en el ambiente de pruebas…"). */
  preamble: string | null;
  sandbox: boolean;
  /** Whether the "tiene los siguientes errores" table was found. */
  hasTable: boolean;
  rows: DetalleRow[];
  raw: string;
}

// Observed verbs: aceptado, procesado, recibido; the trailing period is sometimes present, and some
// answers break the sentence over two lines (any run of white space may stand between its words).
const PREAMBLE =
  /^\s*Este\s+comprobante\s+fue\s+\p{L}+\s+en\s+el\s+ambiente\s+de\s+pruebas\s*,?\s+por\s+lo\s+cual\s+no\s+tiene\s+validez\s+para\s+fines\s+tributarios\.?/iu;
/** A paragraph that is a piece of the preamble (when it is split oddly): never a reason. */
const PREAMBLE_PIECE =
  /^(?:Este\s+comprobante\s+fue\s+\p{L}+\s+en\s+el\s+ambiente\s+de\s+pruebas,?|(?:por\s+lo\s+cual\s+)?no\s+tiene\s+validez\s+para\s+fines\s+tributarios)\.?$/iu;
const TABLE_INTRO = /El comprobante electr[oó]nico tiene los siguientes errores\s*:?/iu;
const TABLE_HEADER = /\[?\s*c[oó]digo\s*,\s*mensaje\s*,\s*fila\s*,\s*columna\s*\]?/iu;
/** Where a bare table starts: its header, or a first `-99, "` row at the start of a line. */
const BARE_TABLE_START =
  /(?:^|\n)[ \t]*(?:\[\s*)?(?:c[oó]digo\s*,\s*mensaje\s*,\s*fila\s*,\s*columna|-\d+\s*,\s*")/iu;
// One row: code, "message", fila, columna — the lookahead pins the end of the message to the
// start of the next row or the end of the table, so quotes and commas inside messages survive.
// v4.3-era answers wrap the message in doubled quotes (`""…""`), undone in `message()`.
const ROW = /(-?\d+)\s*,\s*"([\s\S]*?)"\s*,\s*(-?\d+)\s*,\s*(-?\d+)(?=\s*(?:-?\d+\s*,\s*"|$))/gu;

/** Parses a DetalleMensaje text. Never throws: unrecognised text becomes free-text rows. */
export function parseDetalleMensaje(text: string): ParsedDetalle {
  const raw = text;
  let body = normaliseNewlines(text);
  let preamble: string | null = null;
  const pre = PREAMBLE.exec(body);
  if (pre) {
    preamble = pre[0].replace(/\s+/g, ' ').trim();
    body = body.slice(pre.index + pre[0].length);
  }
  const table = locateTable(body);
  if (!table) return { preamble, sandbox: preamble !== null, hasTable: false, rows: freeTextRows(body), raw };
  const rows = [...freeTextRows(table.before), ...tableRows(table.content), ...freeTextRows(table.after)];
  return { preamble, sandbox: preamble !== null, hasTable: true, rows, raw };
}

/**
 * The rows of an ACCEPTED document's DetalleMensaje: Hacienda's observations (Mensaje 1 with rows
 * such as -16 sent late or -37 location, usually a bare `codigo, mensaje, fila, columna` table
 * without intro or brackets). Only coded rows are observations: the sandbox preamble and a plain
 * "Este comprobante fue aceptado." are not, so an acceptance without remarks gives no rows.
 */
export function readObservations(detalle: string): DetalleRow[] {
  return parseDetalleMensaje(detalle).rows.filter((row) => row.code !== null);
}

/** Some clients store the text JSON-escaped ("\\n" instead of newlines); undo that when it is obvious. */
function normaliseNewlines(text: string): string {
  let t = text.replace(/\r\n?/g, '\n');
  if (!t.includes('\n') && t.includes('\\n')) t = t.replace(/\\n/g, '\n').replace(/\\"/g, '"');
  return t;
}

interface TableSpan {
  before: string;
  content: string;
  after: string;
}

/**
 * Finds the table: after the intro sentence (bracketed or not), or, without the intro, from its
 * header or first row (observations on accepted documents come as a bare table).
 */
function locateTable(body: string): TableSpan | null {
  const intro = TABLE_INTRO.exec(body);
  if (intro) {
    const before = body.slice(0, intro.index);
    const rest = body.slice(intro.index + intro[0].length);
    const bracketed = extractBrackets(rest);
    if (bracketed) return { before, ...bracketed };
    return tableRows(rest).some((r) => r.code !== null)
      ? { before, content: rest, after: '' }
      : { before, content: '', after: rest };
  }
  const start = BARE_TABLE_START.exec(body);
  if (!start) return null;
  const before = body.slice(0, start.index);
  const rest = body.slice(start.index);
  return { before, ...(extractBrackets(rest) ?? { content: rest, after: '' }) };
}

/** The content between the first `[` and the last `]` (messages may contain brackets themselves). */
function extractBrackets(text: string): { content: string; after: string } | null {
  const open = text.indexOf('[');
  const close = text.lastIndexOf(']');
  if (open < 0 || close <= open) return null;
  // Only whitespace may sit between the intro sentence and the bracket.
  if (text.slice(0, open).trim() !== '') return null;
  return { content: text.slice(open + 1, close), after: text.slice(close + 1) };
}

function tableRows(content: string): DetalleRow[] {
  const text = content.replace(TABLE_HEADER, '').trim();
  const rows: DetalleRow[] = [];
  let consumed = 0;
  for (const m of text.matchAll(ROW)) {
    const leftover = text.slice(consumed, m.index).trim();
    if (leftover) rows.push(...freeTextRows(leftover));
    rows.push({ code: Number(m[1]), message: message(m[2] ?? ''), line: Number(m[3]), column: Number(m[4]) });
    consumed = m.index + m[0].length;
  }
  const tail = text.slice(consumed).trim();
  if (tail) rows.push(...freeTextRows(tail));
  return rows;
}

/** A row's message: v4.3-era doubled quotes (`""…""`, CSV-style `""` inside) undone, white space folded. */
function message(quoted: string): string {
  let m = quoted.trim();
  if (m.length >= 2 && m.startsWith('"') && m.endsWith('"')) m = m.slice(1, -1).replace(/""/g, '"');
  return m.replace(/\s*\n\s*/g, ' ').trim();
}

/** Free text: one row per paragraph (blank-line separated), inner line breaks folded. */
function freeTextRows(text: string): DetalleRow[] {
  return (
    text
      .split(/\n\s*\n/)
      .map((p) => unbracket(p.replace(/\s*\n\s*/g, ' ').trim()))
      // A piece with no letter or digit (4.4 answers an acceptance with DetalleMensaje ".") says nothing.
      .filter((p) => /[\p{L}\p{N}]/u.test(p) && !PREAMBLE_PIECE.test(p))
      .map((message) => ({ code: null, message, line: null, column: null }))
  );
}

/** A free-text message that came wrapped in brackets (`[ La firma … ]`, v4.4) loses them. */
function unbracket(p: string): string {
  return /^\[[^[\]]*\]$/.test(p) ? p.slice(1, -1).trim() : p;
}
