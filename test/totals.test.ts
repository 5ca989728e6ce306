// Worked examples of the v4.4 line and summary arithmetic. Every expected figure was computed by
// hand (shown in the comments) and rounded half-up to 5 decimals per line value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { D, fmt2, fmt5, r5, sum, toFixedHalfUp } from '../domain/decimal-input.ts';
import { DomainValidationError } from '../domain/errors.ts';
import { invoicePostingFromTotals } from '../domain/chart-of-accounts.ts';
import {
  computeDocumentTotals,
  entryBound,
  returnedIvaShare,
  toColones,
  type LineInput,
  type TotalsOptions,
} from '../domain/totals.ts';

const CRC: TotalsOptions = { currency: 'CRC', exchangeRate: '1' };

function errorsOf(fn: () => unknown): { path: string; code: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainValidationError);
    return (err as DomainValidationError).errors.map(({ path, code }) => ({ path, code }));
  }
  throw new Error('expected a DomainValidationError');
}

describe('computeDocumentTotals: worked examples', () => {
  it('3 × 33.33333 at 13%', () => {
    const t = computeDocumentTotals(
      [{ quantity: '3', unitPrice: '33.33333', unit: 'Unid', ivaRateCode: '08' }],
      CRC,
    );
    const [line] = t.lines;
    // MontoTotal = 3 × 33.33333 = 99.99999
    expect(line?.montoTotal).toBe('99.99999');
    expect(line?.subTotal).toBe('99.99999');
    expect(line?.baseImponible).toBe('99.99999');
    // 99.99999 × 13% = 12.9999987 → 13.00000
    expect(line?.taxes).toEqual([
      { code: '01', ivaRateCode: '08', rate: '13.00', amount: '13.00000', exoneration: null },
    ]);
    expect(line?.impuestoNeto).toBe('13.00000');
    // 99.99999 + 13.00000
    expect(line?.montoTotalLinea).toBe('112.99999');
    expect(line?.quantity).toBe('3.000');
    expect(line?.kind).toBe('goods');
    expect(t.summary).toMatchObject({
      totalMercanciasGravadas: '99.99999',
      totalServGravados: null,
      totalGravado: '99.99999',
      totalExento: null,
      totalVenta: '99.99999',
      totalDescuentos: null,
      totalVentaNeta: '99.99999',
      totalDesgloseImpuesto: [{ code: '01', ivaRateCode: '08', amount: '13.00000' }],
      totalImpuesto: '13.00000',
      totalOtrosCargos: null,
      totalComprobante: '112.99999',
    });
    // 112.99999 → 113.00
    expect(t.total).toBe('113.00');
  });

  it('stacked discounts: percentages apply to what the earlier discounts left', () => {
    const t = computeDocumentTotals(
      [
        {
          quantity: '10',
          unitPrice: '1250.50',
          unit: 'Unid',
          ivaRateCode: '08',
          discounts: [
            { percent: '10', code: '04' },
            { amount: '500', code: '99', codeOther: 'Cliente frecuente', nature: 'Fidelidad' },
            { percent: '2.5', code: '06' },
          ],
        },
      ],
      CRC,
    );
    const [line] = t.lines;
    // MontoTotal = 10 × 1250.50 = 12505.00000
    expect(line?.montoTotal).toBe('12505.00000');
    // 10% of 12505 = 1250.5 → left 11254.5; 500 → left 10754.5; 2.5% of 10754.5 = 268.8625
    expect(line?.discounts).toEqual([
      { amount: '1250.50000', code: '04', codeOther: null, nature: 'Descuento por volumen' },
      { amount: '500.00000', code: '99', codeOther: 'Cliente frecuente', nature: 'Fidelidad' },
      { amount: '268.86250', code: '06', codeOther: null, nature: 'Descuento promocional' },
    ]);
    // 12505 − 1250.5 − 500 − 268.8625 = 10485.6375
    expect(line?.discountTotal).toBe('2019.36250');
    expect(line?.subTotal).toBe('10485.63750');
    // 10485.6375 × 13% = 1363.132875 → half-up → 1363.13288
    expect(line?.taxes[0]?.amount).toBe('1363.13288');
    // 10485.63750 + 1363.13288
    expect(line?.montoTotalLinea).toBe('11848.77038');
    expect(t.summary.totalVenta).toBe('12505.00000');
    expect(t.summary.totalDescuentos).toBe('2019.36250');
    expect(t.summary.totalVentaNeta).toBe('10485.63750');
    expect(t.summary.totalComprobante).toBe('11848.77038');
    expect(t.total).toBe('11848.77');
  });

  it('rounds half-up at the 5th decimal of a line and at the 2nd of the API total', () => {
    const t = computeDocumentTotals(
      [
        // 10.00025 × 2% = 0.200005 → 0.20001 (half-even would give 0.20000)
        { quantity: '1', unitPrice: '10.00025', unit: 'Unid', ivaRateCode: '03' },
        // exempt 100.125: no tax
        { quantity: '1', unitPrice: '100.125', unit: 'Unid', ivaRateCode: '10' },
      ],
      CRC,
    );
    expect(t.lines[0]?.taxes[0]?.amount).toBe('0.20001');
    expect(t.lines[0]?.montoTotalLinea).toBe('10.20026');
    // 10.20026 + 100.12500 = 110.32526 → 110.33
    expect(t.summary.totalComprobante).toBe('110.32526');
    expect(t.total).toBe('110.33');
    const single = computeDocumentTotals(
      [{ quantity: '1', unitPrice: '100.125', unit: 'Unid', ivaRateCode: '10' }],
      CRC,
    );
    // 100.125 → 100.13 (half-even would give 100.12)
    expect(single.total).toBe('100.13');
  });

  it('mixed goods and services, gravado / exento / no sujeto', () => {
    const lines: LineInput[] = [
      { quantity: '2', unitPrice: '15000', unit: 'Sp', ivaRateCode: '08' }, // services gravado 30000, IVA 3900
      { quantity: '1.5', unitPrice: '2000', unit: 'Kg', ivaRateCode: '10' }, // goods exento 3000
      { quantity: '1', unitPrice: '5000', unit: 'Os', ivaRateCode: '11' }, // services no sujeto 5000
      { quantity: '4', unitPrice: '250', unit: 'Unid', ivaRateCode: '02' }, // goods gravado 1000, IVA 1% = 10
      { quantity: '3', unitPrice: '100', unit: 'h', ivaRateCode: '01' }, // services gravado at 0%: 300
    ];
    const t = computeDocumentTotals(lines, CRC);
    expect(t.lines.map((l) => [l.kind, l.treatment])).toEqual([
      ['services', 'gravado'],
      ['goods', 'exento'],
      ['services', 'noSujeto'],
      ['goods', 'gravado'],
      ['services', 'gravado'],
    ]);
    expect(t.summary).toMatchObject({
      totalServGravados: '30300.00000', // 30000 + 300
      totalServExentos: null,
      totalServExonerado: null,
      totalServNoSujeto: '5000.00000',
      totalMercanciasGravadas: '1000.00000',
      totalMercanciasExentas: '3000.00000',
      totalMercExonerada: null,
      totalMercNoSujeta: null,
      totalGravado: '31300.00000', // 30300 + 1000
      totalExento: '3000.00000',
      totalExonerado: null,
      totalNoSujeto: '5000.00000',
      totalVenta: '39300.00000', // 31300 + 3000 + 5000
      totalVentaNeta: '39300.00000',
      totalImpuesto: '3910.00000', // 3900 + 10
      totalComprobante: '43210.00000', // 39300 + 3910
    });
    // One row per (Codigo, CodigoTarifaIVA), in order of first appearance, zero rows included.
    expect(t.summary.totalDesgloseImpuesto).toEqual([
      { code: '01', ivaRateCode: '08', amount: '3900.00000' },
      { code: '01', ivaRateCode: '10', amount: '0.00000' },
      { code: '01', ivaRateCode: '11', amount: '0.00000' },
      { code: '01', ivaRateCode: '02', amount: '10.00000' },
      { code: '01', ivaRateCode: '01', amount: '0.00000' },
    ]);
    expect(t.total).toBe('43210.00');
  });

  it('an explicit kind overrides the unit', () => {
    const t = computeDocumentTotals(
      [{ quantity: '1', unitPrice: '10', unit: 'Unid', kind: 'services', ivaRateCode: '08' }],
      CRC,
    );
    expect(t.summary.totalServGravados).toBe('10.00000');
    expect(t.summary.totalMercanciasGravadas).toBeNull();
  });

  it('USD with an exchange rate: amounts stay in dollars, TipoCambio is carried', () => {
    const t = computeDocumentTotals(
      [
        // 1.333 × 19.99 = 26.64667; 13% → 3.4640671 → 3.46407; line 30.11074
        { quantity: '1.333', unitPrice: '19.99', unit: 'Unid', ivaRateCode: '08' },
        // 0.5 × 120 = 60; 4% → 2.4; line 62.4
        { quantity: '0.5', unitPrice: '120', unit: 'Sp', ivaRateCode: '04' },
      ],
      { currency: 'USD', exchangeRate: '503.25' },
    );
    expect(t.lines.map((l) => [l.montoTotal, l.taxes[0]?.amount, l.montoTotalLinea])).toEqual([
      ['26.64667', '3.46407', '30.11074'],
      ['60.00000', '2.40000', '62.40000'],
    ]);
    expect(t.summary).toMatchObject({
      currency: 'USD',
      exchangeRate: '503.25000',
      totalServGravados: '60.00000',
      totalMercanciasGravadas: '26.64667',
      totalGravado: '86.64667',
      totalImpuesto: '5.86407', // 3.46407 + 2.4
      totalComprobante: '92.51074', // 86.64667 + 5.86407
    });
    expect(t.total).toBe('92.51');
    // 92.51074 × 503.25 = 46255.37 + 300.659905 = 46556.029905 → half-up → 46556.02991
    expect(toColones(t.summary.totalComprobante, t.summary.exchangeRate)).toBe('46556.02991');
  });

  it('a partial exoneration splits the sale between gravado and exonerado', () => {
    const exoneration = {
      docType: '03',
      number: 'AL-00012-2026',
      institution: '01',
      issuedAt: new Date('2026-03-01T15:00:00Z'),
      rate: '5',
    } as const;
    const t = computeDocumentTotals(
      [{ quantity: '1', unitPrice: '1000', unit: 'Unid', ivaRateCode: '08', exoneration }],
      CRC,
    );
    const [line] = t.lines;
    // Monto = 1000 × 13% = 130; MontoExoneracion = 1000 × 5% = 50; ImpuestoNeto = 80
    expect(line?.taxes[0]).toMatchObject({
      amount: '130.00000',
      exoneration: { rate: '5.00', amount: '50.00000' },
    });
    expect(line?.impuestoNeto).toBe('80.00000');
    expect(line?.montoTotalLinea).toBe('1080.00000');
    // Exonerated share 5/13 of 1000 = 384.615384… → 384.61538; gravado 615.38462
    expect(line?.split).toEqual({
      gravado: '615.38462',
      exento: null,
      exonerado: '384.61538',
      noSujeto: null,
    });
    expect(t.summary).toMatchObject({
      totalMercanciasGravadas: '615.38462',
      totalMercExonerada: '384.61538',
      totalGravado: '615.38462',
      totalExonerado: '384.61538',
      totalVenta: '1000.00000',
      totalDesgloseImpuesto: [{ code: '01', ivaRateCode: '08', amount: '80.00000' }],
      totalImpuesto: '80.00000',
      totalComprobante: '1080.00000',
    });
  });

  it('a full exoneration leaves nothing gravado', () => {
    const t = computeDocumentTotals(
      [
        {
          quantity: '2',
          unitPrice: '500',
          unit: 'Sp',
          ivaRateCode: '08',
          exoneration: {
            docType: '99',
            docTypeOther: 'Convenio especial',
            number: 'X-1',
            institution: '99',
            institutionOther: 'Municipalidad',
            issuedAt: new Date('2026-01-01T12:00:00Z'),
            rate: '13',
          },
        },
      ],
      CRC,
    );
    // 1000 × 13% = 130 exonerated in full; ImpuestoNeto 0
    expect(t.lines[0]?.impuestoNeto).toBe('0.00000');
    expect(t.summary.totalServGravados).toBeNull();
    expect(t.summary.totalServExonerado).toBe('1000.00000');
    expect(t.summary.totalGravado).toBeNull();
    expect(t.summary.totalComprobante).toBe('1000.00000');
  });

  it('other charges are added to TotalComprobante', () => {
    const t = computeDocumentTotals([{ quantity: '1', unitPrice: '1000', unit: 'Unid', ivaRateCode: '08' }], {
      ...CRC,
      otherCharges: [{ code: '06', detail: 'Impuesto de servicio', percent: '10', amount: '100' }],
    });
    // 1000 + 130 + 100
    expect(t.summary.totalOtrosCargos).toBe('100.00000');
    expect(t.summary.totalComprobante).toBe('1230.00000');
    expect(t.otherCharges).toEqual([
      {
        code: '06',
        codeOther: null,
        detail: 'Impuesto de servicio',
        percent: '10.00000',
        amount: '100.00000',
        thirdParty: null,
      },
    ]);
  });

  it('ISC is added to the IVA base; IVA 07 takes the stated base; IVA 08 its factor', () => {
    const t = computeDocumentTotals(
      [
        {
          quantity: '2',
          unitPrice: '1000',
          unit: 'Unid',
          ivaRateCode: '08',
          otherTaxes: [{ code: '02', rate: '30' }],
        },
        {
          quantity: '1',
          unitPrice: '1000',
          unit: 'Unid',
          ivaRateCode: '08',
          taxCode: '07',
          taxableBase: '400',
        },
        {
          quantity: '1',
          unitPrice: '1000',
          unit: 'Unid',
          ivaRateCode: '08',
          taxCode: '08',
          ivaFactor: '0.0123',
        },
      ],
      CRC,
    );
    // 2000 + 30 % ISC = 2600 base, 13 % of it 338; 13 % of 400 = 52; 1000 × 0.0123 = 12.3.
    expect(t.lines.map((l) => [l.baseImponible, l.taxes.map((x) => x.amount)])).toEqual([
      ['2600.00000', ['338.00000', '600.00000']],
      ['400.00000', ['52.00000']],
      ['1000.00000', ['12.30000']],
    ]);
    expect(t.lines[2]?.taxes[0]).toMatchObject({ code: '08', factor: '0.0123', ivaRateCode: '08' });
    expect(t.summary.totalImpuesto).toBe('1002.30000');
    expect(t.summary.totalComprobante).toBe('5002.30000');
  });

  it('a zero-price line is kept and lands in its bucket with zero', () => {
    const t = computeDocumentTotals(
      [{ quantity: '1', unitPrice: '0', unit: 'Unid', ivaRateCode: '08' }],
      CRC,
    );
    expect(t.summary.totalMercanciasGravadas).toBe('0.00000');
    expect(t.summary.totalComprobante).toBe('0.00000');
    expect(t.total).toBe('0.00');
  });
});

