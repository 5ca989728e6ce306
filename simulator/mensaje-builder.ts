// The simulator's answer document: a MensajeHacienda v4.4 (Hacienda's reception API, MensajeHacienda_V4.4.xsd)
// with DetalleMensaje in the real format — the sandbox preamble, then free text and/or
//   El comprobante electrónico tiene los siguientes errores: \n\n[\ncodigo, mensaje, fila, columna\n
//   -99, "…", 0, 0\n\n]
// (messages quoted but not escaped, exactly like Hacienda's). An acceptance with observations
// (-16, -37) carries them as a bare table after the preamble, as real answers do
// (CRLibre/API_Hacienda #50): `codigo, mensaje, fila, columna\n-16, "…", 0, 0`. Signed by the caller.
import type { Row, Verdict } from './checks/verdict.ts';

const NS = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeHacienda';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

// Seen on sandbox answers whatever the outcome, even with Mensaje 3 (Hacienda's sandbox).
export const SANDBOX_PREAMBLE =
  'Este comprobante fue aceptado en el ambiente de pruebas, por lo cual no tiene validez para fines tributarios';
// Production wording of an acceptance was not observed; this is a neutral stand-in.
export const PRODUCTION_ACCEPTED = 'Este comprobante fue aceptado.';
export const TABLE_INTRO = 'El comprobante electrónico tiene los siguientes errores: ';
export const TABLE_HEADER = 'codigo, mensaje, fila, columna';

const formatRow = (r: Row) => `${r.code}, "${r.message}", ${r.line}, ${r.column}`;

export function formatDetalleMensaje(verdict: Verdict, sandbox: boolean): string {
  const parts: string[] = [];
  const observations = verdict.state === 'aceptado' ? (verdict.observations ?? []) : [];
  if (sandbox) parts.push(SANDBOX_PREAMBLE);
  else if (verdict.state === 'aceptado' && observations.length === 0) parts.push(PRODUCTION_ACCEPTED);
  parts.push(...verdict.freeText);
  if (verdict.rows.length > 0) {
    parts.push(`${TABLE_INTRO}\n\n[\n${TABLE_HEADER}\n${verdict.rows.map(formatRow).join('\n')}\n\n]`);
  }
  // An acceptance's observations: the bare table, no intro sentence, no brackets.
  if (observations.length > 0) parts.push(`${TABLE_HEADER}\n${observations.map(formatRow).join('\n')}`);
  return parts.join('\n\n');
}

// XML 1.0 forbids most control characters even when escaped.
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const escape = (s: string) =>
  s.replace(INVALID_XML_CHARS, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const DECIMAL_18_5 = /^\d{1,13}(\.\d{1,5})?$/;
const ID_TYPES = new Set(['01', '02', '03', '04', '05', '06']);

function decimal(v: string | null): string | null {
  return v !== null && DECIMAL_18_5.test(v) ? v : null;
}

/** The unsigned MensajeHacienda for a processed document. */
export function buildMensajeHacienda(clave: string, verdict: Verdict, detalle: string): string {
  const s = verdict.summary;
  const validEmisor = ID_TYPES.has(s.tipoIdentificacionEmisor) && s.numeroCedulaEmisor.length <= 20;
  const el = (name: string, value: string) => `<${name}>${escape(value)}</${name}>`;
  const body = [
    el('Clave', clave),
    el('NombreEmisor', (validEmisor ? s.nombreEmisor : 'DESCONOCIDO').slice(0, 100)),
    el('TipoIdentificacionEmisor', validEmisor ? s.tipoIdentificacionEmisor : '01'),
    el('NumeroCedulaEmisor', validEmisor ? s.numeroCedulaEmisor : '000000000'),
  ];
  if (
    s.tipoIdentificacionReceptor &&
    ID_TYPES.has(s.tipoIdentificacionReceptor) &&
    s.numeroCedulaReceptor &&
    s.numeroCedulaReceptor.length <= 20
  ) {
    if (s.nombreReceptor) body.push(el('NombreReceptor', s.nombreReceptor.slice(0, 100)));
    body.push(el('TipoIdentificacionReceptor', s.tipoIdentificacionReceptor));
    body.push(el('NumeroCedulaReceptor', s.numeroCedulaReceptor));
  }
  const accepted = verdict.state === 'aceptado';
  body.push(el('Mensaje', accepted ? '1' : '3'));
  body.push(el('EstadoMensaje', accepted ? 'Aceptado' : 'Rechazado'));
  body.push(el('DetalleMensaje', detalle));
  const impuesto = decimal(s.montoTotalImpuesto);
  if (impuesto !== null) body.push(el('MontoTotalImpuesto', impuesto));
  body.push(el('TotalFactura', decimal(s.totalFactura) ?? '0'));
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<MensajeHacienda xmlns="${NS}" xmlns:ds="${DSIG}">\n` +
    body.map((b) => `    ${b}\n`).join('') +
    '</MensajeHacienda>'
  );
}
