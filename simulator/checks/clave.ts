// Coherence of the clave with the document and the request (Hacienda's Anexos y Estructuras v4.4): the clave embeds the
// country, the issue date, the emisor's id, the whole NumeroConsecutivo and the situación; the
// consecutivo embeds the document type, which must match the root element; and the request body's
// clave/emisor must be the document's. Parsed here by position, independently of domain/clave.ts.
// "El tipo de documento no corresponde." is a text observed from Hacienda, and a consecutivo
// without the consecutivo's structure is its -78; the other wordings are ours (Hacienda's are not
// published) and use code -1 like its structural errors.
import { findDocumentType } from '../../domain/document-types/index.ts';
import { child, text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';
import type { Row } from './verdict.ts';

export const CLAVE_ROW_CODE = -1;
/** Hacienda's code for a NumeroConsecutivo that does not follow the consecutivo's structure. */
export const CONSECUTIVO_STRUCTURE_CODE = -78;
/** Branch (3), terminal (5), a registered document type (2) and a number from 1 (10 digits). */
function wellFormedConsecutivo(consecutivo: string): boolean {
  return findDocumentType(consecutivo.slice(8, 10)) !== undefined && !/^0+$/.test(consecutivo.slice(10));
}
const CR_OFFSET_MS = -6 * 3600_000; // Costa Rica: UTC-6 all year

export interface RequestIdentity {
  clave: string;
  emisor: { tipoIdentificacion: string; numeroIdentificacion: string };
}

export const CLAVE_TEXTS = {
  requestClave: 'La clave enviada en la solicitud no corresponde con la clave del comprobante.',
  requestEmisor:
    'La identificación del emisor enviada en la solicitud no corresponde con la del comprobante.',
  format:
    'La clave del comprobante no tiene el formato requerido (506, fecha, identificación del emisor, consecutivo, situación y código de seguridad).',
  consecutivo: 'La clave del comprobante no corresponde con el número consecutivo del comprobante.',
  emisor: 'La clave del comprobante no corresponde con la identificación del emisor.',
  fecha: 'La fecha de la clave no corresponde con la fecha de emisión del comprobante.',
  situacion: 'La situación del comprobante indicada en la clave no es válida.',
  tipo: 'El tipo de documento no corresponde.',
  /** Hacienda's own -78 text. */
  consecutivoStructure:
    "La numeración consecutiva no cumple con la estructura en el 'artículo 4 numeración consecutiva' de la resolución 48-2016 de comprobantes electrónicos.",
} as const;

/** Issue date (DDMMYY) in Costa Rica time of an xs:dateTime, or null when unreadable. */
export function crClaveDate(fechaEmision: string): string | null {
  const t = Date.parse(fechaEmision);
  if (Number.isNaN(t)) return null;
  const d = new Date(t + CR_OFFSET_MS);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getUTCDate())}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCFullYear() % 100)}`;
}

const digitsOnly = (s: string) => s.replace(/[^A-Za-z0-9]/g, '').toUpperCase();

/**
 * @param rootTipo the document's type (01 FE, 03 NC, …): the consecutivo's when a type of that code
 *   is written under this root, else the root's own (rule-context.ts typeOfDocument); or null.
 * @param issuer the party that issues the document and whose identification the clave carries:
 *   the Emisor, or the Receptor (the buyer) of a factura electrónica de compra.
 */
export function checkClave(
  root: XmlElement,
  request: RequestIdentity,
  rootTipo: string | null,
  issuer: 'Emisor' | 'Receptor' = 'Emisor',
): Row[] {
  const rows: Row[] = [];
  const add = (message: string) => rows.push({ code: CLAVE_ROW_CODE, message, line: 0, column: 0 });
  const clave = text(root, 'Clave') ?? '';
  const consecutivo = text(root, 'NumeroConsecutivo') ?? '';
  const emisorId = child(root, issuer, 'Identificacion');
  const emisorNumero = text(emisorId, 'Numero') ?? '';
  const emisorTipo = text(emisorId, 'Tipo') ?? '';
  const fecha = text(root, 'FechaEmision') ?? '';

  if (request.clave !== clave) add(CLAVE_TEXTS.requestClave);
  if (
    digitsOnly(request.emisor.numeroIdentificacion).replace(/^0+/, '') !==
      digitsOnly(emisorNumero).replace(/^0+/, '') ||
    (emisorTipo !== '' && request.emisor.tipoIdentificacion !== emisorTipo)
  ) {
    add(CLAVE_TEXTS.requestEmisor);
  }
  if (/^\d{20}$/.test(consecutivo) && !wellFormedConsecutivo(consecutivo))
    rows.push({
      code: CONSECUTIVO_STRUCTURE_CODE,
      message: CLAVE_TEXTS.consecutivoStructure,
      line: 0,
      column: 0,
    });
  else if (rootTipo && /^\d{20}$/.test(consecutivo) && consecutivo.slice(8, 10) !== rootTipo)
    add(CLAVE_TEXTS.tipo);

  if (!/^[A-Za-z0-9]{50}$/.test(clave) || !clave.startsWith('506')) {
    add(CLAVE_TEXTS.format);
    return rows;
  }
  if (clave.slice(21, 41) !== consecutivo) add(CLAVE_TEXTS.consecutivo);
  if (clave.slice(9, 21).toUpperCase() !== digitsOnly(emisorNumero).padStart(12, '0'))
    add(CLAVE_TEXTS.emisor);
  const date = crClaveDate(fecha);
  if (date !== null && clave.slice(3, 9) !== date) add(CLAVE_TEXTS.fecha);
  if (!['1', '2', '3'].includes(clave.charAt(41))) add(CLAVE_TEXTS.situacion);
  return rows;
}
