// Generated invoices for property tests (document-property.test.ts, fast-signing.test.ts):
// 1-20 lines, quantities with 3 decimals, prices with 5, stacked discounts, every IVA rate code
// allowed in an FE, goods and services units, exonerations, other charges, CRC / USD / EUR, text
// with accents, emoji and the characters XML escapes; two emisores (jurídica and física).
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { cabysCatalogue } from '../../domain/cabys.ts';
import { buildClave, buildConsecutivo, randomSecurityCode } from '../../domain/clave.ts';
import {
  CONDICIONES_VENTA_CREDITO,
  CONDICIONES_VENTA_FE,
  IVA_RATES,
  IVA_RATE_CODES_FE,
  SERVICE_UNITS,
  UNIDADES_MEDIDA,
  type CodigoDescuento,
  type UnidadMedida,
} from '../../domain/codes.ts';
import {
  computeDocumentTotals,
  type DiscountInput,
  type DocumentTotals,
  type OtherChargeInput,
} from '../../domain/totals.ts';
import type { DocumentLine, Emisor, FacturaDocument, MedioPago, Receptor } from '../../hacienda/xml/types.ts';

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
type Dec = InstanceType<typeof D>;
const r5 = (d: Dec): Dec => d.toDecimalPlaces(5, D.ROUND_HALF_UP);
const dec = (s: string | null | undefined): Dec => new D(s ?? 0);

/** A decimal string with exactly `frac` decimals from an integer count of the smallest unit. */
export const fixed = (min: number, max: number, frac: number): fc.Arbitrary<string> =>
  fc.integer({ min, max }).map((n) => new D(n).div(10 ** frac).toFixed(frac));

/** Same value written in a shorter form (trailing zeros and dot dropped), as clients send it. */
const loose = (a: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(a, fc.boolean()).map(([s, trim]) => (trim ? new D(s).toString() : s));

/** A string of exactly `n` digits. */
export const digits = (n: number): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));

export const text = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({
    unit: fc.constantFrom('a', 'Z', '7', ' ', 'ñ', 'é', 'Ü', '&', '<', '>', '"', "'", '—', '🇨🇷', '€'),
    minLength: min,
    maxLength: max,
  });

const serviceUnits = [...SERVICE_UNITS];
const allUnits = UNIDADES_MEDIDA.map(([code]) => code);
const unitArb: fc.Arbitrary<UnidadMedida> = fc.oneof(
  fc.constantFrom(...serviceUnits),
  fc.constantFrom(...allUnits),
);
const discountCodes: CodigoDescuento[] = ['04', '05', '06', '07', '08', '09', '99'];

interface DiscountDraft {
  kind: 'amount' | 'percent';
  percent: string;
  /** Share (in 1/100000) of what is left that an amount discount takes. */
  fraction: number;
  code: CodigoDescuento;
  codeOther: string;
  nature: string | null;
}

/** Turns drafts into discounts whose amounts never exceed what the earlier ones left. */
function stackDiscounts(montoTotal: Dec, drafts: DiscountDraft[]): DiscountInput[] {
  let left = montoTotal;
  const out: DiscountInput[] = [];
  for (const d of drafts) {
    const common = {
      code: d.code,
      ...(d.code === '99' ? { codeOther: d.codeOther } : {}),
      ...(d.nature === null ? {} : { nature: d.nature }),
    };
    if (d.kind === 'percent') {
      left = left.minus(r5(left.times(d.percent).div(100)));
      out.push({ percent: d.percent, ...common });
    } else {
      const amount = left.times(d.fraction).div(100_000).toDecimalPlaces(5, D.ROUND_DOWN);
      if (amount.lte(0)) continue;
      left = left.minus(amount);
      out.push({ amount: amount.toString(), ...common });
    }
  }
  return out;
}

/** Any code of the official CABYS catalogue (what Hacienda accepts in CodigoCABYS). */
const CABYS_CODES = [...cabysCatalogue().items.keys()].sort();
export const cabysArb: fc.Arbitrary<string> = fc
  .integer({ min: 0, max: CABYS_CODES.length - 1 })
  .map((i) => CABYS_CODES[i]!);

