// The taxes a line may carry beside its IVA (Impuesto with Codigo 02-06, 12, 99; the v4.4 XSD and its Anexos and
// the annotations of ImpuestoType in the 2026 XSDs), how each is given and how its Monto follows:
//
//   02 Selectivo de Consumo, 12 Específico al cemento: ad valorem, a Tarifa (percent, 2 decimals)
//      of the line's SubTotal.                               Monto = SubTotal × Tarifa / 100
//   03 Único a los combustibles: per unit of volume. CantidadUnidadMedida = litres per item sold,
//      ImpuestoUnidad = tax per litre.                       Monto = Cantidad × CantidadUnidadMedida × ImpuestoUnidad
//   04 Específico bebidas alcohólicas: per millilitre of absolute alcohol. CantidadUnidadMedida =
//      millilitres per item, Porcentaje = alcohol by volume, Proporcion = CantidadUnidadMedida ×
//      Porcentaje / 100 (millilitres of alcohol per item), ImpuestoUnidad = tax per millilitre of
//      alcohol.                                              Monto = Cantidad × Proporcion × ImpuestoUnidad
//   05 Específico bebidas envasadas sin alcohol y jabones de tocador: per unit of consumption.
//      CantidadUnidadMedida = millilitres (grams) per item, VolumenUnidadConsumo = millilitres
//      (grams) of one unit of consumption, ImpuestoUnidad = tax per unit of consumption.
//                                                            Monto = Cantidad × CantidadUnidadMedida / VolumenUnidadConsumo × ImpuestoUnidad
//   06 Productos de tabaco: per cigarette (or unit). CantidadUnidadMedida = units per item,
//      ImpuestoUnidad = tax per unit.                        Monto = Cantidad × CantidadUnidadMedida × ImpuestoUnidad
//   99 Otros: CodigoImpuestoOTRO names it; a Tarifa of the SubTotal or a stated amount.
//
// Every Monto is rounded half-up to 5 decimals once. 02, 04, 05 and 12 are added to the IVA's
// BaseImponible (domain/totals.ts). The facturas electrónicas de compra have no
// DatosImpuestoEspecifico, so 03-06 are refused there; exportaciones carry IVA only. A recibo
// electrónico de pago (10) carries a payment's share of each tax of the factura it settles: there
// every tax is a stated Monto (any code, zero allowed), since the REP has neither the line's
// quantity nor DatosImpuestoEspecifico to compute it from (db/queries/receipts.ts).
import type { Decimal } from 'decimal.js';
import { CODIGOS_IMPUESTO, isOtherTaxCode, type OtherTaxCode, type TipoComprobante } from './codes.ts';
import { D, r5, type Dec } from './decimal-input.ts';

/** One tax beside the IVA, as the API gives it (camelCase; the request takes snake_case too). */
export interface OtherTaxInput {
  code: OtherTaxCode;
  /** CodigoImpuestoOTRO, 5-100 characters, for code 99. */
  codeOther?: string;
  /** Tarifa in percent (up to 2 decimals): codes 02, 12 and 99. */
  rate?: string;
  /** Monto stated (up to 5 decimals): code 99 without a rate. */
  amount?: string;
  /** CantidadUnidadMedida (up to 5 integer digits, 2 decimals): codes 03-06. */
  unitQuantity?: string;
  /** Porcentaje, alcohol by volume (up to 2 decimals): code 04. */
  alcoholPercent?: string;
  /** VolumenUnidadConsumo (up to 5 integer digits, 2 decimals): code 05. */
  consumptionVolume?: string;
  /** ImpuestoUnidad, tax per unit (money, up to 5 decimals): codes 03-06. */
  taxPerUnit?: string;
}

/** DatosImpuestoEspecifico as written, every figure with its XSD decimals. */
export interface SpecificTaxData {
  unitQuantity: string;
  alcoholPercent: string | null;
  proportion: string | null;
  consumptionVolume: string | null;
  taxPerUnit: string;
}

