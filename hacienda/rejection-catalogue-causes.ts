// What Hacienda's X-Error-Cause header says when it refuses a request before processing it (POST
// 400, GET 404, …), in Spanish and English. The header is one line of Hacienda's own text (some
// causes come from its gateway, in English); a cause not listed here is explained by its HTTP
// status, and an English one is never shown as the Spanish reason.
import { fixed, text } from './rejection-entry.ts';
import type { Bilingual, Entry } from './rejection-entry.ts';

export const CAUSE_ENTRIES: Entry[] = [
  fixed(
    'duplicate-clave',
    'Clave',
    text(/ya fue recibido anteriormente|ya existe en nuestras bases de datos/i),
    [
      'Hacienda ya había recibido un comprobante con esta misma Clave.',
      'No lo reenvíe con otra Clave: consulte el estado de la Clave original y use esa respuesta.',
    ],
    [
      'Hacienda had already received a document with this same Clave.',
      'Do not resend it under a new Clave: query the status of the original Clave and use that answer.',
    ],
  ),
  fixed(
    'clave-unknown',
    'Clave',
    text(/No existe el recurso con Clave|no (se )?encontr[oó]|not found/i),
    [
      'Hacienda no tiene (todavía) un comprobante con esta Clave.',
      'Justo después del envío es normal: vuelva a consultar en unos segundos; si persiste, reenvíe el mismo comprobante con la misma Clave.',
    ],
    [
      'Hacienda has no document with this Clave (yet).',
      'Right after sending this is normal: query again in a few seconds; if it persists, resend the same document under the same Clave.',
    ],
  ),
  {
    id: 'request-field',
    field: null,
    match: text(
      /(?:El )?campo ['"]?([\w.]+)['"]? (?:no es v[aá]lido|es requerido|es obligatorio|no tiene|no cumple|no corresponde)/i,
    ),
    explain: (row, m) => {
      const field = m?.[1] ?? 'comprobanteXml';
      return {
        field,
        readable: {
          es: `Hacienda no recibió el envío: el campo ${field} de la solicitud no es válido.`,
          en: `Hacienda did not receive the submission: the request field ${field} is not valid.`,
        },
        fix: {
          es: `Corrija ${field} en la solicitud de recepción (clave de 50 dígitos, fecha RFC 3339, identificaciones y el XML firmado en base64) y envíe otra vez.`,
          en: `Correct ${field} in the reception request (a 50-digit clave, an RFC 3339 fecha, the identifications and the signed XML in base64) and send again.`,
        },
      };
    },
  },
  fixed(
    'request-body',
    'comprobanteXml',
    text(/cuerpo de la solicitud|JSON|body/i),
    [
      'Hacienda no pudo leer la solicitud de recepción (su cuerpo JSON con clave, fecha, emisor y comprobanteXml).',
      'Envíe un objeto JSON con clave, fecha, emisor, receptor y comprobanteXml (el XML firmado en base64).',
    ],
    [
      'Hacienda could not read the reception request (its JSON body with clave, fecha, emisor and comprobanteXml).',
      'Send a JSON object with clave, fecha, emisor, receptor and comprobanteXml (the signed XML in base64).',
    ],
  ),
];

/** When no entry knows the cause: what its HTTP status says. */
export function causeByStatus(status: number | null): Bilingual & { fixEs: string; fixEn: string } {
  if (status === 404)
    return {
      es: 'Hacienda no encontró el recurso pedido (HTTP 404).',
      en: 'Hacienda did not find the resource (HTTP 404).',
      fixEs:
        'Revise la dirección del servicio (ambiente de pruebas o producción) y la Clave; vuelva a consultar.',
      fixEn: 'Check the service address (sandbox or production) and the Clave; query again.',
    };
  if (status === 403)
    return {
      es: 'Hacienda no autorizó al usuario para este emisor (HTTP 403).',
      en: 'Hacienda did not authorise the user for this emisor (HTTP 403).',
      fixEs: 'Use el usuario de la API de Hacienda del mismo emisor del comprobante y su ambiente.',
      fixEn: "Use the Hacienda API user of the document's own emisor and environment.",
    };
  return {
    es: `Hacienda rechazó la solicitud de recepción (HTTP ${status ?? '?'}) sin procesar el comprobante.`,
    en: `Hacienda refused the reception request (HTTP ${status ?? '?'}) without processing the document.`,
    fixEs:
      'Revise la solicitud (clave, fecha, identificaciones y el XML firmado en base64) según el detalle original de Hacienda.',
    fixEn:
      "Check the request (clave, fecha, identifications and the signed XML in base64) against Hacienda's original detail.",
  };
}

const SPANISH =
  /\b(el|la|los|las|del|de|no|es|ya|con|para|por|que|existe|campo|comprobante|v[aá]lid[oa])\b|[áéíóúñ¿¡]/gi;
const ENGLISH =
  /\b(the|is|not|was|invalid|error|request|must|cannot|found|bad|failed|unauthorized|forbidden|body|missing|of)\b/gi;

/** Whether a cause reads as Spanish (shown as is) rather than English (never shown as the Spanish reason). */
export function readsSpanish(cause: string): boolean {
  return (cause.match(SPANISH)?.length ?? 0) > (cause.match(ENGLISH)?.length ?? 0);
}
