// The two identifiers of every comprobante (Hacienda's Anexos y Estructuras v4.4):
//   NumeroConsecutivo (20 digits) = sucursal(3) terminal(5) tipo(2) número(10)
//   Clave (50 chars) = 506 DDMMYY emisor(12) consecutivo(20) situación(1) código de seguridad(8)
// Builders and parsers here reject every malformed field with a ClaveError naming the field, so
// callers can tell the user exactly what is wrong. The clave is an opaque string everywhere else;
// it is parsed only to check it.
import { randomInt } from 'node:crypto';
import { isSituacion, type Situacion } from './codes.ts';
import { isDocumentTypeCode } from './document-types/index.ts';
import { formatCrClaveDate } from './cr-time.ts';

export type ClaveField =
  | 'clave'
  | 'country'
  | 'date'
  | 'emisorId'
  | 'consecutivo'
  | 'branch'
  | 'terminal'
  | 'docType'
  | 'number'
  | 'situacion'
  | 'securityCode';

export type ClaveErrorCode =
  | 'invalid_type'
  | 'invalid_length'
  | 'invalid_characters'
  | 'out_of_range'
  | 'unknown_code'
  | 'invalid_date'
  | 'mismatch';

/** A malformed clave or consecutivo field. `field` names the part, `code` says what is wrong. */
export class ClaveError extends Error {
  constructor(
    readonly field: ClaveField,
    readonly code: ClaveErrorCode,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'ClaveError';
  }
}

/** Country code that opens every clave. */
export const CLAVE_COUNTRY = '506';

// Widths of the consecutivo parts (Anexos v4.4 p. 65).
const BRANCH_WIDTH = 3;
const TERMINAL_WIDTH = 5;
const NUMBER_WIDTH = 10;
/** The sequential number restarts at 1 after this (10 digits). */
export const MAX_CONSECUTIVO_NUMBER = 9_999_999_999;

export interface ConsecutivoParts {
  /** Establecimiento / sucursal, `001` = casa matriz. */
  branch: string;
  /** Terminal / punto de venta, `00001` for a single terminal or a central server. */
  terminal: string;
  /** A registered document type's code (domain/document-types/). */
  docType: string;
  /** 1..9,999,999,999 */
  number: number;
}

export interface ConsecutivoInput {
  /** `001`..`999`, as a 3-digit string or an integer. */
  branch: string | number;
  /** `00001`..`99999`, as a 5-digit string or an integer. */
  terminal: string | number;
  docType: string;
  /** 1..9,999,999,999, as an integer or a digit string. */
  number: number | bigint | string;
}

function fixedDigits(value: string | number | bigint, width: number, field: ClaveField, max: number): string {
  let n: number;
  if (typeof value === 'string') {
    if (value.length !== width) {
      throw new ClaveError(
        field,
        'invalid_length',
        `expected ${width} digits, got ${value.length} characters`,
      );
    }
    if (!/^\d+$/.test(value)) throw new ClaveError(field, 'invalid_characters', 'expected digits only');
    n = Number(value);
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new ClaveError(field, 'invalid_type', 'expected an integer');
    }
    n = Number(value);
  } else {
    throw new ClaveError(field, 'invalid_type', 'expected a string or an integer');
  }
  if (n < 1 || n > max)
    throw new ClaveError(field, 'out_of_range', `expected 1..${max}, got ${String(value)}`);
  return String(n).padStart(width, '0');
}

function numberDigits(value: number | bigint | string): string {
  if (typeof value === 'string') {
    if (value === '') throw new ClaveError('number', 'invalid_length', 'expected 1 to 10 digits');
    if (!/^\d{1,10}$/.test(value)) {
      throw new ClaveError(
        'number',
        /^\d+$/.test(value) ? 'invalid_length' : 'invalid_characters',
        'expected 1 to 10 digits',
      );
    }
    return fixedDigits(value.padStart(NUMBER_WIDTH, '0'), NUMBER_WIDTH, 'number', MAX_CONSECUTIVO_NUMBER);
  }
  return fixedDigits(value, NUMBER_WIDTH, 'number', MAX_CONSECUTIVO_NUMBER);
}

