import { describe, expect, it } from 'vitest';
import { inferIdentificationType, resolveIdentification } from '../domain/identification.ts';

describe('Nota 4: identification type inferred from the number', () => {
  const table: [raw: string, type: string | null, number?: string][] = [
    ['102340567', '01', '102340567'],
    ['1-0234-0567', '01', '102340567'],
    ['1 0234 0567', '01', '102340567'],
    ['9-9999-9999', '01', '999999999'],
    ['3101123456', '02', '3101123456'],
    ['3-101-123456', '02', '3101123456'],
    ['3.101.123456', '02', '3101123456'],
    ['4000042147', '02', '4000042147'],
    ['3101ABC123', '02', '3101ABC123'],
    ['3-101-abc123', '02', '3101ABC123'],
    ['15520012345', '03', '15520012345'],
    ['155200123456', '03', '155200123456'],
    ['012345678', null],
    ['12345678', null],
    ['1234567890123', null],
    ['0155200123456', null],
    ['ABC', null],
    ['', null],
    ['1-0234-056X', null],
  ];
  it.each(table)('%s → %s', (raw, type, number) => {
    const r = resolveIdentification(raw);
    if (type === null) {
      expect(r.ok).toBe(false);
    } else {
      expect(r).toEqual({ ok: true, type, number });
    }
  });

  it('infers jurídica (02) for a plain 10-digit number; NITE (04) must be explicit', () => {
    expect(inferIdentificationType('3101123456')).toBe('02');
    expect(resolveIdentification('3101123456', '04')).toEqual({ ok: true, type: '04', number: '3101123456' });
  });

  it('an explicit type wins but must match its format', () => {
    expect(resolveIdentification('155200123456', '03')).toMatchObject({ ok: true, type: '03' });
    expect(resolveIdentification('102340567', '02')).toMatchObject({
      ok: false,
      code: 'identification_type_mismatch',
    });
    expect(resolveIdentification('3101ABC123', '04')).toMatchObject({
      ok: false,
      code: 'identification_type_mismatch',
    });
    expect(resolveIdentification('012345678', '01')).toMatchObject({ ok: false });
    expect(resolveIdentification('P12345678', '05')).toEqual({ ok: true, type: '05', number: 'P12345678' });
    expect(resolveIdentification('X'.repeat(21), '06')).toMatchObject({ ok: false });
    expect(resolveIdentification('102340567', '07')).toMatchObject({
      ok: false,
      code: 'invalid_identification',
    });
  });
});