describe('computeDocumentTotals: invalid input', () => {
  const ok: LineInput = { quantity: '1', unitPrice: '10', unit: 'Unid', ivaRateCode: '08' };

  it.each([
    [{ quantity: '1.2345' }, '/lines/0/quantity', 'too_many_decimals'],
    [{ quantity: '0' }, '/lines/0/quantity', 'out_of_range'],
    [{ quantity: '-1' }, '/lines/0/quantity', 'invalid_decimal'],
    [{ quantity: '1e3' }, '/lines/0/quantity', 'invalid_decimal'],
    [{ quantity: '12345678901234' }, '/lines/0/quantity', 'out_of_range'],
    [{ unitPrice: '1.123456' }, '/lines/0/unitPrice', 'too_many_decimals'],
    [{ unitPrice: 10 }, '/lines/0/unitPrice', 'invalid_type'],
    [{ unit: 'kg' }, '/lines/0/unit', 'unknown_code'],
    [{ ivaRateCode: '12' }, '/lines/0/ivaRateCode', 'unknown_code'],
    [{ ivaRateCode: '05' }, '/lines/0/ivaRateCode', 'not_allowed'],
    [{ ivaRateCode: '06' }, '/lines/0/ivaRateCode', 'not_allowed'],
    [{ ivaRateCode: '07' }, '/lines/0/ivaRateCode', 'not_allowed'],
    [{ taxCode: '02' }, '/lines/0/taxCode', 'not_allowed'],
    [{ taxCode: '08' }, '/lines/0/ivaFactor', 'required'],
    [{ otherTaxes: [{ code: '06', unitQuantity: '20' }] }, '/lines/0/otherTaxes/0/taxPerUnit', 'required'],
    [{ otherTaxes: [{ code: '02', rate: '0' }] }, '/lines/0/otherTaxes/0/rate', 'out_of_range'],
    [
      { exoneration: undefined, taxCode: '07', taxableBase: '1.123456' },
      '/lines/0/taxableBase',
      'too_many_decimals',
    ],
    [{ discounts: [{ code: '04' }] }, '/lines/0/discounts/0', 'invalid_discount'],
    [{ discounts: [{ amount: '1', percent: '1', code: '04' }] }, '/lines/0/discounts/0', 'invalid_discount'],
    [{ discounts: [{ percent: '100.5', code: '04' }] }, '/lines/0/discounts/0/percent', 'out_of_range'],
    [{ discounts: [{ amount: '0', code: '04' }] }, '/lines/0/discounts/0/amount', 'out_of_range'],
    [{ discounts: [{ amount: '11', code: '04' }] }, '/lines/0/discounts/0', 'discount_exceeds_amount'],
    [{ discounts: [{ amount: '1', code: '10' }] }, '/lines/0/discounts/0/code', 'unknown_code'],
    [{ discounts: [{ amount: '1', code: '01' }] }, '/lines/0/discounts/0/code', 'unsupported'],
    [{ discounts: [{ amount: '1', code: '99' }] }, '/lines/0/discounts/0/codeOther', 'required'],
    [
      { discounts: [{ amount: '1', code: '04', nature: 'ab' }] },
      '/lines/0/discounts/0/nature',
      'invalid_length',
    ],
    [
      { discounts: Array.from({ length: 6 }, () => ({ amount: '1', code: '04' })) },
      '/lines/0/discounts',
      'too_many',
    ],
  ] as const)('rejects %o at %s (%s)', (override, path, code) => {
    expect(errorsOf(() => computeDocumentTotals([{ ...ok, ...override } as LineInput], CRC))).toContainEqual({
      path,
      code,
    });
  });

  it('allows the transitional rates in credit and debit notes', () => {
    const t = computeDocumentTotals([{ ...ok, ivaRateCode: '06' }], { ...CRC, docType: '03' });
    // 10 × 4%
    expect(t.lines[0]?.taxes[0]?.amount).toBe('0.40000');
  });

  it('checks exonerations', () => {
    const exoneration = {
      docType: '01',
      number: 'AB-1',
      institution: '01',
      issuedAt: new Date('2026-01-01T00:00:00Z'),
      rate: '13',
    } as const;
    expect(
      errorsOf(() => computeDocumentTotals([{ ...ok, ivaRateCode: '10', exoneration }], CRC)),
    ).toContainEqual({
      path: '/lines/0/exoneration',
      code: 'not_allowed',
    });
    expect(
      errorsOf(() => computeDocumentTotals([{ ...ok, ivaRateCode: '04', exoneration }], CRC)),
    ).toContainEqual({ path: '/lines/0/exoneration/rate', code: 'out_of_range' });
    expect(
      errorsOf(() =>
        computeDocumentTotals([{ ...ok, exoneration: { ...exoneration, docType: '99', number: 'AB' } }], CRC),
      ),
    ).toEqual([
      { path: '/lines/0/exoneration/docTypeOther', code: 'required' },
      { path: '/lines/0/exoneration/number', code: 'invalid_length' },
    ]);
  });

  it('checks the currency and the exchange rate', () => {
    expect(errorsOf(() => computeDocumentTotals([ok], { currency: 'CRC', exchangeRate: '500' }))).toEqual([
      { path: '/exchangeRate', code: 'out_of_range' },
    ]);
    expect(
      errorsOf(() => computeDocumentTotals([ok], { currency: 'XXX' as never, exchangeRate: '1' })),
    ).toEqual([{ path: '/currency', code: 'unknown_code' }]);
    expect(errorsOf(() => computeDocumentTotals([ok], { currency: 'USD', exchangeRate: '0' }))).toEqual([
      { path: '/exchangeRate', code: 'out_of_range' },
    ]);
  });

  it('refuses a document whose entry in colones would not fit numeric(18,5), at the exact limit', () => {
    // 9,999,999,999.99999 USD of an exempt line × 1000 = ₡9,999,999,999,999.99 (in centavos): the
    // largest entry the ledger's columns hold. A hundred-thousandth more on the rate does not fit.
    const line = { ...ok, unitPrice: '9999999999.99999', ivaRateCode: '10' as const };
    const fits = computeDocumentTotals([line], { currency: 'USD', exchangeRate: '1000' });
    expect(fits.summary.totalComprobante).toBe('9999999999.99999');
    expect(
      errorsOf(() => computeDocumentTotals([line], { currency: 'USD', exchangeRate: '1000.00001' })),
    ).toEqual([{ path: '/exchangeRate', code: 'amount_too_large' }]);
    // The same for a purchase (its expense and payable come from the same figures) and a note.
    for (const docType of ['08', '03'] as const)
      expect(
        errorsOf(() => computeDocumentTotals([line], { currency: 'USD', exchangeRate: '2000', docType })),
      ).toEqual([{ path: '/exchangeRate', code: 'amount_too_large' }]);
  });

  it('bounds every figure of the entry by 4 × T × TipoCambio, the quick check before the exact one', () => {
    // T (entryBound) lets a document far from the limit skip the exact entry. The claim behind it:
    // no debit, credit or sum of credits exceeds 4 × T × TipoCambio (plus rounding), whatever mix
    // of other taxes, assumed tax, IVA returned and third-party charges the document holds.
    const docs: [LineInput[], TotalsOptions][] = [
      [[ok], CRC],
      [[{ ...ok, discounts: [{ percent: '15', code: '07' }] }], { currency: 'USD', exchangeRate: '512.33' }],
      [
        [
          { ...ok, otherTaxes: [{ code: '02', rate: '30' }], assumedTax: '4' },
          {
            ...ok,
            unit: 'Sp',
            otherTaxes: [{ code: '06', unitQuantity: '20', taxPerUnit: '1.33' }],
            assumedTax: '25',
          },
          { ...ok, otherTaxes: [{ code: '99', codeOther: 'Patente', amount: '150' }] },
        ],
        CRC,
      ],
      [
        [
          { quantity: '1', unitPrice: '45000', unit: 'Sp', ivaRateCode: '04', ivaReturned: true },
          { ...ok, ivaRateCode: '10' },
        ],
        {
          ...CRC,
          otherCharges: [
            {
              code: '04',
              detail: 'Flete de tercero',
              amount: '2500',
              thirdParty: { idType: '02', idNumber: '3101654321', name: 'Tercero S.A.' },
            },
            { code: '06', detail: 'Impuesto de servicio', percent: '10' },
          ],
        },
      ],
    ];
    for (const [lines, options] of docs) {
      const t = computeDocumentTotals(lines, options);
      const limit = 4 * entryBound(t) * Number(options.exchangeRate) + 0.1;
      const entry = invoicePostingFromTotals(t, options.exchangeRate);
      expect(entry.length).toBeGreaterThan(1);
      const credits = entry.reduce((a, l) => a + Number(l.credit), 0);
      for (const figure of [credits, ...entry.flatMap((l) => [Number(l.debit), Number(l.credit)])])
        expect(figure).toBeLessThanOrEqual(limit);
    }
  });

  it('reports every problem of every line at once', () => {
    expect(
      errorsOf(() =>
        computeDocumentTotals(
          [ok, { ...ok, quantity: 'x' }, { ...ok, unit: 'nope' as never, ivaRateCode: '07' }],
          CRC,
        ),
      ),
    ).toEqual([
      { path: '/lines/1/quantity', code: 'invalid_decimal' },
      { path: '/lines/2/unit', code: 'unknown_code' },
      { path: '/lines/2/ivaRateCode', code: 'not_allowed' },
    ]);
  });

  it('needs at least one line and at most 1000', () => {
    expect(errorsOf(() => computeDocumentTotals([], CRC))).toEqual([{ path: '/lines', code: 'required' }]);
    expect(
      errorsOf(() =>
        computeDocumentTotals(
          Array.from({ length: 1001 }, () => ok),
          CRC,
        ),
      ),
    ).toEqual([{ path: '/lines', code: 'too_many' }]);
  });

  it('refuses amounts beyond 13 integer digits', () => {
    expect(
      errorsOf(() => computeDocumentTotals([{ ...ok, quantity: '1000', unitPrice: '9999999999999' }], CRC)),
    ).toEqual([{ path: '/lines/0', code: 'amount_too_large' }]);
  });
});