function docTypeCode(value: unknown): string {
  if (typeof value !== 'string') throw new ClaveError('docType', 'invalid_type', 'expected a 2-digit string');
  if (!isDocumentTypeCode(value))
    throw new ClaveError('docType', 'unknown_code', `unknown document type "${value}"`);
  return value;
}

/** The 20-digit NumeroConsecutivo. */
export function buildConsecutivo(input: ConsecutivoInput): string {
  return (
    fixedDigits(input.branch, BRANCH_WIDTH, 'branch', 999) +
    fixedDigits(input.terminal, TERMINAL_WIDTH, 'terminal', 99_999) +
    docTypeCode(input.docType) +
    numberDigits(input.number)
  );
}

/** Splits and checks a NumeroConsecutivo. */
export function parseConsecutivo(consecutivo: string): ConsecutivoParts {
  if (typeof consecutivo !== 'string')
    throw new ClaveError('consecutivo', 'invalid_type', 'expected a string');
  if (consecutivo.length !== 20) {
    throw new ClaveError(
      'consecutivo',
      'invalid_length',
      `expected 20 digits, got ${consecutivo.length} characters`,
    );
  }
  if (!/^\d{20}$/.test(consecutivo))
    throw new ClaveError('consecutivo', 'invalid_characters', 'expected digits only');
  const branch = consecutivo.slice(0, 3);
  const terminal = consecutivo.slice(3, 8);
  fixedDigits(branch, BRANCH_WIDTH, 'branch', 999);
  fixedDigits(terminal, TERMINAL_WIDTH, 'terminal', 99_999);
  const docType = docTypeCode(consecutivo.slice(8, 10));
  const number = Number(consecutivo.slice(10));
  if (number < 1) throw new ClaveError('number', 'out_of_range', 'the sequential number starts at 1');
  return { branch, terminal, docType, number };
}

export interface ClaveInput {
  /** Generation instant; its Costa Rica calendar day goes into the clave. */
  date: Date;
  /** Emisor identification number, 1..12 digits or letters (2026: jurídicas may contain letters). */
  emisorId: string;
  consecutivo: string;
  situacion: Situacion;
  /** 8 digits chosen at random by the issuer (see randomSecurityCode) and stored with the document. */
  securityCode: string;
}

export interface ClaveParts {
  country: typeof CLAVE_COUNTRY;
  /** Day, month and full year (20YY) of the Costa Rica calendar date. */
  date: { day: number; month: number; year: number };
  /** The 12 characters of positions 10-21, zero padding included. */
  emisorIdPadded: string;
  /** The identification number without the left zero padding. */
  emisorId: string;
  consecutivo: string;
  consecutivoParts: ConsecutivoParts;
  situacion: Situacion;
  securityCode: string;
}

function emisorIdField(value: unknown): string {
  if (typeof value !== 'string') throw new ClaveError('emisorId', 'invalid_type', 'expected a string');
  if (value.length < 1 || value.length > 12) {
    throw new ClaveError('emisorId', 'invalid_length', `expected 1 to 12 characters, got ${value.length}`);
  }
  if (!/^[0-9A-Za-z]+$/.test(value)) {
    throw new ClaveError(
      'emisorId',
      'invalid_characters',
      'expected digits or letters only (no dashes or spaces)',
    );
  }
  if (/^0+$/.test(value))
    throw new ClaveError('emisorId', 'out_of_range', 'the identification cannot be all zeros');
  return value.padStart(12, '0');
}

function situacionField(value: unknown): Situacion {
  if (typeof value !== 'string')
    throw new ClaveError('situacion', 'invalid_type', 'expected "1", "2" or "3"');
  if (!isSituacion(value))
    throw new ClaveError('situacion', 'unknown_code', `expected 1, 2 or 3, got "${value}"`);
  return value;
}

