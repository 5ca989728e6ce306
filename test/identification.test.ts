import { describe, expect, it } from 'vitest';
import {
  identificationCandidates,
  identificationSearchNumbers,
  normalizeIdentification,
  resolveIdentification,
} from '../domain/identification.ts';
import type { FieldError } from '../domain/errors.ts';
import { parseOtherCharges } from '../domain/invoice-request-fields.ts';
import { parsePurchaseFields } from '../domain/purchase-request.ts';
import { companyInputFromOptions } from '../cli/commands/company.ts';

describe('Nota 4: the type read from a number only where one type alone has its shape', () => {
  const table: [raw: string, type: string, number: string][] = [
    ['102340567', '01', '102340567'],
    ['1-0234-0567', '01', '102340567'],
    ['1 0234 0567', '01', '102340567'],
    ['1\u00a00234\u00a00567', '01', '102340567'],
    ['1\u20110234\u20130567', '01', '102340567'],
    ['9-9999-9999', '01', '999999999'],
    ['3101ABC123', '02', '3101ABC123'],
    ['3-101-abc123', '02', '3101ABC123'],
    ['0ABCDEFGH1', '02', '0ABCDEFGH1'],
    ['15520012345', '03', '15520012345'],
    ['155200123456', '03', '155200123456'],
  ];
  it.each(table)('%s → %s %s', (raw, type, number) => {
    expect(resolveIdentification(raw)).toEqual({ ok: true, type, number });
  });

  it.each([
    ['3101123456', '3101123456'],
    ['3-101-123456', '3101123456'],
    ['3.101.123456', '3101123456'],
    ['4000042147', '4000042147'],
    ['0012345678', '0012345678'],
  ])('%s (ten digits) is a jurídica or a NITE: refused, naming both', (raw, number) => {
    const r = resolveIdentification(raw);
    expect(r).toEqual({
      ok: false,
      code: 'ambiguous_identification',
      number,
      candidates: ['02', '04'],
      message:
        `${number} puede ser cédula jurídica (02) o NITE (04): indique identification_type / ` +
        `${number} may be a cédula jurídica (02) or a NITE (04): give identification_type`,
    });
  });

  it('the ambiguity message names the field the caller reads the type from', () => {
    const r = resolveIdentification('3101123456', undefined, { typeField: 'id_type' });
    expect(r.ok === false && r.message).toContain('indique id_type');
    expect(r.ok === false && r.message).toContain('give id_type');
  });

  it.each([
    '012345678',
    '0-1234-5678',
    '12345678',
    '1234567890123',
    '0155200123456',
    'ABC',
    '',
    '1-0234-056X',
  ])('%s fits no type: invalid_identification', (raw) => {
    expect(resolveIdentification(raw)).toMatchObject({ ok: false, code: 'invalid_identification' });
  });

  it('0-1234-5678 is told why: a física starts with its province, and 8 digits follow the 0', () => {
    const r = resolveIdentification('0-1234-5678');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(
      /^una cédula física tiene 9 dígitos y empieza con la provincia \(1-9\), no con 0/,
    );
    expect(r.message).toContain('without the 0 only 8 digits are left');
    expect(r.message).not.toContain('use 9 digits');
  });

  it('a number that fits no type lists the shapes, Spanish first', () => {
    const r = resolveIdentification('12345');
    expect(r.ok === false && r.message).toMatch(
      /^no corresponde a ningún tipo: física 9 dígitos .* \/ fits no type/,
    );
  });
});

describe('a física written with a leading zero', () => {
  it.each([
    ['0104560789', '104560789'],
    ['01-0456-0789', '104560789'],
    ['01 0456 0789', '104560789'],
    ['0-1-0456-0789', '104560789'],
    ['09-0999-0999', '909990999'],
  ])('%s is the física %s', (raw, number) => {
    expect(resolveIdentification(raw)).toEqual({ ok: true, type: '01', number });
    expect(resolveIdentification(raw, '01')).toEqual({ ok: true, type: '01', number });
  });

  it('with 02 or 04 given, the ten digits are kept as written', () => {
    expect(resolveIdentification('0104560789', '04')).toEqual({ ok: true, type: '04', number: '0104560789' });
    expect(resolveIdentification('01-0456-0789', '02')).toEqual({
      ok: true,
      type: '02',
      number: '0104560789',
    });
  });

  it('only one zero, only before a whole física: 00-… and 0 + 8 digits are not físicas', () => {
    expect(resolveIdentification('00104560789')).toMatchObject({ ok: false, code: 'invalid_identification' });
    expect(resolveIdentification('012345678', '01')).toMatchObject({
      ok: false,
      code: 'identification_type_mismatch',
    });
  });

  it('a search finds the física and a NITE kept with its zero', () => {
    expect(identificationSearchNumbers('01-0456-0789')).toEqual(['0104560789', '104560789']);
    expect(identificationSearchNumbers('1-0456-0789')).toEqual(['104560789']);
    expect(identificationSearchNumbers('3-101-ab1234')).toEqual(['3101AB1234']);
  });
});