describe('computeDocumentTotals: IVA devuelto of a sale paid partly by card', () => {
  // A consultation at 4% (IVA 1800.00000, returned) and 2 × 900 at 13% (IVA 234.00000).
  const health: LineInput = {
    quantity: '1',
    unitPrice: '45000',
    unit: 'Sp',
    ivaRateCode: '04',
    ivaReturned: true,
  };
  const goods: LineInput = { quantity: '2', unitPrice: '900', unit: 'Unid', ivaRateCode: '08' };
  const paid = (...payments: TotalsOptions['payments'] & object) => ({ ...CRC, payments });

  it('returns card amount / venta neta × IVA of the returned lines, rounded half-up once', () => {
    const t = computeDocumentTotals(
      [health, goods],
      paid({ type: '02', amount: '12345.67891' }, { type: '01' }),
    );
    // 12345.67891 × 1800 / 45000 = 493.8271564 → 493.82716 (rounding the ratio first would give
    // 0.27435 × 1800 = 493.83000)
    expect(t.summary.totalIVADevuelto).toBe('493.82716');
    // 46800 + 2034 − 493.82716
    expect(t.summary.totalComprobante).toBe('48340.17284');
    // The card amount stays as given; the cash payment takes the rest: 48340.17284 − 12345.67891
    expect(t.summary.medioPago).toEqual([
      { type: '02', other: null, total: '12345.67891' },
      { type: '01', other: null, total: '35994.49393' },
    ]);
    const down = computeDocumentTotals(
      [health, goods],
      paid({ type: '02', amount: '12345.67881' }, { type: '01' }),
    );
    // 12345.67881 × 0.04 = 493.8271524 → 493.82715
    expect(down.summary.totalIVADevuelto).toBe('493.82715');
  });

  it('rounds an exact half up (not to even)', () => {
    // 1000 at 13% returned: 0.0005 × 130 / 1000 = 0.000065 → 0.00007
    const line: LineInput = {
      quantity: '1',
      unitPrice: '1000',
      unit: 'Sp',
      ivaRateCode: '08',
      ivaReturned: true,
    };
    const t = computeDocumentTotals([line], paid({ type: '02', amount: '0.0005' }, { type: '04' }));
    expect(t.summary.totalIVADevuelto).toBe('0.00007');
    expect(t.summary.totalComprobante).toBe('1129.99993');
  });

  it('returns the whole IVA when the card pays at least the venta neta of the returned lines, or all', () => {
    const t = computeDocumentTotals([health, goods], paid({ type: '02', amount: '46000' }, { type: '01' }));
    expect(t.summary.totalIVADevuelto).toBe('1800.00000');
    expect(t.summary.totalComprobante).toBe('47034.00000');
    const all = computeDocumentTotals([health, goods], paid({ type: '02' }));
    expect(all.summary.totalIVADevuelto).toBe('1800.00000');
  });

  it('keeps the card amount when the payments reach the 2-decimal total', () => {
    // Total 48340.17284 → 48340.17; the cash payment, not the card, absorbs the 0.00284.
    const t = computeDocumentTotals(
      [health, goods],
      paid({ type: '01', amount: '35994.49109' }, { type: '02', amount: '12345.67891' }),
    );
    expect(t.summary.medioPago).toEqual([
      { type: '01', other: null, total: '35994.49393' },
      { type: '02', other: null, total: '12345.67891' },
    ]);
  });

  it('a note returns the IVA in the share of the sale it references', () => {
    const sale = computeDocumentTotals(
      [health, goods],
      paid({ type: '02', amount: '12345.67891' }, { type: '01' }),
    );
    const of = returnedIvaShare(sale);
    expect(of).toEqual({ returned: '493.82716', iva: '1800.00000' });
    const whole = computeDocumentTotals([health, goods], { ...CRC, docType: '03', ivaReturnedOf: of });
    expect(whole.summary.totalIVADevuelto).toBe('493.82716');
    expect(whole.summary.totalComprobante).toBe(sale.summary.totalComprobante);
    // Half the consultation: IVA 900 × 493.82716 / 1800 = 246.91358
    const half = computeDocumentTotals([{ ...health, quantity: '0.5' }], {
      ...CRC,
      docType: '03',
      ivaReturnedOf: of,
    });
    expect(half.summary.totalIVADevuelto).toBe('246.91358');
    expect(returnedIvaShare(computeDocumentTotals([goods], CRC))).toBeUndefined();
  });

  it('refuses what cannot be computed', () => {
    // The card amount is the input of the formula: it must be stated.
    expect(
      errorsOf(() =>
        computeDocumentTotals([health, goods], paid({ type: '02' }, { type: '01', amount: '1000' })),
      ),
    ).toEqual([{ path: '/payments/0/amount', code: 'iva_returned_card_amount_required' }]);
    expect(errorsOf(() => computeDocumentTotals([health], paid({ type: '01' }, { type: '03' })))).toEqual([
      { path: '/payments', code: 'iva_returned_needs_card' },
    ]);
    expect(
      errorsOf(() =>
        computeDocumentTotals(
          [health, goods],
          paid({ type: '02', amount: '50000' }, { type: '01', amount: '1' }),
        ),
      ),
    ).toEqual([{ path: '/payments', code: 'payments_mismatch' }]);
  });
});