export interface ComputedOtherTax {
  code: OtherTaxCode;
  codeOther: string | null;
  /** Tarifa with 2 decimals, or null for the specific taxes and a stated amount. */
  rate: string | null;
  specific: SpecificTaxData | null;
  amount: Dec;
}

type Add = (path: string, code: string, message: string) => void;

const FIELDS: Record<OtherTaxCode, readonly (keyof OtherTaxInput)[]> = {
  '02': ['rate'],
  '12': ['rate'],
  '03': ['unitQuantity', 'taxPerUnit'],
  '04': ['unitQuantity', 'alcoholPercent', 'taxPerUnit'],
  '05': ['unitQuantity', 'consumptionVolume', 'taxPerUnit'],
  '06': ['unitQuantity', 'taxPerUnit'],
  '99': ['codeOther', 'rate', 'amount'],
};
const SPECIFIC: ReadonlySet<OtherTaxCode> = new Set(['03', '04', '05', '06']);
const SNAKE: Record<string, string> = {
  codeOther: 'code_other',
  unitQuantity: 'unit_quantity',
  alcoholPercent: 'alcohol_percent',
  consumptionVolume: 'consumption_volume',
  taxPerUnit: 'tax_per_unit',
};
/** Hacienda allows 1000 Impuesto per line; a line carries its IVA and at most 20 others here. */
export const MAX_OTHER_TAXES = 20;

/** The document types whose lines may carry taxes beside the IVA (10: as stated shares only). */
export function otherTaxesAllowed(docType: TipoComprobante): boolean {
  return ['01', '02', '03', '04', '08', '10'].includes(docType);
}

/** A recibo de pago states every tax's Monto: the payment's share of the factura's. */
export const statedTaxesOnly = (docType: TipoComprobante): boolean => docType === '10';

function decimal(
  add: Add,
  path: string,
  value: unknown,
  maxInt: number,
  maxFrac: number,
  positive = true,
): Dec | null {
  if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value)) {
    add(path, 'invalid_decimal', 'expected an unsigned decimal string such as "12.50"');
    return null;
  }
  const [int = '', frac = ''] = value.split('.');
  if (frac.length > maxFrac) {
    add(path, 'too_many_decimals', `at most ${maxFrac} decimals allowed, got "${value}"`);
    return null;
  }
  if (int.replace(/^0+(?=\d)/, '').length > maxInt) {
    add(path, 'out_of_range', `at most ${maxInt} integer digits allowed, got "${value}"`);
    return null;
  }
  const d = new D(value);
  if (positive && d.lte(0)) {
    add(path, 'out_of_range', 'must be greater than zero');
    return null;
  }
  return d;
}

interface ValidOtherTax {
  code: OtherTaxCode;
  codeOther: string | null;
  rate: Dec | null;
  amount: Dec | null;
  unitQuantity: Dec | null;
  alcoholPercent: Dec | null;
  consumptionVolume: Dec | null;
  taxPerUnit: Dec | null;
}

/**
 * Checks a line's other taxes (paths `${base}/otherTaxes/k/field`); codes repeat only as 99.
 * Returns null when anything is wrong (the problems are reported through `add`).
 */
export function validateOtherTaxes(
  add: Add,
  base: string,
  raw: unknown,
  docType: TipoComprobante,
): ValidOtherTax[] | null {
  const p = `${base}/otherTaxes`;
  if (!Array.isArray(raw) || raw.length > MAX_OTHER_TAXES) {
    add(p, 'invalid_value', `must be a list of at most ${MAX_OTHER_TAXES} taxes`);
    return null;
  }
  if (raw.length > 0 && !otherTaxesAllowed(docType)) {
    add(p, 'not_allowed', `document type ${docType} carries IVA only`);
    return null;
  }
  let ok = true;
  const fail: Add = (path, code, message) => {
    ok = false;
    add(path, code, message);
  };
  const seen = new Set<string>();
  const out: ValidOtherTax[] = [];
  raw.forEach((t: unknown, k) => {
    const v = validateOtherTax(fail, `${p}/${k}`, t, docType, seen);
    if (v) out.push(v);
  });
  return ok ? out : null;
}

