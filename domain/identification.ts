// Identification numbers (Hacienda "Nota 4"): how a number people type is normalised, which
// type it can be when the request does not say, and whether it fits a type the request gives.
//
// Types and formats (v4.4, 2026 revision of the Anexos y Estructuras):
//   01 Cédula física    9 digits, no leading zero (province 1-9, tomo, asiento: 1-0234-0567)
//   02 Cédula jurídica  10 characters; since 2026 letters are allowed (Registro Nacional)
//   03 DIMEX            11 or 12 digits, no leading zero
//   04 NITE             10 digits
//   05 Extranjero no domiciliado, 06 No contribuyente: up to 20 characters, never read from a shape
//
// Normalisation, in this order (the same with or without a type, except where said):
//   1. Spaces (including non-breaking ones), dots, and dashes (also the Unicode hyphens and
//      en/em dashes word processors put in) are removed; letters are upper-cased.
//      `1-0234-0567` → `102340567`, `3.101.123456` → `3101123456`, `3-101-ab1234` → `3101AB1234`.
//   2. A física written with a leading zero: a 10-digit number that starts with 0 and whose other
//      9 digits are a física (first digit 1-9) is that física. This is the 10-digit way of
//      writing X-XXXX-XXXX, with the province padded to two digits (0X-XXXX-XXXX, often written
//      0X-0XXX-0XXX when tomo and asiento have three significant digits):
//      `0104560789`, `01-0456-0789`, `0-1-0456-0789` → `104560789`. Applied when no type is given
//      and when 01 is given; with 02 or 04 given the ten digits are kept as written (a NITE or a
//      jurídica may start with 0).
//   3. Nothing else is padded or cut. In particular `0-1234-5678` (nine digits, the first a 0)
//      is refused: a física starts with its province (1-9), and without the 0 only eight digits
//      are left, so there is no física it can be. Short groups (`1-456-789`) are not padded
//      either: `3-101-1234`, a jurídica missing two digits, would silently become a física.
//
// Reading a number whose type is not given: a type is taken only from a shape no other type has.
//   9 digits, first 1-9                  → 01
//   10 characters with a letter          → 02 (only a jurídica may have letters)
//   11 or 12 digits, first 1-9           → 03 (no other type has that length)
//   10 digits (after step 2)             → 02 or 04: `ambiguous_identification`, with both
//                                          candidates; the request gives the type, or the
//                                          caller asks Hacienda's taxpayer service which it is
//   anything else                        → `invalid_identification`
// Messages are Spanish first, then English.

export const IDENTIFICATION_TYPES = {
  '01': 'Cédula Física',
  '02': 'Cédula Jurídica',
  '03': 'DIMEX',
  '04': 'NITE',
  '05': 'Extranjero No Domiciliado',
  '06': 'No Contribuyente',
} as const;

export type IdentificationType = keyof typeof IDENTIFICATION_TYPES;

export function isIdentificationType(v: string): v is IdentificationType {
  return Object.hasOwn(IDENTIFICATION_TYPES, v);
}

/** Step 1: removes the separators people type (spaces, dots, dashes) and upper-cases letters. */
export function normalizeIdentification(raw: string): string {
  return raw.replace(/[\s.\-\u2010-\u2015\u2212]/g, '').toUpperCase();
}

const FISICA = /^[1-9]\d{8}$/;

/** Step 2: `0104560789` → `104560789`; any other number is returned unchanged. */
function withoutFisicaZero(number: string): string {
  return /^0\d{9}$/.test(number) && FISICA.test(number.slice(1)) ? number.slice(1) : number;
}

/**
 * The numbers a typed identification may be stored under, for searching: the normalised number
 * and, for a física written with a leading zero, the física (a NITE may keep the zero).
 */
export function identificationSearchNumbers(raw: string): string[] {
  const number = normalizeIdentification(raw);
  const fisica = withoutFisicaZero(number);
  return fisica === number ? [number] : [number, fisica];
}

const FORMATS: Record<IdentificationType, { test: (n: string) => boolean; es: string; en: string }> = {
  '01': {
    test: (n) => FISICA.test(n),
    es: '9 dígitos sin cero inicial',
    en: '9 digits without a leading zero',
  },
  '02': { test: (n) => /^[0-9A-Z]{10}$/.test(n), es: '10 dígitos o letras', en: '10 digits or letters' },
  '03': {
    test: (n) => /^[1-9]\d{10,11}$/.test(n),
    es: '11 o 12 dígitos sin cero inicial',
    en: '11 or 12 digits without a leading zero',
  },
  '04': { test: (n) => /^\d{10}$/.test(n), es: '10 dígitos', en: '10 digits' },
  '05': {
    test: (n) => /^[0-9A-Z]{1,20}$/.test(n),
    es: 'hasta 20 dígitos o letras',
    en: 'up to 20 digits or letters',
  },
  '06': {
    test: (n) => /^[0-9A-Z]{1,20}$/.test(n),
    es: 'hasta 20 dígitos o letras',
    en: 'up to 20 digits or letters',
  },
};

