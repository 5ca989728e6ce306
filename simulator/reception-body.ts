// Validation of a POST /recepcion body (RecepcionPostRequest, Hacienda's reception API). Hacienda answers a
// malformed body with 400, the reason in X-Error-Cause and a validation-exception header; its exact
// wordings are not published, so these are ours, one per field.

export interface ReceptionRequest {
  clave: string;
  fecha: string;
  emisor: { tipoIdentificacion: string; numeroIdentificacion: string };
  receptor?: { tipoIdentificacion: string; numeroIdentificacion: string };
  callbackUrl?: string;
  consecutivoReceptor?: string;
  /** The decoded comprobanteXml bytes. */
  xml: Buffer;
}

export type BodyCheck = { ok: true; request: ReceptionRequest } | { ok: false; cause: string };

const ID_TYPES = new Set(['01', '02', '03', '04', '05', '06']);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// RFC 3339 date-time, offset required.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

function identification(
  v: unknown,
  field: string,
): { tipoIdentificacion: string; numeroIdentificacion: string } | string {
  if (typeof v !== 'object' || v === null) return `El campo ${field} es requerido`;
  const o = v as Record<string, unknown>;
  if (typeof o.tipoIdentificacion !== 'string' || !ID_TYPES.has(o.tipoIdentificacion)) {
    return `El campo ${field}.tipoIdentificacion no es válido`;
  }
  // The published description says 12 characters; types 05/06 need up to 20.
  if (typeof o.numeroIdentificacion !== 'string' || !/^[A-Za-z0-9]{1,20}$/.test(o.numeroIdentificacion)) {
    return `El campo ${field}.numeroIdentificacion no es válido`;
  }
  return { tipoIdentificacion: o.tipoIdentificacion, numeroIdentificacion: o.numeroIdentificacion };
}

export function validateReception(body: unknown): BodyCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, cause: 'El cuerpo de la solicitud no es un objeto JSON' };
  }
  const b = body as Record<string, unknown>;
  if (typeof b.clave !== 'string' || !/^[A-Za-z0-9]{50}$/.test(b.clave)) {
    return { ok: false, cause: 'El campo clave no es válido' };
  }
  if (typeof b.fecha !== 'string' || !DATE_TIME.test(b.fecha) || Number.isNaN(Date.parse(b.fecha))) {
    return { ok: false, cause: 'El campo fecha no es válido' };
  }
  const emisor = identification(b.emisor, 'emisor');
  if (typeof emisor === 'string') return { ok: false, cause: emisor };
  let receptor: ReceptionRequest['receptor'];
  if (b.receptor !== undefined && b.receptor !== null) {
    const r = identification(b.receptor, 'receptor');
    if (typeof r === 'string') return { ok: false, cause: r };
    receptor = r;
  }
  let callbackUrl: string | undefined;
  if (b.callbackUrl !== undefined && b.callbackUrl !== null && b.callbackUrl !== '') {
    if (
      typeof b.callbackUrl !== 'string' ||
      !/^https?:\/\//i.test(b.callbackUrl) ||
      !URL.canParse(b.callbackUrl)
    ) {
      return { ok: false, cause: 'El campo callbackUrl no es válido' };
    }
    callbackUrl = b.callbackUrl;
  }
  let consecutivoReceptor: string | undefined;
  if (b.consecutivoReceptor !== undefined && b.consecutivoReceptor !== null) {
    if (typeof b.consecutivoReceptor !== 'string' || !/^\d{20}$/.test(b.consecutivoReceptor)) {
      return { ok: false, cause: 'El campo consecutivoReceptor no es válido' };
    }
    consecutivoReceptor = b.consecutivoReceptor;
  }
  const xml64 = typeof b.comprobanteXml === 'string' ? b.comprobanteXml.replace(/\s+/g, '') : '';
  if (xml64 === '' || !BASE64.test(xml64) || xml64.length % 4 !== 0) {
    return { ok: false, cause: 'El campo comprobanteXml no es válido' };
  }
  return {
    ok: true,
    request: {
      clave: b.clave,
      fecha: b.fecha,
      emisor,
      ...(receptor ? { receptor } : {}),
      ...(callbackUrl ? { callbackUrl } : {}),
      ...(consecutivoReceptor ? { consecutivoReceptor } : {}),
      xml: Buffer.from(xml64, 'base64'),
    },
  };
}