/** One tax of the list (path `tp`); null when its code cannot be used (the rest is reported through `fail`). */
function validateOtherTax(
  fail: Add,
  tp: string,
  t: unknown,
  docType: TipoComprobante,
  seen: Set<string>,
): ValidOtherTax | null {
  if (t === null || typeof t !== 'object' || Array.isArray(t)) {
    fail(tp, 'invalid_type', 'must be an object');
    return null;
  }
  const o = t as Record<string, unknown>;
  const code = validateOtherTaxCode(fail, tp, o.code, docType, seen);
  if (code === null) return null;
  const need = (key: keyof OtherTaxInput) => {
    if (o[key] === undefined) {
      fail(`${tp}/${key}`, 'required', `${SNAKE[key] ?? key} is required for tax code ${code}`);
      return false;
    }
    return true;
  };
  if (statedTaxesOnly(docType)) return validateStatedTax(fail, tp, o, code, need);
  const allowed = FIELDS[code];
  for (const key of Object.keys(o)) {
    if (key === 'code') continue;
    if (!(allowed as readonly string[]).includes(key))
      fail(
        `${tp}/${key}`,
        'not_applicable',
        `${SNAKE[key] ?? key} does not apply to tax code ${code} (${CODIGOS_IMPUESTO[code]})`,
      );
  }
  return validateComputedTax(fail, tp, o, code, need);
}

/** A tax's code: one of the other taxes, once per line (99 may repeat), computable in the document type. */
function validateOtherTaxCode(
  fail: Add,
  tp: string,
  code: unknown,
  docType: TipoComprobante,
  seen: Set<string>,
): OtherTaxCode | null {
  if (typeof code !== 'string' || !isOtherTaxCode(code)) {
    fail(
      `${tp}/code`,
      code === '01' || code === '07' || code === '08' ? 'not_allowed' : 'unknown_code',
      code === '01' || code === '07' || code === '08'
        ? `tax code ${code} is the line's IVA: give it with the IVA fields, not in taxes`
        : `unknown tax code "${String(code)}": one of 02, 03, 04, 05, 06, 12, 99`,
    );
    return null;
  }
  if (code !== '99' && seen.has(code)) {
    fail(`${tp}/code`, 'duplicate_tax', `tax code ${code} is already on this line`);
    return null;
  }
  seen.add(code);
  if (docType === '08' && SPECIFIC.has(code)) {
    fail(
      `${tp}/code`,
      'not_allowed',
      `a factura electrónica de compra has no DatosImpuestoEspecifico: tax code ${code} (${CODIGOS_IMPUESTO[code]}) cannot be computed in it`,
    );
    return null;
  }
  return code;
}

/** A tax as a recibo de pago states it: its code (and CodigoImpuestoOTRO for 99) and an amount. */
function validateStatedTax(
  fail: Add,
  tp: string,
  o: Record<string, unknown>,
  code: OtherTaxCode,
  need: (key: keyof OtherTaxInput) => boolean,
): ValidOtherTax {
  for (const key of Object.keys(o))
    if (key !== 'code' && key !== 'amount' && !(code === '99' && key === 'codeOther'))
      fail(`${tp}/${key}`, 'not_applicable', 'a recibo de pago states each tax as an amount');
  const codeOther = code === '99' ? o.codeOther : null;
  if (code === '99' && (typeof codeOther !== 'string' || [...codeOther].length < 5))
    fail(`${tp}/codeOther`, 'required', 'CodigoImpuestoOTRO: 5 to 100 characters naming the tax');
  const amount = need('amount') ? decimal(fail, `${tp}/amount`, o.amount, 13, 5, false) : null;
  return {
    code,
    codeOther: typeof codeOther === 'string' ? codeOther : null,
    rate: null,
    amount,
    unitQuantity: null,
    alcoholPercent: null,
    consumptionVolume: null,
    taxPerUnit: null,
  };
}