export const lineArb: fc.Arbitrary<DocumentLine> = fc
  .record({
    cabys: cabysArb,
    description: text(3, 60),
    quantity: loose(fixed(1, 9_999_999, 3)), // 0.001 .. 9999.999
    unitPrice: loose(fixed(0, 2_000_000_000, 5)), // 0 .. 20000.00000
    unit: unitArb,
    kind: fc.option(fc.constantFrom('goods' as const, 'services' as const), { freq: 8 }),
    ivaRateCode: fc.constantFrom(...IVA_RATE_CODES_FE),
  })
  .chain((base) => {
    // MontoTotal, to keep amount discounts within what earlier discounts left.
    const montoTotal = r5(dec(base.quantity).times(base.unitPrice));
    const discount = fc.record({
      kind: fc.constantFrom('amount' as const, 'percent' as const),
      percent: fixed(1, 10_000_000, 5), // 0.00001 .. 100
      fraction: fc.integer({ min: 1, max: 100_000 }),
      code: fc.constantFrom(...discountCodes),
      codeOther: text(5, 40),
      nature: fc.option(text(3, 40)),
    });
    const rate = new D(IVA_RATES[base.ivaRateCode].rate);
    const exonerable = IVA_RATES[base.ivaRateCode].treatment === 'gravado' && rate.gt(0);
    return fc
      .record({
        discounts: fc.array(discount, { maxLength: 5 }),
        exoneration: exonerable
          ? fc.option(
              fc.record({
                rateCents: fc.integer({ min: 1, max: rate.times(100).toNumber() }),
                docType: fc.constantFrom('01', '02', '03', '08', '99' as const),
                institution: fc.constantFrom('01', '02', '12', '99' as const),
                number: fc.integer({ min: 1, max: 999_999 }).map((n) => `EX-${n}`),
                issuedAt: fc.date({
                  min: new Date('2024-01-01T00:00:00Z'),
                  max: new Date('2026-10-31T00:00:00Z'),
                  noInvalidDate: true,
                }),
              }),
              { freq: 4 },
            )
          : fc.constant(null),
      })
      .map(({ discounts, exoneration }): DocumentLine => ({
        ...base,
        kind: base.kind ?? undefined,
        discounts: stackDiscounts(montoTotal, discounts),
        ...(exoneration
          ? {
              exoneration: {
                docType: exoneration.docType,
                ...(exoneration.docType === '99' ? { docTypeOther: 'Convenio especial' } : {}),
                number: exoneration.number,
                institution: exoneration.institution,
                ...(exoneration.institution === '99' ? { institutionOther: 'Municipalidad' } : {}),
                issuedAt: exoneration.issuedAt,
                rate: new D(exoneration.rateCents).div(100).toFixed(2),
              },
            }
          : {}),
      }));
  });

export const receptorArb: fc.Arbitrary<Receptor> = fc
  .record({
    name: text(3, 80),
    id: fc.oneof(
      fc
        .integer({ min: 100_000_000, max: 999_999_999 })
        .map(String)
        .map((n) => ({ idType: '01' as const, idNumber: n })),
      fc
        .integer({ min: 0, max: 999_999_999 })
        .map((n) => `3${String(n).padStart(9, '0')}`)
        .map((n) => ({ idType: '02' as const, idNumber: n })),
      fc
        .integer({ min: 100_000, max: 999_999 })
        .map(
          (n) =>
            `${n}${String(n * 7)
              .padStart(6, '0')
              .slice(-6)}`,
        )
        .map((n) => ({ idType: '03' as const, idNumber: n })),
    ),
    ubicacion: fc.option(
      fc.record({
        provincia: fc.constantFrom('1', '2', '3', '4', '5', '6', '7'),
        canton: fc.constantFrom('01', '02', '10'),
        distrito: fc.constantFrom('01', '05'),
        otrasSenas: text(5, 100),
      }),
    ),
    email: fc.option(fc.constantFrom('a@example.com', 'cuentas.por.pagar@empresa.example')),
  })
  .map(({ name, id, ubicacion, email }) => ({
    name,
    ...id,
    ...(ubicacion ? { ubicacion } : {}),
    ...(email ? { email } : {}),
  }));

export const currencyArb = fc.oneof(
  { arbitrary: fc.constant({ currency: 'CRC' as const, exchangeRate: '1' }), weight: 2 },
  fc.record({ currency: fc.constant('USD' as const), exchangeRate: fixed(45_000_000, 70_000_000, 5) }),
  fc.record({ currency: fc.constant('EUR' as const), exchangeRate: fixed(50_000, 80_000, 2) }),
);

/**
 * A charge by amount, by a percentage of the net sale, or the service charge (06) with neither
 * (10 % by default); a charge collected for a third party (04) names it.
 */
export const otherChargeArb: fc.Arbitrary<OtherChargeInput> = fc
  .record({
    code: fc.constantFrom('01', '02', '04', '06', '07', '99' as const),
    detail: fc.option(text(1, 60)),
    by: fc.constantFrom('amount' as const, 'percent' as const, 'default' as const),
    amount: fixed(0, 100_000_000, 5),
    percent: fixed(0, 2_500_000, 5),
  })
  .map(({ by, amount, percent, detail, ...c }) => ({
    ...c,
    ...(detail !== null ? { detail } : {}),
    ...(by === 'amount' || (by === 'default' && c.code !== '06') ? { amount } : {}),
    ...(by === 'percent' ? { percent } : {}),
    ...(c.code === '99' ? { codeOther: 'Cargo adicional' } : {}),
    ...(c.code === '04'
      ? { thirdParty: { idType: '02' as const, idNumber: '3101654321', name: 'Parqueo Central SA' } }
      : {}),
  }));

