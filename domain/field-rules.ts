// The rules a field must meet to be written into a v4.4 comprobante, taken from the official XSD's
// facets (FacturaElectronica_V4.4.xsd, 2026 set) and from Hacienda's catalogues the service holds.
// One place, used by every way in: the API's create routes, batch items and the command-line tool
// all check their input here before anything is recorded or numbered, so a request that could not
// become a valid document is refused with the field and the rule, never a consecutivo spent.
//
// Lengths are XSD lengths: characters (code points), not UTF-16 units or bytes. The service trims
// names and descriptions before storing them, so the minimum is counted on the trimmed text.
import type { FieldError } from './errors.ts';
import { PROVINCIAS, unknownLocationPart, type LocationCodes } from './territorial-division.ts';

/** Characters XML 1.0 cannot carry at all (C0 controls but tab/LF/CR, unpaired surrogates, U+FFFE/F). */
const NOT_XML_CHAR =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface TextFacet {
  /** The XSD element the value becomes. */
  element: string;
  min: number;
  max: number;
}

/** xs:string facets of the elements the API's text fields become. */
export const TEXT_FACETS = {
  detalle: { element: 'Detalle', min: 3, max: 200 },
  condicionVentaOtros: { element: 'CondicionVentaOtros', min: 5, max: 100 },
  medioPagoOtros: { element: 'MedioPagoOtros', min: 3, max: 100 },
  codigoDescuentoOtro: { element: 'CodigoDescuentoOTRO', min: 5, max: 100 },
  naturalezaDescuento: { element: 'NaturalezaDescuento', min: 3, max: 80 },
  nombreReceptor: { element: 'Receptor/Nombre', min: 3, max: 100 },
  nombreEmisor: { element: 'Emisor/Nombre', min: 5, max: 100 },
  nombreComercial: { element: 'NombreComercial', min: 3, max: 80 },
  barrio: { element: 'Barrio', min: 5, max: 50 },
  otrasSenas: { element: 'OtrasSenas', min: 5, max: 250 },
  otrasSenasExtranjero: { element: 'OtrasSenasExtranjero', min: 5, max: 300 },
  correo: { element: 'CorreoElectronico', min: 3, max: 160 },
  codigoComercial: { element: 'CodigoComercial/Codigo', min: 1, max: 20 },
} as const satisfies Record<string, TextFacet>;

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * Checks one text field against its element's facets. `undefined`/`null` pass unless required.
 * Returns the trimmed text to store, or null when the field is absent or wrong (an error added).
 */
export function checkText(
  errors: FieldError[],
  path: string,
  value: unknown,
  facet: TextFacet,
  required = false,
): string | null {
  if (value === undefined || value === null) {
    if (required)
      errors.push({
        path,
        code: 'required',
        message: `is required (${facet.min} to ${facet.max} characters)`,
      });
    return null;
  }
  if (typeof value !== 'string') {
    errors.push({ path, code: 'invalid_type', message: 'must be a string' });
    return null;
  }
  const bad = NOT_XML_CHAR.exec(value);
  if (bad) {
    const cp = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    errors.push({
      path,
      code: 'invalid_character',
      message: `contains U+${cp}, a character an XML document cannot carry (${facet.element})`,
    });
    return null;
  }
  const trimmed = value.trim();
  const n = codePoints(trimmed);
  if (n < facet.min) {
    errors.push({
      path,
      code: 'too_short',
      message: `must have at least ${facet.min} characters besides surrounding spaces (${facet.element}), got ${n}`,
    });
    return null;
  }
  if (n > facet.max) {
    errors.push({
      path,
      code: 'too_long',
      message: `must have at most ${facet.max} characters (${facet.element}), got ${n}`,
    });
    return null;
  }
  return trimmed;
}

/**
 * A decimal within xs:decimal's totalDigits/fractionDigits, as text. Numbers are accepted when
 * JavaScript writes them in plain notation; the message names what is wrong: the size, the
 * decimals, or the form.
 */
export function checkDecimal(
  errors: FieldError[],
  path: string,
  value: unknown,
  rule: { intDigits: number; fractionDigits: number; positive: boolean; code: string; what: string },
): string | null {
  let text: string | null = null;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  const fail = (code: string, message: string) => {
    errors.push({ path, code, message });
    return null;
  };
  if (text === null) return fail(rule.code, `${rule.what} must be a decimal number or string`);
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) {
    const sci = /^[+-]?\d+(\.\d+)?e[+-]?\d+$/i.exec(text);
    if (sci && Number(text) >= 10 ** rule.intDigits)
      return fail(
        'out_of_range',
        `${rule.what} is too large: at most ${rule.intDigits} integer digits, got ${text}`,
      );
    return fail(
      rule.code,
      `${rule.what} must be a plain unsigned decimal with up to ${rule.intDigits} integer digits and ${rule.fractionDigits} decimals, got "${text.slice(0, 40)}"`,
    );
  }
  const intPart = m[1]!.replace(/^0+(?=\d)/, '');
  if (intPart.length > rule.intDigits)
    return fail(
      'out_of_range',
      `${rule.what} is too large: at most ${rule.intDigits} integer digits, got ${intPart.length}`,
    );
  if ((m[2]?.length ?? 0) > rule.fractionDigits)
    return fail(rule.code, `${rule.what} takes at most ${rule.fractionDigits} decimals, got ${m[2]!.length}`);
  if (rule.positive && !/[1-9]/.test(text))
    return fail('out_of_range', `${rule.what} must be greater than 0`);
  return m[2] === undefined ? intPart : `${intPart}.${m[2]}`;
}

/** Provincia, cantón and distrito in Costa Rica's territorial division (Hacienda -37/-38). */
export function checkLocation(errors: FieldError[], base: string, loc: Partial<LocationCodes>): boolean {
  const codes = {
    provincia: String(loc.provincia ?? ''),
    canton: String(loc.canton ?? ''),
    distrito: String(loc.distrito ?? ''),
  };
  const bad = unknownLocationPart(codes);
  if (!bad) return true;
  const where =
    bad === 'provincia'
      ? 'must be a provincia code 1-7'
      : bad === 'canton'
        ? `is not a cantón of ${PROVINCIAS[codes.provincia as keyof typeof PROVINCIAS]} (provincia ${codes.provincia})`
        : `is not a distrito of cantón ${codes.canton} in provincia ${codes.provincia}`;
  errors.push({ path: `${base}/${bad}`, code: 'unknown_location', message: `${codes[bad]} ${where}` });
  return false;
}

/** Telefono: CodigoPais up to 3 digits, NumTelefono an integer from 100 (8 to 20 digits here). */
export function checkPhone(
  errors: FieldError[],
  path: string,
  number: unknown,
  countryPath: string,
  country: unknown,
): void {
  if (number !== undefined && number !== null) {
    if (typeof number !== 'string' || !/^\d{8,20}$/.test(number))
      errors.push({ path, code: 'invalid_format', message: 'must be 8 to 20 digits' });
    else if (Number(number) < 100)
      errors.push({ path, code: 'out_of_range', message: 'NumTelefono must be at least 100' });
  }
  if (
    country !== undefined &&
    country !== null &&
    (typeof country !== 'string' || !/^\d{1,3}$/.test(country))
  )
    errors.push({ path: countryPath, code: 'invalid_format', message: 'must be 1 to 3 digits' });
}

/** CodigoActividad: 6 digits (Hacienda -41). */
export function checkActivityCode(errors: FieldError[], path: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || !/^\d{6}$/.test(value))
    errors.push({ path, code: 'invalid_format', message: 'must be a 6-digit economic activity code' });
}