/** The fields a computed tax needs by its code: a rate (02, 12), a rate or amount (99), or the specific-tax data. */
function validateComputedTax(
  fail: Add,
  tp: string,
  o: Record<string, unknown>,
  code: OtherTaxCode,
  need: (key: keyof OtherTaxInput) => boolean,
): ValidOtherTax {
  const v: ValidOtherTax = {
    code,
    codeOther: null,
    rate: null,
    amount: null,
    unitQuantity: null,
    alcoholPercent: null,
    consumptionVolume: null,
    taxPerUnit: null,
  };
  if (code === '02' || code === '12') {
    if (need('rate')) v.rate = decimal(fail, `${tp}/rate`, o.rate, 2, 2);
  } else if (code === '99') {
    if (typeof o.codeOther !== 'string' || [...o.codeOther].length < 5 || [...o.codeOther].length > 100)
      fail(
        `${tp}/codeOther`,
        o.codeOther === undefined ? 'required' : 'invalid_length',
        'CodigoImpuestoOTRO: 5 to 100 characters naming the tax',
      );
    else v.codeOther = o.codeOther;
    if ((o.rate === undefined) === (o.amount === undefined))
      fail(tp, 'invalid_tax', 'give exactly one of rate or amount');
    else if (o.rate !== undefined) v.rate = decimal(fail, `${tp}/rate`, o.rate, 2, 2);
    else v.amount = decimal(fail, `${tp}/amount`, o.amount, 13, 5);
  } else {
    if (need('unitQuantity')) v.unitQuantity = decimal(fail, `${tp}/unitQuantity`, o.unitQuantity, 5, 2);
    if (need('taxPerUnit')) v.taxPerUnit = decimal(fail, `${tp}/taxPerUnit`, o.taxPerUnit, 13, 5);
    if (code === '04' && need('alcoholPercent')) {
      v.alcoholPercent = decimal(fail, `${tp}/alcoholPercent`, o.alcoholPercent, 2, 2);
      if (v.alcoholPercent?.gt(100)) fail(`${tp}/alcoholPercent`, 'out_of_range', 'at most 100');
    }
    if (code === '05' && need('consumptionVolume'))
      v.consumptionVolume = decimal(fail, `${tp}/consumptionVolume`, o.consumptionVolume, 5, 2);
  }
  return v;
}

/** Monto of each tax (rounded to 5 decimals) for a line of `quantity` items and this SubTotal. */
export function computeOtherTaxes(
  taxes: readonly ValidOtherTax[],
  quantity: Decimal.Value,
  subTotal: Decimal.Value,
): ComputedOtherTax[] {
  const qty = new D(quantity);
  const sub = new D(subTotal);
  return taxes.map((t) => {
    const common = { code: t.code, codeOther: t.codeOther };
    if (t.rate)
      return { ...common, rate: t.rate.toFixed(2), specific: null, amount: r5(sub.times(t.rate).div(100)) };
    if (t.amount) return { ...common, rate: null, specific: null, amount: t.amount };
    const units = t.unitQuantity!;
    const perUnit = t.taxPerUnit!;
    let proportion: Dec | null = null;
    let amount: Dec;
    if (t.code === '04') {
      proportion = r5(units.times(t.alcoholPercent!).div(100));
      amount = r5(qty.times(proportion).times(perUnit));
    } else if (t.code === '05') {
      amount = r5(qty.times(units).div(t.consumptionVolume!).times(perUnit));
    } else {
      amount = r5(qty.times(units).times(perUnit));
    }
    return {
      ...common,
      rate: null,
      specific: {
        unitQuantity: units.toFixed(2),
        alcoholPercent: t.alcoholPercent ? t.alcoholPercent.toFixed(2) : null,
        proportion: proportion ? proportion.toFixed(5) : null,
        consumptionVolume: t.consumptionVolume ? t.consumptionVolume.toFixed(2) : null,
        taxPerUnit: perUnit.toFixed(5),
      },
      amount,
    };
  });
}