describe('decimal helpers: the quick paths equal decimal.js', () => {
  // fmt5, fmt2 and toFixedHalfUp skip toFixed's rounding pass for values that need none, and r5
  // returns such values as they are: on any value they must give exactly what decimal.js gives.
  const decimalText = fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.stringMatching(/^[0-9]{1,20}$/),
      fc.option(fc.stringMatching(/^[0-9]{1,9}$/)),
      fc.option(fc.integer({ min: -45, max: 45 })),
    )
    .map(
      ([sign, int, frac, exp]) =>
        `${sign}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `e${exp}`}`,
    );
  const special = [
    '0',
    '-0',
    '0.00000',
    '-0.000001',
    '0.00001',
    '9999999999999.99999',
    '1e40',
    '-1e-40',
    'NaN',
  ];

  it('fmt5, fmt2, toFixedHalfUp and r5 on generated and edge values', () => {
    const values = [...special, ...fc.sample(decimalText, { numRuns: 20_000, seed: 20261128 })];
    for (const text of values) {
      const d = new D(text);
      expect(fmt5(d), text).toBe(d.toFixed(5, D.ROUND_HALF_UP));
      expect(fmt2(d), text).toBe(d.toFixed(2, D.ROUND_HALF_UP));
      expect(toFixedHalfUp(d, 3), text).toBe(d.toFixed(3, D.ROUND_HALF_UP));
      const rounded = d.toDecimalPlaces(5, D.ROUND_HALF_UP);
      expect(r5(d).toString(), text).toBe(rounded.toString());
      expect(r5(d).isNegative(), text).toBe(rounded.isNegative());
    }
  });

  it('sum adds in order and is ZERO for no values', () => {
    expect(sum([]).toString()).toBe('0');
    expect(sum([new D('1.5')]).toFixed(5)).toBe('1.50000');
    expect(sum([new D('0.1'), new D('0.2'), new D('9999999999999.7')]).toString()).toBe('10000000000000');
  });
});