export interface InvoiceCase {
  lines: DocumentLine[];
  currency: { currency: 'CRC' | 'USD' | 'EUR'; exchangeRate: string };
  otherCharges: OtherChargeInput[];
  receptor: Receptor;
  emisorIndex: number;
  condicion: (typeof CONDICIONES_VENTA_FE)[number];
  plazo: number;
  medios: MedioPago['type'][];
  /** Weights of the payments' shares; `openLast`: the last payment takes the rest. */
  weights: number[];
  openLast: boolean;
  issuedAt: Date;
  activity: string;
  receptorActivity: string | null;
}

export const invoiceArb: fc.Arbitrary<InvoiceCase> = fc.record({
  lines: fc.array(lineArb, { minLength: 1, maxLength: 20 }),
  currency: currencyArb,
  otherCharges: fc.array(otherChargeArb, { maxLength: 2 }),
  receptor: receptorArb,
  emisorIndex: fc.integer({ min: 0, max: 1 }),
  condicion: fc.constantFrom(...CONDICIONES_VENTA_FE),
  plazo: fc.integer({ min: 0, max: 120 }),
  medios: fc.uniqueArray(fc.constantFrom('01', '02', '03', '04', '05', '06', '07', '99' as const), {
    minLength: 1,
    maxLength: 4,
  }),
  weights: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 4, maxLength: 4 }),
  openLast: fc.boolean(),
  issuedAt: fc.date({
    min: new Date('2026-11-01T06:00:00Z'),
    max: new Date('2027-12-31T23:59:59Z'),
    noInvalidDate: true,
  }),
  activity: digits(6),
  receptorActivity: fc.option(digits(6)),
});

/**
 * The totals, with the payments split by weight: every share but the last is stated, the last is
 * left open (the rest) or stated as the remainder. A total under 1 is paid by one method.
 */
export function totalsOf(c: InvoiceCase): DocumentTotals {
  const plain = computeDocumentTotals(c.lines, { ...c.currency, otherCharges: c.otherCharges });
  const total = dec(plain.summary.totalComprobante);
  const medios = total.lt(1) ? c.medios.slice(0, 1) : c.medios;
  const w = c.weights.slice(0, medios.length);
  const all = w.reduce((a, b) => a + b, 0) + 1;
  const shares = w.map((x) => r5(total.times(x).div(all)));
  const last = total.minus(shares.slice(0, -1).reduce((a, b) => a.plus(b), new D(0)));
  const payments = medios.map((type, k) => ({
    type,
    ...(type === '99' ? { other: 'Canje de puntos' } : {}),
    ...(k < medios.length - 1
      ? { amount: shares[k]!.toFixed(5) }
      : c.openLast || medios.length === 1
        ? {}
        : { amount: last.toFixed(5) }),
  }));
  return computeDocumentTotals(c.lines, { ...c.currency, otherCharges: c.otherCharges, payments });
}

export const EMISORES: Emisor[] = [
  {
    name: 'Distribuidora La Sabana S.A.',
    idType: '02',
    idNumber: '3101765432',
    ubicacion: { provincia: '1', canton: '08', distrito: '01', otrasSenas: 'Frente al parque de Sabana Sur' },
    emails: ['fe@lasabana.example'],
  },
  {
    name: 'José Ramírez Mora',
    idType: '01',
    idNumber: '401230456',
    commercialName: 'Taller Ramírez',
    ubicacion: {
      provincia: '4',
      canton: '01',
      distrito: '02',
      barrio: 'Barrio Fátima',
      otrasSenas: 'Del Walmart 300 m oeste',
    },
    phone: { countryCode: '506', number: '88776655' },
    emails: ['taller@ramirez.example', 'contabilidad@ramirez.example'],
  },
];

export function facturaOf(c: InvoiceCase, index: number, totals: DocumentTotals): FacturaDocument {
  const emisor = EMISORES[c.emisorIndex] as Emisor;
  const consecutivo = buildConsecutivo({
    branch: '001',
    terminal: '00001',
    docType: '01',
    number: index + 1,
  });
  const medios: MedioPago[] = (totals.summary.medioPago ?? []).map((m) => ({
    type: m.type,
    ...(m.other ? { other: m.other } : {}),
    ...(m.total ? { total: m.total } : {}),
  }));
  return {
    clave: buildClave({
      date: c.issuedAt,
      emisorId: emisor.idNumber,
      consecutivo,
      situacion: '1',
      securityCode: randomSecurityCode(),
    }),
    consecutivo,
    issuedAt: c.issuedAt,
    proveedorSistemas: '3101000001',
    activityCode: c.activity,
    ...(c.receptorActivity ? { receptorActivityCode: c.receptorActivity } : {}),
    emisor,
    receptor: c.receptor,
    condicionVenta: c.condicion,
    ...(c.condicion === '99' ? { condicionVentaOtros: 'Permuta de servicios' } : {}),
    ...(CONDICIONES_VENTA_CREDITO.includes(c.condicion) ? { plazoCredito: c.plazo } : {}),
    mediosPago: medios,
    lines: c.lines,
    totals,
  };
}
