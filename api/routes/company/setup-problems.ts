// The problems of setting a company up that several of its routes share: base64 that is not, and
// a .p12 refused by hacienda/signing-key.ts, each with the field at fault (Spanish, then English).
import type { ErrorCode } from '../../../domain/errors.ts';
import type { SigningKeyError } from '../../../hacienda/signing-key.ts';
import { ApiError } from '../../errors.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of a base64 field (whitespace allowed), or 422 `code` at `path`. */
export function decodeBase64(text: string, path: string, code: ErrorCode): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 === 1 || !BASE64.test(compact)) {
    const message = 'no es base64; no se guardó nada (not base64; nothing was stored)';
    throw new ApiError(code, `${path}: ${message}`, { errors: [{ path, code: 'invalid_base64', message }] });
  }
  return Buffer.from(compact, 'base64');
}

const CERTIFICATE_PROBLEMS: Record<SigningKeyError['code'], { code: ErrorCode; path: string; es: string }> = {
  invalid_p12: { code: 'p12_unreadable', path: '/p12_base64', es: 'no es un archivo .p12 legible' },
  no_private_key: { code: 'p12_unreadable', path: '/p12_base64', es: 'el .p12 no tiene llave privada' },
  unsupported_key: { code: 'p12_unreadable', path: '/p12_base64', es: 'la llave del .p12 no es RSA' },
  no_certificate: {
    code: 'p12_unreadable',
    path: '/p12_base64',
    es: 'el .p12 no tiene el certificado de su llave',
  },
  wrong_pin: { code: 'p12_wrong_pin', path: '/pin', es: 'el PIN no abre este .p12' },
  certificate_expired: { code: 'certificate_expired', path: '/p12_base64', es: 'el certificado venció' },
  certificate_not_yet_valid: {
    code: 'certificate_not_yet_valid',
    path: '/p12_base64',
    es: 'el certificado aún no es válido',
  },
  certificate_other_taxpayer: {
    code: 'certificate_other_taxpayer',
    path: '/p12_base64',
    es: 'el certificado es de otro contribuyente',
  },
};

/** A refused .p12 → its 422 problem, naming the field. */
export function certificateProblem(err: SigningKeyError): ApiError {
  const p = CERTIFICATE_PROBLEMS[err.code];
  const message = `${p.es}; no se guardó nada (${err.message}; nothing was stored)`;
  return new ApiError(p.code, message, { errors: [{ path: p.path, code: p.code, message }] });
}
