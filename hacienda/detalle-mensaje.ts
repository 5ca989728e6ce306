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

// Observed verbs: aceptado, procesado, recibido; the trailing period is sometimes present.
const PREAMBLE =
  /^\s*Este comprobante fue \p{L}+ en el ambiente de pruebas,?\s+por lo cual no tiene validez para fines tributarios\.?/iu;
const TABLE_INTRO = /El comprobante electr[oó]nico tiene los siguientes errores\s*:?/iu;
const TABLE_HEADER = /^\s*c[oó]digo\s*,\s*mensaje\s*,\s*fila\s*,\s*columna\s*/iu;
// One row: code, "message", fila, columna — the lookahead pins the end of the message to the
// start of the next row or the end of the table, so quotes and commas inside messages survive.
const ROW = /(-?\d+)\s*,\s*"([\s\S]*?)"\s*,\s*(-?\d+)\s*,\s*(-?\d+)(?=\s*(?:-?\d+\s*,\s*"|$))/gu;

/** Parses a DetalleMensaje text. Never throws: unrecognised text becomes free-text rows. */
export function parseDetalleMensaje(text: string): ParsedDetalle {
  const raw = text;
  let body = normaliseNewlines(text);
  let preamble: string | null = null;
  const pre = PREAMBLE.exec(body);
  if (pre) {
    preamble = pre[0].trim();
    body = body.slice(pre.index + pre[0].length);
  }
  const rows: DetalleRow[] = [];
  const intro = TABLE_INTRO.exec(body);
  let hasTable = false;
  if (intro) {
    const before = body.slice(0, intro.index);
    rows.push(...freeTextRows(before));
    const afterIntro = body.slice(intro.index + intro[0].length);
    const table = extractTable(afterIntro);
    if (table) {
      hasTable = true;
      rows.push(...tableRows(table.content));
      rows.push(...freeTextRows(table.after));
    } else {
      // A table without brackets: try rows directly, otherwise keep the text as it is.
      const direct = tableRows(afterIntro);
      if (direct.length > 0) {
        hasTable = true;
        rows.push(...direct);
      } else rows.push(...freeTextRows(afterIntro));
    }
  } else {
    rows.push(...freeTextRows(body));
  }
  return { preamble, sandbox: preamble !== null, hasTable, rows, raw };
}

/** Some clients store the text JSON-escaped ("\\n" instead of newlines); undo that when it is obvious. */
function normaliseNewlines(text: string): string {
  let t = text.replace(/\r\n?/g, '\n');
  if (!t.includes('\n') && t.includes('\\n')) t = t.replace(/\\n/g, '\n').replace(/\\"/g, '"');
  return t;
}

/** The content between the first `[` and the last `]` (messages may contain brackets themselves). */
function extractTable(text: string): { content: string; after: string } | null {
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
    rows.push({
      code: Number(m[1]),
      message: (m[2] ?? '').trim(),
      line: Number(m[3]),
      column: Number(m[4]),
    });
    consumed = m.index + m[0].length;
  }
  const tail = text.slice(consumed).trim();
  if (tail) rows.push(...freeTextRows(tail));
  return rows;
}

/** Free text: one row per paragraph (blank-line separated), inner line breaks folded. */
function freeTextRows(text: string): DetalleRow[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => p !== '')
    .map((message) => ({ code: null, message, line: null, column: null }));
}
