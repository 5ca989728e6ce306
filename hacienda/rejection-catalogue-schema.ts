// Catalogue entries for schema (-1, "cvc-…") rejections, in Xerces' wording as Hacienda reports
// them: element order, missing elements, empty or malformed numbers, codes outside their list,
// patterns and lengths. Element names are pulled out of `{"namespace":Name}` fragments.
import { at, localNames, text } from './rejection-entry.ts';
import type { Entry } from './rejection-entry.ts';

/** The element a Xerces message names (`element '{"ns":TotalVenta}'` or `element 'TotalVenta'`). */
function elementOf(message: string): string | null {
  const m = /element '([^']*)'/.exec(message);
  return m ? (localNames(m[1] ?? '')[0] ?? null) : null;
}

export const SCHEMA_ENTRIES: Entry[] = [
  {
    id: 'xsd-order',
    match: text(
      /cvc-complex-type\.2\.4\.a: Invalid content was found starting with element '(.*?)'\. One of '(.*)' is expected/i,
    ),
    explain: (row, m) => {
      const found = localNames(m?.[1] ?? '')[0] ?? '?';
      const expected = localNames(m?.[2] ?? '').join(', ');
      const where = at(row);
      return {
        field: localNames(m?.[2] ?? '')[0] ?? found,
        readable: {
          es: `El elemento ${found} está fuera de orden o no se permite ahí; se esperaba ${expected}${where.es}.`,
          en: `Element ${found} is out of order or not allowed there; expected ${expected}${where.en}.`,
        },
        fix: {
          es: `Siga el orden exacto del esquema v4.4 e incluya ${expected} antes de ${found}.`,
          en: `Follow the exact v4.4 schema order and include ${expected} before ${found}.`,
        },
      };
    },
  },
  {
    id: 'xsd-incomplete',
    match: text(
      /cvc-complex-type\.2\.4\.b: The content of element '(.*?)' is not complete\. One of '(.*)' is expected/i,
    ),
    explain: (row, m) => {
      const parent = localNames(m?.[1] ?? '')[0] ?? '?';
      const expected = localNames(m?.[2] ?? '').join(', ');
      const where = at(row);
      return {
        field: expected.split(', ')[0] || parent,
        readable: {
          es: `Al elemento ${parent} le falta ${expected}${where.es}.`,
          en: `Element ${parent} is missing ${expected}${where.en}.`,
        },
        fix: { es: `Agregue ${expected} dentro de ${parent}.`, en: `Add ${expected} inside ${parent}.` },
      };
    },
  },
  {
    id: 'xsd-empty-decimal',
    match: text(/cvc-datatype-valid\.1\.2\.1: '(.*?)' is not a valid value for '(.*?)'/i),
    explain: (row, m) => {
      const value = m?.[1] ?? '';
      const type = m?.[2] ?? '';
      const where = at(row);
      const empty = value === '';
      return {
        readable: {
          es: empty
            ? `Un campo numérico (${type}) está vacío${where.es}.`
            : `El valor '${value}' no es un ${type} válido${where.es}.`,
          en: empty
            ? `A numeric field (${type}) is empty${where.en}.`
            : `The value '${value}' is not a valid ${type}${where.en}.`,
        },
        fix: {
          es: 'Omita los totales opcionales que no aplican en lugar de dejarlos vacíos, y use punto decimal sin separadores de miles.',
          en: 'Omit optional totals that do not apply instead of leaving them empty, and use a decimal point with no thousands separators.',
        },
      };
    },
  },
  {
    id: 'xsd-enumeration',
    match: text(
      /cvc-enumeration-valid: Value '(.*?)' is not facet-valid with respect to enumeration '\[(.*?)\]'/i,
    ),
    explain: (row, m) => {
      const where = at(row);
      const allowed = m?.[2] ?? '';
      return {
        readable: {
          es: `El código '${m?.[1] ?? ''}' no está en el catálogo permitido${where.es}.`,
          en: `The code '${m?.[1] ?? ''}' is not in the allowed list${where.en}.`,
        },
        fix: { es: `Use uno de: ${allowed}.`, en: `Use one of: ${allowed}.` },
      };
    },
  },
  {
    id: 'xsd-pattern',
    match: text(/cvc-pattern-valid: Value '(.*?)' is not facet-valid with respect to pattern '(.*?)'/i),
    explain: (row, m) => {
      const where = at(row);
      return {
        readable: {
          es: `El valor '${m?.[1] ?? ''}' no tiene el formato requerido (${m?.[2] ?? ''})${where.es}.`,
          en: `The value '${m?.[1] ?? ''}' does not have the required format (${m?.[2] ?? ''})${where.en}.`,
        },
        fix: {
          es: 'Corrija el formato del campo (por ejemplo, solo dígitos y la longitud exacta).',
          en: 'Fix the field format (for example digits only and the exact length).',
        },
      };
    },
  },
  {
    id: 'xsd-length',
    match: text(
      /cvc-(minLength|maxLength|length|totalDigits|fractionDigits|minInclusive|maxInclusive)-valid: (.*)/i,
    ),
    explain: (row, m) => {
      const where = at(row);
      return {
        readable: {
          es: `Un valor excede los límites del esquema (${m?.[1] ?? ''})${where.es}.`,
          en: `A value is outside the schema limits (${m?.[1] ?? ''})${where.en}.`,
        },
        fix: {
          es: 'Ajuste la longitud o la cantidad de dígitos/decimales del campo a lo que permite el esquema v4.4.',
          en: 'Adjust the field length or number of digits/decimals to what the v4.4 schema allows.',
        },
      };
    },
  },
  {
    id: 'xsd-other',
    match: (row) => row.code === -1 && /^cvc-/i.test(row.message),
    explain: (row) => {
      const where = at(row);
      const field = elementOf(row.message);
      return {
        field,
        readable: {
          es: `El XML no cumple el esquema oficial v4.4${field ? ` en ${field}` : ''}${where.es}: ${row.message}`,
          en: `The XML does not follow the official v4.4 schema${field ? ` in ${field}` : ''}${where.en}: ${row.message}`,
        },
        fix: {
          es: 'Valide el XML contra el XSD oficial antes de firmar y corrija el elemento indicado.',
          en: 'Validate the XML against the official XSD before signing and fix the element indicated.',
        },
      };
    },
  },
];