describe('candidates and normalisation', () => {
  it('names every type a shape may be', () => {
    expect(identificationCandidates('102340567')).toEqual(['01']);
    expect(identificationCandidates('3101123456')).toEqual(['02', '04']);
    expect(identificationCandidates('3101AB1234')).toEqual(['02']);
    expect(identificationCandidates('155200123456')).toEqual(['03']);
    expect(identificationCandidates('P12345678')).toEqual([]);
  });

  it('removes spaces, dots and dashes and upper-cases letters', () => {
    expect(normalizeIdentification(' 3-101.ab 1234 ')).toBe('3101AB1234');
  });
});

describe('an explicit type', () => {
  it('is used as given, and the number must fit it', () => {
    expect(resolveIdentification('3101123456', '02')).toEqual({ ok: true, type: '02', number: '3101123456' });
    expect(resolveIdentification('3101123456', '04')).toEqual({ ok: true, type: '04', number: '3101123456' });
    expect(resolveIdentification('155200123456', '03')).toMatchObject({ ok: true, type: '03' });
    expect(resolveIdentification('102340567', '02')).toEqual({
      ok: false,
      code: 'identification_type_mismatch',
      message:
        'el tipo 02 (Cédula Jurídica) requiere 10 dígitos o letras / ' +
        'type 02 (Cédula Jurídica) requires 10 digits or letters',
    });
    expect(resolveIdentification('3101ABC123', '04')).toMatchObject({
      ok: false,
      code: 'identification_type_mismatch',
    });
    expect(resolveIdentification('P12345678', '05')).toEqual({ ok: true, type: '05', number: 'P12345678' });
    expect(resolveIdentification('X'.repeat(21), '06')).toMatchObject({ ok: false });
    expect(resolveIdentification('102340567', '07')).toMatchObject({
      ok: false,
      code: 'invalid_identification',
    });
  });
});

describe('every way in reads identifications the same way', () => {
  const place = { provincia: '1', canton: '01', distrito: '01', otras_senas: 'Frente al parque central' };

  it("a purchase's supplier: ten digits need identification_type; a física with a zero is the física", () => {
    const supplier = { name: 'Distribuidora Campos Limitada', location: place };
    const ambiguous = parsePurchaseFields(
      { supplier: { ...supplier, identification: '3-102-456789' } },
      '3101000001',
    );
    expect(ambiguous.supplier).toBeNull();
    expect(ambiguous.errors).toContainEqual({
      path: '/supplier/identification',
      code: 'ambiguous_identification',
      message: expect.stringMatching(
        /^3102456789 puede ser cédula jurídica \(02\) o NITE \(04\): indique identification_type \//,
      ),
    });
    const given = parsePurchaseFields(
      { supplier: { ...supplier, identification: '3-102-456789', identification_type: '04' } },
      '3101000001',
    );
    expect(given.supplier).toMatchObject({ idType: '04', idNumber: '3102456789' });
    const fisica = parsePurchaseFields(
      { supplier: { ...supplier, name: 'Juan Campos Mora', identification: '01-0987-0654' } },
      '3101000001',
    );
    expect(fisica.supplier).toMatchObject({ idType: '01', idNumber: '109870654' });
    const self = parsePurchaseFields(
      { supplier: { ...supplier, name: 'Juan Campos Mora', identification: '0109870654' } },
      '109870654',
    );
    expect(self.errors).toContainEqual(expect.objectContaining({ code: 'supplier_is_company' }));
  });

  it("an other charge's third party: ten digits need id_type", () => {
    const errors: FieldError[] = [];
    const charge = {
      code: '04',
      amount: '10',
      third_party: { id_number: '3101654321', name: 'Parqueo Central SA' },
    };
    parseOtherCharges(errors, '/other_charges', [charge]);
    expect(errors).toContainEqual({
      path: '/other_charges/0/third_party/id_number',
      code: 'ambiguous_identification',
      message: expect.stringContaining('puede ser cédula jurídica (02) o NITE (04): indique id_type'),
    });
    const ok: FieldError[] = [];
    const [typed] = parseOtherCharges(ok, '/other_charges', [
      { ...charge, third_party: { ...charge.third_party, id_type: '02' } },
    ]);
    expect(ok).toEqual([]);
    expect(typed!.thirdParty).toEqual({ idType: '02', idNumber: '3101654321', name: 'Parqueo Central SA' });
  });

  it('the command line: --cedula with ten digits needs --id-type', () => {
    const opts = { name: 'Empresa X', cedula: '3-101-666666', plan: 'business' };
    expect(() => companyInputFromOptions(opts)).toThrow(
      '--cedula: 3101666666 puede ser cédula jurídica (02) o NITE (04): indique --id-type',
    );
    expect(companyInputFromOptions({ ...opts, idType: '02' })).toMatchObject({
      idType: '02',
      idNumber: '3101666666',
    });
    expect(companyInputFromOptions({ ...opts, cedula: '01-0456-0789' })).toMatchObject({
      idType: '01',
      idNumber: '104560789',
    });
  });
});
