// How the representación gráfica writes figures and dates: Costa Rican conventions (CLDR es-CR,
// the same as `Intl.NumberFormat('es-CR')`): thousands grouped with a no-break space, a decimal
// comma, amounts with 2 decimals rounded half-up from the document's exact decimals (the XML
// keeps 5), dates and times in Costa Rica time (UTC−06:00, no daylight saving).
// Decimal strings are formatted as strings, never through a float.
import { Decimal } from 'decimal.js';
import type { CodigoMoneda } from '../domain/codes.ts';
import type { IdentificationType } from '../domain/identification.ts';
import { PROVINCIAS } from '../domain/territorial-division.ts';

/** The group separator es-CR uses (U+00A0, so a figure never breaks across lines). */
const GROUP = '\u00a0';

function group(intPart: string): string {
  return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, GROUP);
}

/** `"1234567.891"` → `"1 234 567,89"` (fixed decimals, half-up). */
export function formatNumber(value: string | number, decimals = 2): string {
  const fixed = new Decimal(value).toFixed(decimals, Decimal.ROUND_HALF_UP);
  const negative = fixed.startsWith('-');
  const [i, f] = (negative ? fixed.slice(1) : fixed).split('.');
  return `${negative ? '-' : ''}${group(i!)}${f ? `,${f}` : ''}`;
}

/** A quantity with its own decimals only (`"2.000"` → `"2"`, `"1.500"` → `"1,5"`). */
export function formatQuantity(value: string): string {
  const d = new Decimal(value);
  const places = Math.min(3, d.decimalPlaces());
  return formatNumber(value, places);
}

/** A rate in percent (`"13.00"` → `"13 %"`, `"0.50"` → `"0,5 %"`). */
export function formatRate(value: string): string {
  return `${formatQuantity(value)}\u00a0%`;
}

/** Colones with their sign (`₡1 234,50`); other currencies with their ISO code (`USD 1 234,50`). */
export function formatMoney(value: string, currency: CodigoMoneda | string): string {
  if (currency === 'CRC') return `₡${formatNumber(value)}`;
  return `${currency}\u00a0${formatNumber(value)}`;
}

const CR_OFFSET_MS = -6 * 3600_000;

/** `dd/mm/aaaa hh:mm` in Costa Rica time. */
export function formatDateTime(d: Date): string {
  const cr = new Date(d.getTime() + CR_OFFSET_MS);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(cr.getUTCDate())}/${p(cr.getUTCMonth() + 1)}/${cr.getUTCFullYear()} ${p(cr.getUTCHours())}:${p(cr.getUTCMinutes())}`;
}

/** `dd/mm/aaaa` in Costa Rica time. */
export function formatDate(d: Date): string {
  return formatDateTime(d).slice(0, 10);
}

const ID_TYPES: Record<IdentificationType, string> = {
  '01': 'Cédula física',
  '02': 'Cédula jurídica',
  '03': 'DIMEX',
  '04': 'NITE',
  '05': 'Extranjero no domiciliado',
  '06': 'No contribuyente',
};

export function identificationText(type: IdentificationType, number: string): string {
  return `${ID_TYPES[type] ?? 'Identificación'} ${number}`;
}

export function locationText(u: {
  provincia: string;
  canton: string;
  distrito: string;
  barrio?: string;
  otrasSenas: string;
}): string {
  const provincia = PROVINCIAS[u.provincia as keyof typeof PROVINCIAS] ?? u.provincia;
  const parts = [`${provincia}, cantón ${u.canton}, distrito ${u.distrito}`];
  if (u.barrio) parts.push(u.barrio);
  parts.push(u.otrasSenas);
  return parts.join('. ');
}