function securityCodeField(value: unknown): string {
  if (typeof value !== 'string')
    throw new ClaveError('securityCode', 'invalid_type', 'expected an 8-digit string');
  if (value.length !== 8) {
    throw new ClaveError(
      'securityCode',
      'invalid_length',
      `expected 8 digits, got ${value.length} characters`,
    );
  }
  if (!/^\d{8}$/.test(value))
    throw new ClaveError('securityCode', 'invalid_characters', 'expected digits only');
  return value;
}

/** The 50-character clave numérica. */
export function buildClave(input: ClaveInput): string {
  if (!(input.date instanceof Date) || Number.isNaN(input.date.getTime())) {
    throw new ClaveError('date', 'invalid_date', 'expected a valid Date');
  }
  const date = formatCrClaveDate(input.date);
  const emisor = emisorIdField(input.emisorId);
  parseConsecutivo(input.consecutivo);
  return (
    CLAVE_COUNTRY +
    date +
    emisor +
    input.consecutivo +
    situacionField(input.situacion) +
    securityCodeField(input.securityCode)
  );
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Splits and checks a clave; every malformed part raises a ClaveError naming it. */
export function parseClave(clave: string): ClaveParts {
  if (typeof clave !== 'string') throw new ClaveError('clave', 'invalid_type', 'expected a string');
  if (clave.length !== 50) {
    throw new ClaveError('clave', 'invalid_length', `expected 50 characters, got ${clave.length}`);
  }
  if (!/^[0-9A-Za-z]{50}$/.test(clave)) {
    throw new ClaveError('clave', 'invalid_characters', 'expected digits or letters only');
  }
  const country = clave.slice(0, 3);
  if (country !== CLAVE_COUNTRY)
    throw new ClaveError('country', 'unknown_code', `expected 506, got "${country}"`);

  const dateText = clave.slice(3, 9);
  if (!/^\d{6}$/.test(dateText)) throw new ClaveError('date', 'invalid_characters', 'expected DDMMYY digits');
  const day = Number(dateText.slice(0, 2));
  const month = Number(dateText.slice(2, 4));
  const year = 2000 + Number(dateText.slice(4, 6));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new ClaveError('date', 'invalid_date', `"${dateText}" is not a calendar date (DDMMYY)`);
  }

  const emisorIdPadded = clave.slice(9, 21);
  if (/^0+$/.test(emisorIdPadded)) {
    throw new ClaveError('emisorId', 'out_of_range', 'the identification cannot be all zeros');
  }
  const consecutivo = clave.slice(21, 41);
  const consecutivoParts = parseConsecutivo(consecutivo);
  const situacion = situacionField(clave.slice(41, 42));
  const securityCode = securityCodeField(clave.slice(42, 50));
  return {
    country: CLAVE_COUNTRY,
    date: { day, month, year },
    emisorIdPadded,
    emisorId: emisorIdPadded.replace(/^0+/, ''),
    consecutivo,
    consecutivoParts,
    situacion,
    securityCode,
  };
}

/**
 * Checks that a clave agrees with the document that carries it: the same consecutivo (positions
 * 22-41), the emisor's identification (positions 10-21) and, when given, the document type.
 */
export function assertClaveMatches(
  clave: string,
  expected: { consecutivo: string; emisorId?: string; docType?: string },
): ClaveParts {
  const parts = parseClave(clave);
  if (parts.consecutivo !== expected.consecutivo) {
    throw new ClaveError('consecutivo', 'mismatch', 'the clave does not contain the NumeroConsecutivo');
  }
  if (expected.emisorId !== undefined && parts.emisorIdPadded !== emisorIdField(expected.emisorId)) {
    throw new ClaveError('emisorId', 'mismatch', "the clave does not contain the emisor's identification");
  }
  if (expected.docType !== undefined && parts.consecutivoParts.docType !== expected.docType) {
    throw new ClaveError(
      'docType',
      'mismatch',
      `the clave is for document type ${parts.consecutivoParts.docType}, not ${expected.docType}`,
    );
  }
  return parts;
}

/** A fresh 8-digit security code from the operating system's CSPRNG (uniform over 00000000-99999999). */
export function randomSecurityCode(): string {
  return String(randomInt(0, 100_000_000)).padStart(8, '0');
}
