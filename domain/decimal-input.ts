// Exact decimals for document totals: the Decimal clone every computation uses (half-up, enough
// digits that 13 integer + 8 fraction digits never lose one), Hacienda's limits on a document, and
// the parsing helpers that collect every problem of a request (Issues) so it is refused once.
import { Decimal } from 'decimal.js';
import { type FieldError } from './errors.ts';

// Half-up rounding, and enough precision that 13 integer + 8 fraction digits never lose a digit.
export const D = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -40,
  toExpPos: 40,
});
export type Dec = InstanceType<typeof D>;

export const ZERO = new D(0);
export const HUNDRED = new D(100);
/**
 * Every money figure the service writes has the same shape, and this is its one limit: Hacienda's
 * DecimalDineroType (v4.4 XSD: totalDigits 18, fractionDigits 5) and every amount column of the
 * database, `numeric(18,5)` (invoices.total and balance_due, journal_lines.debit and credit,
 * payments.amount_crc, clients.balance, …; db/migrations). A value that does not fit is refused
 * before a number is taken: Postgres would refuse it later with "numeric field overflow".
 */
export const AMOUNT_DIGITS = { total: 18, fraction: 5 } as const;
/** Largest amount of that shape: 13 integer digits, 5 decimals (9999999999999.99999). */
export const MAX_AMOUNT = new D(10)
  .pow(AMOUNT_DIGITS.total - AMOUNT_DIGITS.fraction)
  .minus(new D(10).pow(-AMOUNT_DIGITS.fraction));
/** Hacienda's limits: 1000 lines per document, 5 discounts per line, 15 other charges. */
export const MAX_LINES = 1000;
export const MAX_DISCOUNTS = 5;
export const MAX_OTHER_CHARGES = 15;

// ---------------------------------------------------------------------------------------------
// Parsing helpers (collect every problem, then throw once)

export class Issues {
  readonly list: FieldError[] = [];
  add(path: string, code: string, message: string): void {
    this.list.push({ path, code, message });
  }
}

export interface DecimalRule {
  maxInt: number;
  maxFrac: number;
  /** 'positive': > 0; 'nonNegative': ≥ 0 */
  sign: 'positive' | 'nonNegative';
}

export const PATTERNS = new Map<string, RegExp>();
export function patternFor(maxInt: number, maxFrac: number): RegExp {
  const key = `${maxInt}.${maxFrac}`;
  let re = PATTERNS.get(key);
  if (!re) {
    re = new RegExp(`^\\d{1,${maxInt}}(\\.\\d{1,${maxFrac}})?$`);
    PATTERNS.set(key, re);
  }
  return re;
}

export function parseDecimal(issues: Issues, path: string, value: unknown, rule: DecimalRule): Dec | null {
  if (typeof value !== 'string') {
    issues.add(path, 'invalid_type', 'expected a decimal string such as "12.50"');
    return null;
  }
  if (!patternFor(rule.maxInt, rule.maxFrac).test(value)) {
    const m = /^(\d+)(?:\.(\d+))?$/.exec(value);
    if (m && (m[2]?.length ?? 0) > rule.maxFrac) {
      issues.add(path, 'too_many_decimals', `at most ${rule.maxFrac} decimals allowed, got "${value}"`);
    } else if (m) {
      issues.add(path, 'out_of_range', `at most ${rule.maxInt} integer digits allowed, got "${value}"`);
    } else {
      issues.add(path, 'invalid_decimal', `expected an unsigned decimal such as "12.50", got "${value}"`);
    }
    return null;
  }
  const d = new D(value);
  if (rule.sign === 'positive' && d.lte(0)) {
    issues.add(path, 'out_of_range', 'must be greater than zero');
    return null;
  }
  return d;
}

export function textLength(
  issues: Issues,
  path: string,
  value: unknown,
  min: number,
  max: number,
  required: boolean,
): string | null {
  if (value === undefined || value === null) {
    if (required) issues.add(path, 'required', `required (${min}-${max} characters)`);
    return null;
  }
  if (typeof value !== 'string') {
    issues.add(path, 'invalid_type', 'expected a string');
    return null;
  }
  const n = [...value].length;
  if (n < min || n > max) {
    issues.add(path, 'invalid_length', `expected ${min}-${max} characters, got ${n}`);
    return null;
  }
  return value;
}

/** `d` rounded half-up to 5 decimals; a value that already has at most 5 is returned as it is. */
export const r5 = (d: Dec): Dec => (d.decimalPlaces() <= 5 ? d : d.toDecimalPlaces(5, D.ROUND_HALF_UP));
/** A non-negative money amount with exactly 5 decimals, e.g. `"1234.50000"` (DecimalDineroType). */
export type Amount = string;

/** `d.toFixed(5)`: the amount with exactly 5 decimals, rounded half-up. */
export const fmt5 = (d: Dec): Amount => toFixedHalfUp(d, 5);
/** fmt5 of an optional figure (a summary bucket no line touched stays null). */
export function fmt5OrNull(d: Dec | null): Amount | null {
  return d === null ? null : fmt5(d);
}
/** `d.toFixed(2)` rounded half-up (rates, the API's `total`). */
export const fmt2 = (d: Dec): string => toFixedHalfUp(d, 2);

/** `d.toFixed(places, ROUND_HALF_UP)` for places 1..5, quicker when `d` needs no rounding. */
export function toFixedHalfUp(d: Dec, places: number): string {
  return padDecimals(d, places) ?? d.toFixed(places, D.ROUND_HALF_UP);
}

const ZEROS = '00000';

/**
 * `d.toFixed(places)` (places 1..5) for a value that already has at most `places` decimals, or
 * null for any other value. Every document formats dozens of amounts and nearly all of them are
 * already rounded to 5 decimals, so the rounding pass toFixed makes on a copy of each (about
 * three quarters of its cost) is skipped: the exact shortest text of the value (toString, the
 * same digits and sign rule as toFixed) is padded with zeros. `-0` is written `0.00000`, like
 * toFixed; NaN, infinities and exponent notation (toString beyond D's toExpPos / toExpNeg) are
 * left to toFixed.
 */
function padDecimals(d: Dec, places: number): string | null {
  const have = d.decimalPlaces();
  if (!(have <= places)) return null;
  const text = d.toString();
  if (text.includes('e')) return null;
  return have === 0 ? `${text}.${ZEROS.slice(0, places)}` : text + ZEROS.slice(0, places - have);
}

/**
 * Σ values (ZERO for none). The first value starts the sum rather than ZERO: one addition fewer
 * per sum, the same value (0 + x = x; the amounts summed here are never -0, the one case where
 * decimal.js would write the sign differently).
 */
export function sum(values: readonly Dec[]): Dec {
  if (values.length === 0) return ZERO;
  let acc = values[0]!;
  for (let k = 1; k < values.length; k++) acc = acc.plus(values[k]!);
  return acc;
}
