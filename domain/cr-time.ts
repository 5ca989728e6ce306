// Costa Rica civil time for document dates: FechaEmision (`YYYY-MM-DDTHH:mm:ss-06:00`) and the
// DDMMYY date inside the clave. Costa Rica is UTC-6 all year (no daylight saving since 1992), so
// a fixed offset is exact and needs no time-zone database.

/** Offset of Costa Rica from UTC in milliseconds (UTC-6, no DST). */
const CR_OFFSET_MS = -6 * 60 * 60 * 1000;

/** The offset suffix Hacienda expects in every xs:dateTime we write. */
export const CR_OFFSET = '-06:00';

/** Calendar fields of an instant as seen on a wall clock in Costa Rica. */
export interface CrDateParts {
  year: number;
  /** 1-12 */
  month: number;
  /** 1-31 */
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function assertValidDate(date: Date): void {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new RangeError('expected a valid Date');
  }
}

/** Wall-clock fields in Costa Rica for an instant (milliseconds are dropped). */
export function crDateParts(date: Date): CrDateParts {
  assertValidDate(date);
  const local = new Date(date.getTime() + CR_OFFSET_MS);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * `YYYY-MM-DDTHH:mm:ss-06:00` in Costa Rica local time, the form used for FechaEmision, the
 * reception API's `fecha` and XAdES SigningTime. Sub-second precision is truncated.
 */
export function formatCrDateTime(date: Date): string {
  const p = crDateParts(date);
  if (p.year < 1000 || p.year > 9999) throw new RangeError('year outside 1000..9999');
  return (
    `${p.year}-${pad2(p.month)}-${pad2(p.day)}T` +
    `${pad2(p.hour)}:${pad2(p.minute)}:${pad2(p.second)}${CR_OFFSET}`
  );
}

/** `DDMMYY` of the Costa Rica calendar day, as written in positions 4-9 of the clave. */
export function formatCrClaveDate(date: Date): string {
  const p = crDateParts(date);
  return `${pad2(p.day)}${pad2(p.month)}${pad2(p.year % 100)}`;
}

/** `YYYY-MM-DD`: the Costa Rica calendar day of an instant (the day of an exchange rate). */
export function formatCrDate(date: Date): string {
  return formatCrDateTime(date).slice(0, 10);
}
