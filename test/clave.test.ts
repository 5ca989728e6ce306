import { describe, expect, it } from 'vitest';
import {
  ClaveError,
  assertClaveMatches,
  buildClave,
  buildConsecutivo,
  parseClave,
  parseConsecutivo,
  randomSecurityCode,
  type ClaveErrorCode,
  type ClaveField,
} from '../domain/clave.ts';
import { crDateParts, formatCrClaveDate, formatCrDateTime } from '../domain/cr-time.ts';

function expectClaveError(fn: () => unknown, field: ClaveField, code: ClaveErrorCode): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ClaveError);
  expect((caught as ClaveError).field).toBe(field);
  expect((caught as ClaveError).code).toBe(code);
}

// NOTES §1 worked example: 21 Nov 2026, cédula jurídica 3101123456, FE 1 of branch 001 terminal 00001.
const EXAMPLE_CONSECUTIVO = '00100001010000000001';
const EXAMPLE_CLAVE = '506' + '211126' + '003101123456' + EXAMPLE_CONSECUTIVO + '1' + '00000001';

describe('cr-time', () => {
  it('writes Costa Rica local time with a fixed -06:00 offset', () => {
    // 16:00 UTC = 10:00 in Costa Rica.
    expect(formatCrDateTime(new Date('2026-11-21T16:00:00Z'))).toBe('2026-11-21T10:00:00-06:00');
    // Truncates milliseconds.
    expect(formatCrDateTime(new Date('2026-11-21T16:00:59.999Z'))).toBe('2026-11-21T10:00:59-06:00');
  });

  it('moves to the previous calendar day before 06:00 UTC', () => {
    // 02:30 UTC on 1 Jan 2027 is still 20:30 on 31 Dec 2026 in Costa Rica.
    const d = new Date('2027-01-01T02:30:00Z');
    expect(formatCrDateTime(d)).toBe('2026-12-31T20:30:00-06:00');
    expect(formatCrClaveDate(d)).toBe('311226');
    expect(crDateParts(d)).toEqual({ year: 2026, month: 12, day: 31, hour: 20, minute: 30, second: 0 });
  });

  it('has no daylight saving: the offset is the same in June', () => {
    expect(formatCrDateTime(new Date('2026-06-15T12:00:00Z'))).toBe('2026-06-15T06:00:00-06:00');
  });

  it('rejects an invalid Date', () => {
    expect(() => formatCrDateTime(new Date('nope'))).toThrow(RangeError);
  });
});

