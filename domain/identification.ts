// Identification numbers (Hacienda "Nota 4"): normalisation, inference of the type from the
// number, and validation of an explicitly given type.
//
// Rules (v4.4, 2026 revision):
//   01 Cédula física   9 digits, no leading zero
//   02 Cédula jurídica 10 characters; since 2026 letters are allowed (Registro Nacional)
//   03 DIMEX           11 or 12 digits, no leading zero
//   04 NITE            10 digits
//   05 Extranjero no domiciliado, 06 No contribuyente: up to 20 characters, never inferred
// A plain 10-digit number is ambiguous between 02 and 04; it is inferred as 02 (by far the
// common case) and a NITE must be given with an explicit type.

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

/** Strips the separators people type: dashes, spaces and dots. */
export function normalizeIdentification(raw: string): string {
  return raw.replace(/[\s.-]/g, '');
}

const FORMATS: Record<IdentificationType, { test: (n: string) => boolean; rule: string }> = {
  '01': { test: (n) => /^[1-9]\d{8}$/.test(n), rule: '9 digits without a leading zero' },
  '02': {
    test: (n) => /^[0-9A-Za-z]{10}$/.test(n),
    rule: '10 digits or letters',
  },
  '03': { test: (n) => /^[1-9]\d{10,11}$/.test(n), rule: '11 or 12 digits without a leading zero' },
  '04': { test: (n) => /^\d{10}$/.test(n), rule: '10 digits' },
  '05': { test: (n) => /^[0-9A-Za-z]{1,20}$/.test(n), rule: 'up to 20 digits or letters' },
  '06': { test: (n) => /^[0-9A-Za-z]{1,20}$/.test(n), rule: 'up to 20 digits or letters' },
};

export function identificationRule(type: IdentificationType): string {
  return FORMATS[type].rule;
}

/** Infers the Nota 4 type from a normalised number, or null when no rule fits. */
export function inferIdentificationType(number: string): IdentificationType | null {
  if (/^[1-9]\d{8}$/.test(number)) return '01';
  if (/^[0-9A-Za-z]{10}$/.test(number)) return '02';
  if (/^[1-9]\d{10,11}$/.test(number)) return '03';
  return null;
}

export type IdentificationResult =
  | { ok: true; type: IdentificationType; number: string }
  | { ok: false; code: 'invalid_identification' | 'identification_type_mismatch'; message: string };

/**
 * Resolves a raw number and an optional explicit type into a normalised (type, number) pair.
 * An explicit type wins over inference but must still match its format.
 */
export function resolveIdentification(raw: string, explicitType?: string | null): IdentificationResult {
  const number = normalizeIdentification(raw).toUpperCase();
  if (explicitType) {
    if (!isIdentificationType(explicitType)) {
      return {
        ok: false,
        code: 'invalid_identification',
        message: `unknown identification type ${explicitType}`,
      };
    }
    if (!FORMATS[explicitType].test(number)) {
      return {
        ok: false,
        code: 'identification_type_mismatch',
        message: `type ${explicitType} (${IDENTIFICATION_TYPES[explicitType]}) requires ${FORMATS[explicitType].rule}`,
      };
    }
    return { ok: true, type: explicitType, number };
  }
  const inferred = inferIdentificationType(number);
  if (!inferred) {
    return {
      ok: false,
      code: 'invalid_identification',
      message:
        'cannot infer the identification type: use 9 digits (física), 10 characters (jurídica), ' +
        '11-12 digits (DIMEX), or give identification_type explicitly',
    };
  }
  return { ok: true, type: inferred, number };
}