/** The format a type requires, in English (as the field error messages say it second). */
export function identificationRule(type: IdentificationType): string {
  return FORMATS[type].en;
}

/**
 * The types a normalised number (steps 1 and 2 done) can be without a given type: one type,
 * two when the shape is shared (10 digits: 02 or 04), none when no rule fits.
 */
export function identificationCandidates(number: string): IdentificationType[] {
  if (FISICA.test(number)) return ['01'];
  if (/^\d{10}$/.test(number)) return ['02', '04'];
  if (/^[0-9A-Z]{10}$/.test(number)) return ['02'];
  if (/^[1-9]\d{10,11}$/.test(number)) return ['03'];
  return [];
}

export type IdentificationResult =
  | { ok: true; type: IdentificationType; number: string }
  | {
      ok: false;
      code: 'ambiguous_identification';
      /** The normalised number, e.g. to ask Hacienda's taxpayer service for its type. */
      number: string;
      candidates: IdentificationType[];
      message: string;
    }
  | { ok: false; code: 'invalid_identification' | 'identification_type_mismatch'; message: string };

/** How a reading is named inside a sentence ("puede ser cédula jurídica (02) o NITE (04)"). */
const READING_NAMES: Record<IdentificationType, string> = {
  '01': 'cédula física',
  '02': 'cédula jurídica',
  '03': 'DIMEX',
  '04': 'NITE',
  '05': 'extranjero no domiciliado',
  '06': 'no contribuyente',
};

export interface ResolveOptions {
  /** The request field that gives the type, named in the messages (default identification_type). */
  typeField?: string;
}

/**
 * Resolves a typed number and an optional given type into a normalised (type, number) pair.
 * A given type is used as given but the number must fit its format; without one, the type is
 * read from the number only when one type alone has its shape (see the module comment).
 */
export function resolveIdentification(
  raw: string,
  explicitType?: string | null,
  options: ResolveOptions = {},
): IdentificationResult {
  const typed = normalizeIdentification(raw);
  if (explicitType) return resolveGiven(typed, explicitType);
  const number = withoutFisicaZero(typed);
  const candidates = identificationCandidates(number);
  if (candidates.length === 1) return { ok: true, type: candidates[0]!, number };
  const field = options.typeField ?? 'identification_type';
  if (candidates.length > 1) {
    const names = candidates.map((c) => `${READING_NAMES[c]} (${c})`);
    return {
      ok: false,
      code: 'ambiguous_identification',
      number,
      candidates,
      message:
        `${number} puede ser ${names.join(' o ')}: indique ${field} / ` +
        `${number} may be a ${names.join(' or a ')}: give ${field}`,
    };
  }
  return { ok: false, code: 'invalid_identification', message: noReading(number, field) };
}

function resolveGiven(typed: string, type: string): IdentificationResult {
  if (!isIdentificationType(type)) {
    return {
      ok: false,
      code: 'invalid_identification',
      message: `tipo de identificación desconocido ${type} / unknown identification type ${type}`,
    };
  }
  const number = type === '01' ? withoutFisicaZero(typed) : typed;
  const f = FORMATS[type];
  if (!f.test(number)) {
    const name = IDENTIFICATION_TYPES[type];
    return {
      ok: false,
      code: 'identification_type_mismatch',
      message: `el tipo ${type} (${name}) requiere ${f.es} / type ${type} (${name}) requires ${f.en}`,
    };
  }
  return { ok: true, type, number };
}

/** Why a number without a given type fits no type, naming what each type looks like. */
function noReading(number: string, field: string): string {
  if (/^0\d{8}$/.test(number)) {
    return (
      'una cédula física tiene 9 dígitos y empieza con la provincia (1-9), no con 0 (ej. 1-0234-0567); ' +
      `sin el 0 quedan 8 dígitos / a cédula física has 9 digits and starts with its province (1-9), ` +
      'not with 0 (e.g. 1-0234-0567); without the 0 only 8 digits are left'
    );
  }
  return (
    'no corresponde a ningún tipo: física 9 dígitos (1-0234-0567), jurídica 10 caracteres (3-101-123456), ' +
    `DIMEX 11 o 12 dígitos; NITE (04) y extranjeros (05, 06) se indican con ${field} / ` +
    'fits no type: física 9 digits (1-0234-0567), jurídica 10 characters (3-101-123456), ' +
    `DIMEX 11 or 12 digits; give ${field} for a NITE (04) or a foreigner (05, 06)`
  );
}