describe('consecutivo', () => {
  it('builds the 20 digits from branch, terminal, type and number', () => {
    expect(buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number: 1 })).toBe(
      EXAMPLE_CONSECUTIVO,
    );
    expect(buildConsecutivo({ branch: 2, terminal: 15, docType: '03', number: 9_999_999_999 })).toBe(
      '002' + '00015' + '03' + '9999999999',
    );
    expect(buildConsecutivo({ branch: '010', terminal: '00002', docType: '10', number: 12345n })).toBe(
      '010' + '00002' + '10' + '0000012345',
    );
    expect(buildConsecutivo({ branch: '001', terminal: '00001', docType: '04', number: '77' })).toBe(
      '001' + '00001' + '04' + '0000000077',
    );
  });

  it('round-trips through parseConsecutivo', () => {
    const parts = { branch: '123', terminal: '45678', docType: '02', number: 9_876_543_210 } as const;
    expect(parseConsecutivo(buildConsecutivo(parts))).toEqual(parts);
  });

  it.each([
    [{ branch: '01' }, 'branch', 'invalid_length'],
    [{ branch: '0001' }, 'branch', 'invalid_length'],
    [{ branch: '00a' }, 'branch', 'invalid_characters'],
    [{ branch: '000' }, 'branch', 'out_of_range'],
    [{ branch: 1000 }, 'branch', 'out_of_range'],
    [{ branch: 1.5 }, 'branch', 'invalid_type'],
    [{ terminal: '0001' }, 'terminal', 'invalid_length'],
    [{ terminal: '0000x' }, 'terminal', 'invalid_characters'],
    [{ terminal: 0 }, 'terminal', 'out_of_range'],
    [{ terminal: 100_000 }, 'terminal', 'out_of_range'],
    [{ docType: '11' }, 'docType', 'unknown_code'],
    [{ docType: 1 }, 'docType', 'invalid_type'],
    [{ number: 0 }, 'number', 'out_of_range'],
    [{ number: 10_000_000_000 }, 'number', 'out_of_range'],
    [{ number: -1 }, 'number', 'out_of_range'],
    [{ number: '12345678901' }, 'number', 'invalid_length'],
    [{ number: '' }, 'number', 'invalid_length'],
    [{ number: '12a' }, 'number', 'invalid_characters'],
    [{ number: Number.NaN }, 'number', 'invalid_type'],
  ] as const)('rejects %o as %s/%s', (override, field, code) => {
    const input = { branch: '001', terminal: '00001', docType: '01', number: 1, ...override };
    expectClaveError(() => buildConsecutivo(input as never), field, code);
  });

  it.each([
    ['0010000101000000000', 'consecutivo', 'invalid_length'],
    ['001000010100000000011', 'consecutivo', 'invalid_length'],
    ['0010000101000000000A', 'consecutivo', 'invalid_characters'],
    ['00000001010000000001', 'branch', 'out_of_range'],
    ['00100000010000000001', 'terminal', 'out_of_range'],
    ['00100001110000000001', 'docType', 'unknown_code'],
    ['00100001010000000000', 'number', 'out_of_range'],
  ] as const)('parseConsecutivo rejects %s as %s/%s', (value, field, code) => {
    expectClaveError(() => parseConsecutivo(value), field, code);
  });
});

describe('clave', () => {
  const base = {
    date: new Date('2026-11-21T16:00:00Z'),
    emisorId: '3101123456',
    consecutivo: EXAMPLE_CONSECUTIVO,
    situacion: '1',
    securityCode: '00000001',
  } as const;

  it('builds the NOTES worked example', () => {
    const clave = buildClave(base);
    expect(clave).toBe(EXAMPLE_CLAVE);
    expect(clave).toHaveLength(50);
  });

  it('uses the Costa Rica date, not the UTC date', () => {
    // 03:00 UTC on 22 Nov is 21:00 on 21 Nov in Costa Rica.
    expect(buildClave({ ...base, date: new Date('2026-11-22T03:00:00Z') }).slice(3, 9)).toBe('211126');
  });

  it('pads física (9), DIMEX (11/12) and alphanumeric jurídica ids to 12', () => {
    expect(buildClave({ ...base, emisorId: '102340567' }).slice(9, 21)).toBe('000102340567');
    expect(buildClave({ ...base, emisorId: '15520012345' }).slice(9, 21)).toBe('015520012345');
    expect(buildClave({ ...base, emisorId: '155200123456' }).slice(9, 21)).toBe('155200123456');
    expect(buildClave({ ...base, emisorId: '3A01123456' }).slice(9, 21)).toBe('003A01123456');
  });

  it('round-trips through parseClave', () => {
    const clave = buildClave({ ...base, emisorId: '3A01B23456', situacion: '3', securityCode: '98765432' });
    expect(parseClave(clave)).toEqual({
      country: '506',
      date: { day: 21, month: 11, year: 2026 },
      emisorIdPadded: '003A01B23456',
      emisorId: '3A01B23456',
      consecutivo: EXAMPLE_CONSECUTIVO,
      consecutivoParts: { branch: '001', terminal: '00001', docType: '01', number: 1 },
      situacion: '3',
      securityCode: '98765432',
    });
  });

  it.each([
    [{ date: new Date('x') }, 'date', 'invalid_date'],
    [{ emisorId: '' }, 'emisorId', 'invalid_length'],
    [{ emisorId: '1234567890123' }, 'emisorId', 'invalid_length'],
    [{ emisorId: '3-101-123456' }, 'emisorId', 'invalid_characters'],
    [{ emisorId: '3101 12345' }, 'emisorId', 'invalid_characters'],
    [{ emisorId: '0000' }, 'emisorId', 'out_of_range'],
    [{ emisorId: 3101123456 }, 'emisorId', 'invalid_type'],
    [{ consecutivo: '123' }, 'consecutivo', 'invalid_length'],
    [{ consecutivo: '00100001990000000001' }, 'docType', 'unknown_code'],
    [{ situacion: '4' }, 'situacion', 'unknown_code'],
    [{ situacion: 1 }, 'situacion', 'invalid_type'],
    [{ securityCode: '1234567' }, 'securityCode', 'invalid_length'],
    [{ securityCode: '123456789' }, 'securityCode', 'invalid_length'],
    [{ securityCode: '1234567a' }, 'securityCode', 'invalid_characters'],
    [{ securityCode: 12345678 }, 'securityCode', 'invalid_type'],
  ] as const)('buildClave rejects %o as %s/%s', (override, field, code) => {
    expectClaveError(() => buildClave({ ...base, ...override } as never), field, code);
  });

  const replace = (at: number, text: string): string =>
    EXAMPLE_CLAVE.slice(0, at) + text + EXAMPLE_CLAVE.slice(at + text.length);

  it.each([
    [EXAMPLE_CLAVE.slice(1), 'clave', 'invalid_length'],
    [EXAMPLE_CLAVE + '0', 'clave', 'invalid_length'],
    [replace(10, '-'), 'clave', 'invalid_characters'],
    [replace(0, '507'), 'country', 'unknown_code'],
    [replace(3, '3A'), 'date', 'invalid_characters'],
    [replace(3, '320126'), 'date', 'invalid_date'],
    [replace(3, '011326'), 'date', 'invalid_date'],
    [replace(3, '290227'), 'date', 'invalid_date'],
    [replace(3, '000126'), 'date', 'invalid_date'],
    [replace(9, '000000000000'), 'emisorId', 'out_of_range'],
    [replace(25, 'A'), 'consecutivo', 'invalid_characters'],
    [replace(21, '000'), 'branch', 'out_of_range'],
    [replace(24, '00000'), 'terminal', 'out_of_range'],
    [replace(29, '12'), 'docType', 'unknown_code'],
    [replace(31, '0000000000'), 'number', 'out_of_range'],
    [replace(41, '0'), 'situacion', 'unknown_code'],
    [replace(41, 'X'), 'situacion', 'unknown_code'],
    [replace(42, '0000000A'), 'securityCode', 'invalid_characters'],
  ] as const)('parseClave rejects %s as %s/%s', (clave, field, code) => {
    expectClaveError(() => parseClave(clave), field, code);
  });

  it('accepts 29 February in a leap year', () => {
    expect(parseClave(replace(3, '290228')).date).toEqual({ day: 29, month: 2, year: 2028 });
  });

  it('checks a clave against its document', () => {
    expect(
      assertClaveMatches(EXAMPLE_CLAVE, {
        consecutivo: EXAMPLE_CONSECUTIVO,
        emisorId: '3101123456',
        docType: '01',
      }).securityCode,
    ).toBe('00000001');
    expectClaveError(
      () => assertClaveMatches(EXAMPLE_CLAVE, { consecutivo: '00100001010000000002' }),
      'consecutivo',
      'mismatch',
    );
    expectClaveError(
      () => assertClaveMatches(EXAMPLE_CLAVE, { consecutivo: EXAMPLE_CONSECUTIVO, emisorId: '3101123457' }),
      'emisorId',
      'mismatch',
    );
    expectClaveError(
      () => assertClaveMatches(EXAMPLE_CLAVE, { consecutivo: EXAMPLE_CONSECUTIVO, docType: '03' }),
      'docType',
      'mismatch',
    );
  });
});

describe('randomSecurityCode', () => {
  it('returns 8 digits and varies', () => {
    const codes = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const code = randomSecurityCode();
      expect(code).toMatch(/^\d{8}$/);
      codes.add(code);
    }
    // 200 draws from 10^8 values: a repeat is possible but vanishingly unlikely.
    expect(codes.size).toBeGreaterThan(195);
  });
});
