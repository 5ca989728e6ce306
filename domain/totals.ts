// Line and document totals of a comprobante, computed the v4.4 way (NOTES §4.2-4.4) with exact
// decimal arithmetic (decimal.js, never binary floats):
//
//   MontoTotal      = Cantidad × PrecioUnitario                       (rounded to 5 decimals)
//   Descuento[k]    = an amount, or a percentage of what is left after the earlier discounts
//   SubTotal        = MontoTotal − Σ Descuento
//   other taxes     = 02-06, 12, 99 as domain/other-taxes.ts computes them (rounded)
//   BaseImponible   = SubTotal + Monto of 02, 04, 05 and 12, or the base given (IVA 07, or IVA
//                     cobrado a nivel de fábrica 01, where the XSD lets the issuer state it)
//   IVA Monto       = BaseImponible × Tarifa / 100 (01, 07), BaseImponible × FactorCalculoIVA (08)
//   MontoExoneracion= BaseImponible × TarifaExonerada / 100            (rounded)
//   ImpuestoNeto    = Σ Monto − MontoExoneracion − ImpuestoAsumidoEmisorFabrica
//   MontoTotalLinea = SubTotal + ImpuestoNeto
//   TotalIVADevuelto= Σ (IVA Monto − MontoExoneracion) of the lines marked `ivaReturned` (health
//                     services paid by card; the card payment is checked where payments are known)
//   TotalComprobante= TotalVentaNeta + TotalImpuesto + TotalOtrosCargos − TotalIVADevuelto
//
// Every line value is rounded half-up to 5 decimals once, and every summary figure is a sum of
// those rounded line values, so the summary reconciles to the last digit with what Hacienda
// recomputes from the lines. The API's `total` is TotalComprobante rounded half-up to 2 decimals.
//
// ResumenFactura buckets: each line's MontoTotal (before discounts, so that TotalVenta −
// TotalDescuentos = Σ SubTotal) goes to services or goods (the unit, see codes.ts SERVICE_UNITS,
// or the line's explicit `kind`) and to gravado / exento / no sujeto by its IVA rate code
// (codes.ts IVA_RATES); a line without IVA (IVA cobrado a nivel de fábrica 02) is exento. An exonerated line splits MontoTotal: the share TarifaExonerada / Tarifa
// is exonerado, the rest gravado. A bucket no line touches is null and is omitted from the XML.
//
// OtrosCargos: an amount, or a percentage of TotalVentaNeta (code 06, the service charge, 10 %
// unless stated), rounded once. MedioPago: amounts checked against TotalComprobante, one payment
// may take the rest (TotalsOptions.payments).
//
// Extension points: the mixed-sale IVA devuelto (part of a health service paid by card) is not
// modelled (the whole sale is paid by card); discount codes 01-03 (regalías, bonificaciones), whose IVA is computed on MontoTotal, are refused until
// their treatment is modelled.
import { Decimal } from 'decimal.js';
import {
  CODIGOS_DESCUENTO,
  IVA_RATES,
  BASE_TAX_CODES,
  isIvaTaxCode,
  isCodigoDescuento,
  isCodigoImpuesto,
  isCodigoMoneda,
  isCodigoTarifaIVA,
  isInstitucionExoneracion,
  isIvaRateAllowed,
  isTipoComprobante,
  isTipoDocumentoExoneracion,
  isTipoMedioPago,
  isTipoOtroCargo,
  TIPOS_OTROS_CARGOS,
  isUnidadMedida,
  unitKind,
  type CodigoDescuento,
  type CodigoImpuesto,
  type CodigoMoneda,
  type CodigoTarifaIVA,
  type IdentificationType,
  type InstitucionExoneracion,
  type IvaTaxCode,
  type IvaTreatment,
  type LineKind,
  type TipoComprobante,
  type TipoDocumentoExoneracion,
  type TipoMedioPago,
  type TipoOtroCargo,
  type UnidadMedida,
} from './codes.ts';
import { DomainValidationError, type FieldError } from './errors.ts';
import {
  computeOtherTaxes,
  otherTaxesAllowed,
  validateOtherTaxes,
  type OtherTaxInput,
  type SpecificTaxData,
} from './other-taxes.ts';

export type { OtherTaxInput, SpecificTaxData };

// Half-up rounding, and enough precision that 13 integer + 8 fraction digits never lose a digit.
const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
type Dec = InstanceType<typeof D>;

const ZERO = new D(0);
const HUNDRED = new D(100);
/** Largest DecimalDineroType value (13 integer digits, 5 decimals). */
const MAX_AMOUNT = new D('9999999999999.99999');
/** Hacienda's limits: 1000 lines per document, 5 discounts per line, 15 other charges. */
const MAX_LINES = 1000;
const MAX_DISCOUNTS = 5;
const MAX_OTHER_CHARGES = 15;

/** A non-negative money amount with exactly 5 decimals, e.g. `"1234.50000"` (DecimalDineroType). */
export type Amount = string;

// ---------------------------------------------------------------------------------------------
// Inputs

/**
 * One line discount (Descuento). Give exactly one of `amount` (money, up to 5 decimals) or
 * `percent` (0 < p ≤ 100, up to 5 decimals). A percentage applies to what is left of MontoTotal
 * after the discounts listed before it (the XSD's rule for stacked discounts) and is rounded to 5
 * decimals. `code` 99 needs `codeOther`; `nature` (NaturalezaDescuento) defaults to the code's
 * label.
 */
export interface DiscountInput {
  amount?: string;
  percent?: string;
  code: CodigoDescuento;
  codeOther?: string;
  nature?: string;
}

/** An IVA exoneration held by the receptor (Exoneracion). */
export interface ExonerationInput {
  docType: TipoDocumentoExoneracion;
  /** Required when docType is 99 (5-100 characters). */
  docTypeOther?: string;
  /** NumeroDocumento, 3-40 characters. */
  number: string;
  /** Article and inciso of the law, up to 6 digits each. */
  article?: string;
  inciso?: string;
  institution: InstitucionExoneracion;
  /** Required when institution is 99 (5-160 characters). */
  institutionOther?: string;
  /** FechaEmisionEX; an ISO string as stored with the line in JSON. */
  issuedAt: Date | string;
  /** TarifaExonerada: percentage points of the IVA rate exonerated, 0 < rate ≤ Tarifa, 2 decimals. */
  rate: string;
}

export interface LineInput {
  /** Cantidad: positive, up to 13 integer digits and 3 decimals. */
  quantity: string;
  /** PrecioUnitario: non-negative, up to 13 integer digits and 5 decimals. */
  unitPrice: string;
  unit: UnidadMedida;
  /** Overrides the goods/services classification derived from the unit (the CABYS decides). */
  kind?: LineKind;
  /** The line's IVA: 01 (default), 07 cálculo especial, 08 régimen de bienes usados. */
  taxCode?: CodigoImpuesto;
  ivaRateCode: CodigoTarifaIVA;
  /** FactorCalculoIVA (up to 4 decimals, below 10) of IVA 08: IVA Monto = BaseImponible × factor. */
  ivaFactor?: string;
  /** BaseImponible stated by the issuer: IVA 07, or IVACobradoFabrica 01. */
  taxableBase?: string;
  /**
   * IVACobradoFabrica: 01 the IVA is charged under the factory-level system; 02 the goods are
   * exempt because their IVA was paid at the factory (no IVA Impuesto is written, so the line
   * needs another tax).
   */
  ivaCollectedAtFactory?: '01' | '02';
  /** Taxes beside the IVA (02-06, 12, 99). */
  otherTaxes?: readonly OtherTaxInput[];
  /** ImpuestoAsumidoEmisorFabrica: tax the issuer assumes or the factory collected (≤ the line's tax). */
  assumedTax?: string;
  /** The line's IVA is returned (TotalIVADevuelto): a health service paid by card. */
  ivaReturned?: boolean;
  discounts?: readonly DiscountInput[];
  exoneration?: ExonerationInput;
}

/** A charge outside the lines (OtrosCargos), e.g. the 10% service charge. */
export interface OtherChargeInput {
  code: TipoOtroCargo;
  /** Required when code is 99 (5-100 characters). */
  codeOther?: string;
  /** Detalle, up to 160 characters; the code's label when absent. */
  detail?: string;
  /**
   * PorcentajeOC (up to 5 decimals). Without `amount` the charge is this percentage of
   * TotalVentaNeta (the sale after discounts, before taxes), rounded to 5 decimals; code 06 (the
   * 10 % service charge) defaults to 10.
   */
  percent?: string;
  /** MontoCargo; computed from `percent` when absent. */
  amount?: string;
  /** IdentificacionTercero / NombreTercero, for charges collected on behalf of a third party. */
  thirdParty?: { idType: IdentificationType; idNumber: string; name?: string };
}

export interface TotalsOptions {
  currency: CodigoMoneda;
  /** TipoCambio to colones, up to 5 decimals; must be 1 for CRC. */
  exchangeRate: string;
  /** Document type, to check which IVA rate codes are allowed (default 01, Factura). */
  docType?: TipoComprobante;
  otherCharges?: readonly OtherChargeInput[];
  /**
   * MedioPago 0..4. An amount may be left out on one of them: it takes what the others leave of
   * TotalComprobante. The amounts must add up to TotalComprobante, or to the API's 2-decimal
   * total (the last one then absorbs the fraction of a centavo, so the XML adds up exactly).
   * With a single payment and no amount, TotalMedioPago is omitted.
   */
  payments?: readonly PaymentInput[];
}

export interface PaymentInput {
  type: TipoMedioPago;
  /** MedioPagoOtros, for type 99. */
  other?: string | null;
  amount?: string | null;
}

/** One MedioPago of ResumenFactura. */
export interface ResolvedPayment {
  type: TipoMedioPago;
  other: string | null;
  /** TotalMedioPago, or null when omitted (a single payment given without an amount). */
  total: Amount | null;
}

// ---------------------------------------------------------------------------------------------
// Results: every money figure is an Amount string; `null` means "not applicable, omit".

export interface ResolvedDiscount {
  amount: Amount;
  code: CodigoDescuento;
  codeOther: string | null;
  nature: string;
}

export interface ResolvedExoneration {
  docType: TipoDocumentoExoneracion;
  docTypeOther: string | null;
  number: string;
  article: string | null;
  inciso: string | null;
  institution: InstitucionExoneracion;
  institutionOther: string | null;
  issuedAt: Date;
  /** TarifaExonerada with 2 decimals, e.g. `"13.00"`. */
  rate: string;
  /** MontoExoneracion. */
  amount: Amount;
}

export interface LineTax {
  code: CodigoImpuesto;
  /** CodigoTarifaIVA of an IVA (01, 07, 08); null for the other taxes. */
  ivaRateCode: CodigoTarifaIVA | null;
  /** Tarifa with 2 decimals, e.g. `"13.00"`, `"0.50"`; null for the specific taxes. */
  rate: string | null;
  /** CodigoImpuestoOTRO (code 99). */
  codeOther?: string | null;
  /** FactorCalculoIVA with 4 decimals (code 08). */
  factor?: string | null;
  /** DatosImpuestoEspecifico (codes 03-06). */
  specific?: SpecificTaxData | null;
  /** Monto (before exoneration). */
  amount: Amount;
  exoneration: ResolvedExoneration | null;
}

/** How a line's MontoTotal is split between the ResumenFactura buckets (null = untouched). */
export interface LineSplit {
  gravado: Amount | null;
  exento: Amount | null;
  exonerado: Amount | null;
  noSujeto: Amount | null;
}

export interface LineTotals {
  /** NumeroLinea, 1-based. */
  lineNumber: number;
  kind: LineKind;
  treatment: IvaTreatment;
  /** Cantidad with 3 decimals. */
  quantity: string;
  unitPrice: Amount;
  montoTotal: Amount;
  discounts: ResolvedDiscount[];
  /** Σ MontoDescuento of the line. */
  discountTotal: Amount;
  subTotal: Amount;
  /** IVACobradoFabrica, when stated. */
  ivaCollectedAtFactory?: '01' | '02' | null;
  baseImponible: Amount;
  /** The IVA first (when the line has one), then the other taxes as given. */
  taxes: LineTax[];
  /** The IVA this line returns (TotalIVADevuelto), or null. */
  ivaReturned?: Amount | null;
  impuestoAsumidoEmisorFabrica: Amount;
  impuestoNeto: Amount;
  montoTotalLinea: Amount;
  split: LineSplit;
}

export interface ResolvedOtherCharge {
  code: TipoOtroCargo;
  codeOther: string | null;
  detail: string;
  /** PorcentajeOC with 5 decimals, or null. */
  percent: string | null;
  amount: Amount;
  thirdParty: { idType: IdentificationType; idNumber: string; name: string | null } | null;
}

/** One TotalDesgloseImpuesto row: the net tax per (Codigo, CodigoTarifaIVA). */
export interface TaxBreakdown {
  code: CodigoImpuesto;
  ivaRateCode: CodigoTarifaIVA | null;
  amount: Amount;
}

/** ResumenFactura figures, named after the XML elements. */
export interface DocumentSummary {
  currency: CodigoMoneda;
  /** TipoCambio with 5 decimals. */
  exchangeRate: Amount;
  totalServGravados: Amount | null;
  totalServExentos: Amount | null;
  totalServExonerado: Amount | null;
  totalServNoSujeto: Amount | null;
  totalMercanciasGravadas: Amount | null;
  totalMercanciasExentas: Amount | null;
  totalMercExonerada: Amount | null;
  totalMercNoSujeta: Amount | null;
  totalGravado: Amount | null;
  totalExento: Amount | null;
  totalExonerado: Amount | null;
  totalNoSujeto: Amount | null;
  totalVenta: Amount;
  /** Null when no line has a discount. */
  totalDescuentos: Amount | null;
  totalVentaNeta: Amount;
  /** One row per (Codigo, CodigoTarifaIVA) present in the lines, in order of first appearance. */
  totalDesgloseImpuesto: TaxBreakdown[];
  /** Σ ImpuestoNeto (net of exonerations), so that TotalComprobante = Σ MontoTotalLinea + cargos. */
  totalImpuesto: Amount;
  totalImpAsumEmisorFabrica: Amount | null;
  totalIVADevuelto: Amount | null;
  totalOtrosCargos: Amount | null;
  /** MedioPago with their amounts; absent in summaries stored before payments carried amounts. */
  medioPago?: ResolvedPayment[];
  totalComprobante: Amount;
}

export interface DocumentTotals {
  lines: LineTotals[];
  otherCharges: ResolvedOtherCharge[];
  summary: DocumentSummary;
  /** The API figure: TotalComprobante rounded half-up to 2 decimals, e.g. `"113.00"`. */
  total: string;
}

// ---------------------------------------------------------------------------------------------
// Parsing helpers (collect every problem, then throw once)

class Issues {
  readonly list: FieldError[] = [];
  add(path: string, code: string, message: string): void {
    this.list.push({ path, code, message });
  }
}

interface DecimalRule {
  maxInt: number;
  maxFrac: number;
  /** 'positive': > 0; 'nonNegative': ≥ 0 */
  sign: 'positive' | 'nonNegative';
}

const PATTERNS = new Map<string, RegExp>();
function patternFor(maxInt: number, maxFrac: number): RegExp {
  const key = `${maxInt}.${maxFrac}`;
  let re = PATTERNS.get(key);
  if (!re) {
    re = new RegExp(`^\\d{1,${maxInt}}(\\.\\d{1,${maxFrac}})?$`);
    PATTERNS.set(key, re);
  }
  return re;
}

function parseDecimal(issues: Issues, path: string, value: unknown, rule: DecimalRule): Dec | null {
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

function textLength(
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

const r5 = (d: Dec): Dec => d.toDecimalPlaces(5, D.ROUND_HALF_UP);
const fmt5 = (d: Dec): Amount => d.toFixed(5);
const fmt2 = (d: Dec): string => d.toFixed(2, D.ROUND_HALF_UP);

function sum(values: readonly Dec[]): Dec {
  let acc = ZERO;
  for (const v of values) acc = acc.plus(v);
  return acc;
}

// ---------------------------------------------------------------------------------------------
// Line computation

interface ValidLine {
  index: number;
  quantity: Dec;
  unitPrice: Dec;
  kind: LineKind;
  /** The IVA, or null when IVACobradoFabrica 02 leaves it out. */
  iva: { code: IvaTaxCode; rateCode: CodigoTarifaIVA; factor: Dec | null } | null;
  taxableBase: Dec | null;
  factory: '01' | '02' | null;
  otherTaxes: NonNullable<ReturnType<typeof validateOtherTaxes>>;
  assumedTax: Dec;
  ivaReturned: boolean;
  discounts: {
    amount: Dec | null;
    percent: Dec | null;
    code: CodigoDescuento;
    codeOther: string | null;
    nature: string;
  }[];
  exoneration: (Omit<ResolvedExoneration, 'rate' | 'amount'> & { rate: Dec }) | null;
}

// Regalías and bonificaciones carry IVA on MontoTotal (tax not reduced by the discount); that
// treatment is not modelled yet, so these codes are refused rather than computed wrongly.
const UNSUPPORTED_DISCOUNT_CODES: ReadonlySet<CodigoDescuento> = new Set<CodigoDescuento>(['01', '02', '03']);

function validateLine(
  issues: Issues,
  line: LineInput,
  index: number,
  docType: TipoComprobante,
): ValidLine | null {
  const base = `/lines/${index}`;
  const before = issues.list.length;
  const quantity = parseDecimal(issues, `${base}/quantity`, line.quantity, {
    maxInt: 13,
    maxFrac: 3,
    sign: 'positive',
  });
  const unitPrice = parseDecimal(issues, `${base}/unitPrice`, line.unitPrice, {
    maxInt: 13,
    maxFrac: 5,
    sign: 'nonNegative',
  });
  let kind: LineKind = 'goods';
  if (typeof line.unit !== 'string' || !isUnidadMedida(line.unit)) {
    issues.add(`${base}/unit`, 'unknown_code', `unknown UnidadMedida "${String(line.unit)}"`);
  } else {
    kind = unitKind(line.unit);
  }
  if (line.kind !== undefined) {
    if (line.kind !== 'goods' && line.kind !== 'services') {
      issues.add(`${base}/kind`, 'unknown_code', 'expected "goods" or "services"');
    } else {
      kind = line.kind;
    }
  }
  const taxCode = line.taxCode ?? '01';
  if (!isCodigoImpuesto(taxCode)) {
    issues.add(`${base}/taxCode`, 'unknown_code', `unknown CodigoImpuesto "${String(taxCode)}"`);
  } else if (!isIvaTaxCode(taxCode)) {
    issues.add(
      `${base}/taxCode`,
      'not_allowed',
      `the line's IVA is tax code 01, 07 or 08; tax code ${taxCode} goes in the line's other taxes`,
    );
  } else if (taxCode !== '01' && !otherTaxesAllowed(docType)) {
    issues.add(`${base}/taxCode`, 'not_allowed', `document type ${docType} carries IVA 01 only`);
  }
  const extra = validateIvaExtras(issues, base, line, taxCode, docType);
  const ivaRateCode = line.ivaRateCode;
  if (typeof ivaRateCode !== 'string' || !isCodigoTarifaIVA(ivaRateCode)) {
    issues.add(`${base}/ivaRateCode`, 'unknown_code', `unknown CodigoTarifaIVA "${String(ivaRateCode)}"`);
  } else if (!isIvaRateAllowed(ivaRateCode, docType)) {
    issues.add(
      `${base}/ivaRateCode`,
      'not_allowed',
      `rate code ${ivaRateCode} (${IVA_RATES[ivaRateCode].label}) is not allowed in document type ${docType}`,
    );
  }

  const discounts: ValidLine['discounts'] = [];
  const discountInputs = line.discounts ?? [];
  if (discountInputs.length > MAX_DISCOUNTS) {
    issues.add(`${base}/discounts`, 'too_many', `at most ${MAX_DISCOUNTS} discounts per line`);
  }
  discountInputs.forEach((d, k) => {
    const p = `${base}/discounts/${k}`;
    const hasAmount = d.amount !== undefined;
    const hasPercent = d.percent !== undefined;
    if (hasAmount === hasPercent) {
      issues.add(p, 'invalid_discount', 'give exactly one of amount or percent');
      return;
    }
    const amount = hasAmount
      ? parseDecimal(issues, `${p}/amount`, d.amount, { maxInt: 13, maxFrac: 5, sign: 'positive' })
      : null;
    const percent = hasPercent
      ? parseDecimal(issues, `${p}/percent`, d.percent, { maxInt: 3, maxFrac: 5, sign: 'positive' })
      : null;
    if (percent && percent.gt(HUNDRED)) issues.add(`${p}/percent`, 'out_of_range', 'at most 100');
    if (typeof d.code !== 'string' || !isCodigoDescuento(d.code)) {
      issues.add(`${p}/code`, 'unknown_code', `unknown CodigoDescuento "${String(d.code)}"`);
      return;
    }
    if (UNSUPPORTED_DISCOUNT_CODES.has(d.code)) {
      issues.add(
        `${p}/code`,
        'unsupported',
        `discount code ${d.code} (${CODIGOS_DESCUENTO[d.code]}) is not supported yet: IVA on regalías and bonificaciones is computed on MontoTotal`,
      );
    }
    const codeOther = textLength(issues, `${p}/codeOther`, d.codeOther, 5, 100, d.code === '99');
    const nature = textLength(issues, `${p}/nature`, d.nature, 3, 80, false) ?? CODIGOS_DESCUENTO[d.code];
    discounts.push({ amount, percent, code: d.code, codeOther, nature });
  });

  let exoneration: ValidLine['exoneration'] = null;
  if (line.exoneration !== undefined) {
    if (taxCode !== '01' || extra.factory === '02')
      issues.add(`${base}/exoneration`, 'not_allowed', 'an exoneration applies to IVA 01 only');
    exoneration = validateExoneration(issues, `${base}/exoneration`, line.exoneration, ivaRateCode);
  }
  if (line.ivaReturned !== undefined && exoneration)
    issues.add(`${base}/ivaReturned`, 'conflicting_fields', 'an exonerated line returns no IVA');

  if (issues.list.length > before || !quantity || !unitPrice || !extra.otherTaxes) return null;
  return {
    index,
    quantity,
    unitPrice,
    kind,
    iva:
      extra.factory === '02'
        ? null
        : { code: taxCode as IvaTaxCode, rateCode: ivaRateCode, factor: extra.factor },
    taxableBase: extra.taxableBase,
    factory: extra.factory,
    otherTaxes: extra.otherTaxes,
    assumedTax: extra.assumedTax,
    ivaReturned: line.ivaReturned === true,
    discounts,
    exoneration,
  };
}

/** Document types whose lines have IVACobradoFabrica and TotalIVADevuelto in their schema. */
const FACTORY_DOC_TYPES: ReadonlySet<string> = new Set(['01', '02', '03', '04']);

/**
 * The fields beside the IVA rate: FactorCalculoIVA (08), a stated BaseImponible (07 or factory
 * 01), IVACobradoFabrica, the other taxes, ImpuestoAsumidoEmisorFabrica and the IVA returned.
 */
function validateIvaExtras(
  issues: Issues,
  base: string,
  line: LineInput,
  taxCode: string,
  docType: TipoComprobante,
): {
  factor: Dec | null;
  taxableBase: Dec | null;
  factory: '01' | '02' | null;
  otherTaxes: ValidLine['otherTaxes'] | null;
  assumedTax: Dec;
} {
  let factor: Dec | null = null;
  if (line.ivaFactor !== undefined) {
    if (taxCode !== '08')
      issues.add(`${base}/ivaFactor`, 'not_applicable', 'FactorCalculoIVA applies to IVA 08 (bienes usados)');
    else
      factor = parseDecimal(issues, `${base}/ivaFactor`, line.ivaFactor, {
        maxInt: 1,
        maxFrac: 4,
        sign: 'positive',
      });
  } else if (taxCode === '08') {
    issues.add(`${base}/ivaFactor`, 'required', 'IVA 08 (bienes usados) needs its FactorCalculoIVA');
  }
  let factory: '01' | '02' | null = null;
  if (line.ivaCollectedAtFactory !== undefined) {
    if (line.ivaCollectedAtFactory !== '01' && line.ivaCollectedAtFactory !== '02')
      issues.add(`${base}/ivaCollectedAtFactory`, 'unknown_code', 'IVACobradoFabrica is 01 or 02');
    else if (!FACTORY_DOC_TYPES.has(docType))
      issues.add(
        `${base}/ivaCollectedAtFactory`,
        'not_allowed',
        `document type ${docType} has no IVACobradoFabrica`,
      );
    else if (taxCode !== '01')
      issues.add(
        `${base}/ivaCollectedAtFactory`,
        'conflicting_fields',
        'IVA cobrado a nivel de fábrica is IVA 01',
      );
    else factory = line.ivaCollectedAtFactory;
  }
  let taxableBase: Dec | null = null;
  if (line.taxableBase !== undefined) {
    if (taxCode !== '07' && line.ivaCollectedAtFactory !== '01')
      issues.add(
        `${base}/taxableBase`,
        'not_applicable',
        'BaseImponible may be stated only with IVA 07 (cálculo especial) or IVA cobrado a nivel de fábrica 01',
      );
    else
      taxableBase = parseDecimal(issues, `${base}/taxableBase`, line.taxableBase, {
        maxInt: 13,
        maxFrac: 5,
        sign: 'nonNegative',
      });
  }
  const before = issues.list.length;
  const otherTaxes =
    line.otherTaxes === undefined
      ? []
      : validateOtherTaxes((p, c, m) => issues.add(p, c, m), base, line.otherTaxes, docType);
  if (factory === '02' && otherTaxes && otherTaxes.length === 0 && issues.list.length === before)
    issues.add(
      `${base}/otherTaxes`,
      'tax_required',
      'with IVA cobrado a nivel de fábrica 02 the line has no IVA: it needs another tax (Impuesto 1..1000)',
    );
  let assumedTax = ZERO;
  if (line.assumedTax !== undefined) {
    if (docType === '08' || !otherTaxesAllowed(docType))
      issues.add(
        `${base}/assumedTax`,
        'not_allowed',
        `document type ${docType} has no ImpuestoAsumidoEmisorFabrica`,
      );
    else
      assumedTax =
        parseDecimal(issues, `${base}/assumedTax`, line.assumedTax, {
          maxInt: 13,
          maxFrac: 5,
          sign: 'nonNegative',
        }) ?? ZERO;
  }
  if (line.ivaReturned !== undefined) {
    if (typeof line.ivaReturned !== 'boolean')
      issues.add(`${base}/ivaReturned`, 'invalid_type', 'expected true or false');
    else if (line.ivaReturned && !FACTORY_DOC_TYPES.has(docType))
      issues.add(`${base}/ivaReturned`, 'not_allowed', `document type ${docType} has no TotalIVADevuelto`);
    else if (line.ivaReturned && (taxCode !== '01' || factory === '02'))
      issues.add(`${base}/ivaReturned`, 'not_allowed', 'the IVA returned on health services is IVA 01');
    else if (line.ivaReturned && line.assumedTax !== undefined)
      issues.add(`${base}/ivaReturned`, 'conflicting_fields', 'a line whose IVA is returned assumes no tax');
    else if (
      line.ivaReturned &&
      isCodigoTarifaIVA(line.ivaRateCode) &&
      new D(IVA_RATES[line.ivaRateCode].rate).isZero()
    )
      issues.add(
        `${base}/ivaReturned`,
        'not_allowed',
        `rate code ${line.ivaRateCode} carries no IVA to return`,
      );
  }
  return { factor, taxableBase, factory, otherTaxes, assumedTax };
}

function validateExoneration(
  issues: Issues,
  p: string,
  e: ExonerationInput,
  ivaRateCode: string,
): ValidLine['exoneration'] {
  const before = issues.list.length;
  if (typeof e.docType !== 'string' || !isTipoDocumentoExoneracion(e.docType)) {
    issues.add(`${p}/docType`, 'unknown_code', `unknown TipoDocumentoEX1 "${String(e.docType)}"`);
  }
  const docTypeOther = textLength(issues, `${p}/docTypeOther`, e.docTypeOther, 5, 100, e.docType === '99');
  const number = textLength(issues, `${p}/number`, e.number, 3, 40, true);
  for (const key of ['article', 'inciso'] as const) {
    const v = e[key];
    if (v !== undefined && (typeof v !== 'string' || !/^\d{1,6}$/.test(v))) {
      issues.add(`${p}/${key}`, 'invalid_format', 'expected up to 6 digits');
    }
  }
  if (typeof e.institution !== 'string' || !isInstitucionExoneracion(e.institution)) {
    issues.add(
      `${p}/institution`,
      'unknown_code',
      `unknown NombreInstitucion code "${String(e.institution)}"`,
    );
  }
  const institutionOther = textLength(
    issues,
    `${p}/institutionOther`,
    e.institutionOther,
    5,
    160,
    e.institution === '99',
  );
  const issuedAt = typeof e.issuedAt === 'string' ? new Date(e.issuedAt) : e.issuedAt;
  if (!(issuedAt instanceof Date) || Number.isNaN(issuedAt.getTime())) {
    issues.add(`${p}/issuedAt`, 'invalid_date', 'expected a valid date');
  }
  const rate = parseDecimal(issues, `${p}/rate`, e.rate, { maxInt: 2, maxFrac: 2, sign: 'positive' });
  if (rate && isCodigoTarifaIVA(ivaRateCode)) {
    const info = IVA_RATES[ivaRateCode];
    if (info.treatment !== 'gravado' || new D(info.rate).isZero()) {
      issues.add(
        `${p}`,
        'not_allowed',
        `an exoneration needs a taxed line; rate code ${ivaRateCode} carries no IVA`,
      );
    } else if (rate.gt(info.rate)) {
      issues.add(
        `${p}/rate`,
        'out_of_range',
        `TarifaExonerada cannot exceed the line's rate (${info.rate}%)`,
      );
    }
  }
  if (issues.list.length > before || !rate || number === null) return null;
  return {
    docType: e.docType,
    docTypeOther,
    number,
    article: e.article ?? null,
    inciso: e.inciso ?? null,
    institution: e.institution,
    institutionOther,
    issuedAt,
    rate,
  };
}

interface ComputedLine {
  result: LineTotals;
  // Decimal copies used for the summary.
  montoTotal: Dec;
  discountTotal: Dec;
  netTax: Dec;
  assumed: Dec;
  ivaReturned: Dec | null;
  split: { gravado: Dec | null; exento: Dec | null; exonerado: Dec | null; noSujeto: Dec | null };
}

function computeLine(issues: Issues, v: ValidLine): ComputedLine | null {
  const p = `/lines/${v.index}`;
  const montoTotal = r5(v.quantity.times(v.unitPrice));
  if (montoTotal.gt(MAX_AMOUNT)) {
    issues.add(p, 'amount_too_large', 'Cantidad × PrecioUnitario exceeds 13 integer digits');
    return null;
  }
  let remaining = montoTotal;
  const discounts: ResolvedDiscount[] = [];
  for (const [k, d] of v.discounts.entries()) {
    const amount = d.amount ?? r5(remaining.times(d.percent ?? ZERO).div(HUNDRED));
    if (amount.gt(remaining)) {
      issues.add(`${p}/discounts/${k}`, 'discount_exceeds_amount', 'the discounts exceed MontoTotal');
      return null;
    }
    remaining = remaining.minus(amount);
    discounts.push({ amount: fmt5(amount), code: d.code, codeOther: d.codeOther, nature: d.nature });
  }
  const subTotal = remaining;
  const discountTotal = montoTotal.minus(subTotal);
  const others = computeOtherTaxes(v.otherTaxes, v.quantity, subTotal);
  const baseImponible =
    v.taxableBase ??
    subTotal.plus(sum(others.filter((t) => BASE_TAX_CODES.has(t.code)).map((t) => t.amount)));

  const taxes: LineTax[] = [];
  let ivaAmount = ZERO;
  let exonerationAmount = ZERO;
  let rate = ZERO;
  let treatment: IvaTreatment = 'exento';
  let exoneration: ResolvedExoneration | null = null;
  if (v.iva) {
    const rateInfo = IVA_RATES[v.iva.rateCode];
    rate = new D(rateInfo.rate);
    treatment = rateInfo.treatment;
    ivaAmount = r5(v.iva.factor ? baseImponible.times(v.iva.factor) : baseImponible.times(rate).div(HUNDRED));
    if (v.exoneration) {
      exonerationAmount = r5(baseImponible.times(v.exoneration.rate).div(HUNDRED));
      exoneration = { ...v.exoneration, rate: fmt2(v.exoneration.rate), amount: fmt5(exonerationAmount) };
    }
    taxes.push({
      code: v.iva.code,
      ivaRateCode: v.iva.rateCode,
      rate: fmt2(rate),
      ...(v.iva.factor ? { factor: v.iva.factor.toFixed(4) } : {}),
      amount: fmt5(ivaAmount),
      exoneration,
    });
  }
  for (const t of others) {
    taxes.push({
      code: t.code,
      ivaRateCode: null,
      rate: t.rate,
      ...(t.codeOther ? { codeOther: t.codeOther } : {}),
      ...(t.specific ? { specific: t.specific } : {}),
      amount: fmt5(t.amount),
      exoneration: null,
    });
  }
  const gross = ivaAmount.plus(sum(others.map((t) => t.amount)));
  if (baseImponible.gt(MAX_AMOUNT) || gross.gt(MAX_AMOUNT)) {
    issues.add(p, 'amount_too_large', 'a tax or BaseImponible of the line exceeds 13 integer digits');
    return null;
  }
  const impuestoAsumido = v.assumedTax;
  if (impuestoAsumido.gt(gross.minus(exonerationAmount))) {
    issues.add(
      `${p}/assumedTax`,
      'assumed_exceeds_tax',
      `ImpuestoAsumidoEmisorFabrica cannot exceed the line's tax (${fmt5(gross.minus(exonerationAmount))})`,
    );
    return null;
  }
  const impuestoNeto = gross.minus(exonerationAmount).minus(impuestoAsumido);
  const montoTotalLinea = subTotal.plus(impuestoNeto);
  const ivaReturned = v.ivaReturned ? ivaAmount.minus(exonerationAmount) : null;

  const split: ComputedLine['split'] = { gravado: null, exento: null, exonerado: null, noSujeto: null };
  if (v.exoneration) {
    // The exonerated share of the sale is TarifaExonerada / Tarifa; a full exoneration leaves
    // nothing gravado.
    const exonerado = v.exoneration.rate.eq(rate)
      ? montoTotal
      : r5(montoTotal.times(v.exoneration.rate).div(rate));
    split.exonerado = exonerado;
    if (!exonerado.eq(montoTotal)) split.gravado = montoTotal.minus(exonerado);
  } else {
    split[treatment] = montoTotal;
  }

  const fmtOrNull = (d: Dec | null): Amount | null => (d === null ? null : fmt5(d));
  return {
    montoTotal,
    discountTotal,
    netTax: impuestoNeto,
    assumed: impuestoAsumido,
    ivaReturned,
    split,
    result: {
      lineNumber: v.index + 1,
      kind: v.kind,
      treatment,
      quantity: v.quantity.toFixed(3),
      unitPrice: fmt5(v.unitPrice),
      montoTotal: fmt5(montoTotal),
      discounts,
      discountTotal: fmt5(discountTotal),
      subTotal: fmt5(subTotal),
      ...(v.factory ? { ivaCollectedAtFactory: v.factory } : {}),
      baseImponible: fmt5(baseImponible),
      taxes,
      ...(ivaReturned ? { ivaReturned: fmt5(ivaReturned) } : {}),
      impuestoAsumidoEmisorFabrica: fmt5(impuestoAsumido),
      impuestoNeto: fmt5(impuestoNeto),
      montoTotalLinea: fmt5(montoTotalLinea),
      split: {
        gravado: fmtOrNull(split.gravado),
        exento: fmtOrNull(split.exento),
        exonerado: fmtOrNull(split.exonerado),
        noSujeto: fmtOrNull(split.noSujeto),
      },
    },
  };
}

interface ValidCharge {
  index: number;
  code: TipoOtroCargo;
  codeOther: string | null;
  detail: string;
  percent: Dec | null;
  amount: Dec | null;
  thirdParty: ResolvedOtherCharge['thirdParty'];
}

/** The service charge of restaurants (TipoDocumentoOC 06) is 10 % of the sale unless stated. */
const SERVICE_CHARGE_PERCENT = new D(10);

function validateOtherCharges(issues: Issues, charges: readonly OtherChargeInput[]): ValidCharge[] {
  const valid: ValidCharge[] = [];
  if (charges.length > MAX_OTHER_CHARGES) {
    issues.add('/otherCharges', 'too_many', `at most ${MAX_OTHER_CHARGES} other charges`);
  }
  charges.forEach((c, k) => {
    const p = `/otherCharges/${k}`;
    const before = issues.list.length;
    const known = typeof c.code === 'string' && isTipoOtroCargo(c.code);
    if (!known) issues.add(`${p}/code`, 'unknown_code', `unknown TipoDocumentoOC "${String(c.code)}"`);
    const codeOther = textLength(issues, `${p}/codeOther`, c.codeOther, 5, 100, c.code === '99');
    const detail =
      c.detail === undefined && known
        ? TIPOS_OTROS_CARGOS[c.code]
        : textLength(issues, `${p}/detail`, c.detail, 1, 160, true);
    let percent =
      c.percent === undefined
        ? null
        : parseDecimal(issues, `${p}/percent`, c.percent, { maxInt: 4, maxFrac: 5, sign: 'nonNegative' });
    const amount =
      c.amount === undefined
        ? null
        : parseDecimal(issues, `${p}/amount`, c.amount, { maxInt: 13, maxFrac: 5, sign: 'nonNegative' });
    if (amount === null && percent === null && c.amount === undefined && c.percent === undefined) {
      if (c.code === '06') percent = SERVICE_CHARGE_PERCENT;
      else issues.add(p, 'required', 'give amount or percent');
    }
    let thirdParty: ResolvedOtherCharge['thirdParty'] = null;
    if (c.thirdParty) {
      const name = textLength(issues, `${p}/thirdParty/name`, c.thirdParty.name, 5, 100, false);
      thirdParty = { idType: c.thirdParty.idType, idNumber: c.thirdParty.idNumber, name };
    }
    if (issues.list.length > before || detail === null) return;
    valid.push({ index: k, code: c.code, codeOther, detail, percent, amount, thirdParty });
  });
  return valid;
}

/** Amounts of the charges: as given, or their percentage of TotalVentaNeta. */
function computeOtherCharges(
  charges: readonly ValidCharge[],
  totalVentaNeta: Dec,
): { resolved: ResolvedOtherCharge[]; amounts: Dec[] } {
  const amounts = charges.map((c) => c.amount ?? r5(totalVentaNeta.times(c.percent ?? ZERO).div(HUNDRED)));
  const resolved = charges.map((c, i) => ({
    code: c.code,
    codeOther: c.codeOther,
    detail: c.detail,
    percent: c.percent ? fmt5(c.percent) : null,
    amount: fmt5(amounts[i]!),
    thirdParty: c.thirdParty,
  }));
  return { resolved, amounts };
}

/** MedioPago amounts: given ones checked, one missing amount takes the rest (see TotalsOptions). */
function resolvePayments(
  issues: Issues,
  payments: readonly PaymentInput[],
  totalComprobante: Dec,
): ResolvedPayment[] {
  if (payments.length > 4) issues.add('/payments', 'too_many', 'at most 4 payment methods (MedioPago)');
  const amounts: (Dec | null)[] = payments.map((pay, k) => {
    if (typeof pay.type !== 'string' || !isTipoMedioPago(pay.type))
      issues.add(`/payments/${k}/type`, 'unknown_code', `unknown TipoMedioPago "${String(pay.type)}"`);
    if (pay.type === '99' && textLength(issues, `/payments/${k}/other`, pay.other, 3, 100, true) === null)
      return null;
    if (pay.amount === undefined || pay.amount === null) return null;
    return parseDecimal(issues, `/payments/${k}/amount`, pay.amount, {
      maxInt: 13,
      maxFrac: 5,
      sign: 'positive',
    });
  });
  const open = payments.flatMap((pay, k) => (pay.amount === undefined || pay.amount === null ? [k] : []));
  if (issues.list.length > 0) return [];
  const out = (totals: (Dec | null)[]) =>
    payments.map((pay, k) => ({
      type: pay.type,
      other: pay.type === '99' ? (pay.other ?? null) : null,
      total: totals[k] ? fmt5(totals[k]) : null,
    }));
  if (payments.length === 1 && open.length === 1) return out([null]);
  if (open.length > 1) {
    issues.add('/payments', 'payment_amount_required', 'every payment but at most one gives its amount');
    return [];
  }
  const given = sum(amounts.filter((a): a is Dec => a !== null));
  const apiTotal = totalComprobante.toDecimalPlaces(2, D.ROUND_HALF_UP);
  if (open.length === 1) {
    const rest = totalComprobante.minus(given);
    if (rest.lte(0)) {
      issues.add(
        '/payments',
        'payments_exceed_total',
        `the amounts given reach the total ${fmt2(totalComprobante)}`,
      );
      return [];
    }
    amounts[open[0]!] = rest;
    return out(amounts);
  }
  if (given.eq(totalComprobante)) return out(amounts);
  if (given.eq(apiTotal)) {
    const last = amounts.length - 1;
    const adjusted = amounts[last]!.plus(totalComprobante.minus(apiTotal));
    if (adjusted.gt(0)) {
      amounts[last] = adjusted;
      return out(amounts);
    }
  }
  issues.add(
    '/payments',
    'payments_mismatch',
    `the payments add up to ${fmt2(given)}, the invoice total is ${fmt2(totalComprobante)}`,
  );
  return [];
}

// ---------------------------------------------------------------------------------------------
// Document totals

/**
 * Computes every line and ResumenFactura figure of a document. Throws DomainValidationError
 * listing every invalid input (paths are JSON Pointers relative to `{ lines, otherCharges }`).
 */
export function computeDocumentTotals(lines: readonly LineInput[], options: TotalsOptions): DocumentTotals {
  const issues = new Issues();
  const docType = options.docType ?? '01';
  if (!isTipoComprobante(docType))
    issues.add('/docType', 'unknown_code', `unknown document type "${docType}"`);
  if (typeof options.currency !== 'string' || !isCodigoMoneda(options.currency)) {
    issues.add('/currency', 'unknown_code', `unknown CodigoMoneda "${String(options.currency)}"`);
  }
  const exchangeRate = parseDecimal(issues, '/exchangeRate', options.exchangeRate, {
    maxInt: 13,
    maxFrac: 5,
    sign: 'positive',
  });
  if (exchangeRate && options.currency === 'CRC' && !exchangeRate.eq(1)) {
    issues.add('/exchangeRate', 'out_of_range', 'TipoCambio must be 1 for CRC');
  }
  const otherChargeInputs = options.otherCharges ?? [];
  if (lines.length > MAX_LINES) issues.add('/lines', 'too_many', `at most ${MAX_LINES} lines`);
  if (lines.length === 0 && otherChargeInputs.length === 0) {
    issues.add('/lines', 'required', 'a document needs at least one line');
  }

  const valid: ValidLine[] = [];
  lines.forEach((line, i) => {
    const v = validateLine(issues, line, i, docType);
    if (v) valid.push(v);
  });
  const charges = validateOtherCharges(issues, otherChargeInputs);
  if (issues.list.length > 0 || !exchangeRate) throw new DomainValidationError(issues.list);

  const computed: ComputedLine[] = [];
  for (const v of valid) {
    const c = computeLine(issues, v);
    if (c) computed.push(c);
  }
  if (issues.list.length > 0) throw new DomainValidationError(issues.list);

  // Buckets: [services, goods] × [gravado, exento, exonerado, noSujeto]; null until touched.
  type Bucket = 'gravado' | 'exento' | 'exonerado' | 'noSujeto';
  const buckets: Record<LineKind, Record<Bucket, Dec | null>> = {
    services: { gravado: null, exento: null, exonerado: null, noSujeto: null },
    goods: { gravado: null, exento: null, exonerado: null, noSujeto: null },
  };
  const breakdown = new Map<
    string,
    { code: CodigoImpuesto; ivaRateCode: CodigoTarifaIVA | null; amount: Dec }
  >();
  let anyAssumed = false;
  let anyReturned = false;
  let anyDiscount = false;
  for (const c of computed) {
    const row = buckets[c.result.kind];
    for (const b of ['gravado', 'exento', 'exonerado', 'noSujeto'] as const) {
      const part = c.split[b];
      if (part !== null) row[b] = (row[b] ?? ZERO).plus(part);
    }
    if (c.result.discounts.length > 0) anyDiscount = true;
    if (c.assumed.gt(0)) anyAssumed = true;
    if (c.ivaReturned) anyReturned = true;
    for (const t of c.result.taxes) {
      const key = `${t.code}|${t.ivaRateCode ?? ''}`;
      const net = new D(t.amount).minus(t.exoneration ? t.exoneration.amount : ZERO);
      const entry = breakdown.get(key);
      if (entry) entry.amount = entry.amount.plus(net);
      else breakdown.set(key, { code: t.code, ivaRateCode: t.ivaRateCode, amount: net });
    }
  }
  const both = (b: Bucket): Dec | null => {
    const s = buckets.services[b];
    const g = buckets.goods[b];
    return s === null && g === null ? null : (s ?? ZERO).plus(g ?? ZERO);
  };
  const totalGravado = both('gravado');
  const totalExento = both('exento');
  const totalExonerado = both('exonerado');
  const totalNoSujeto = both('noSujeto');
  const totalVenta = sum(
    [totalGravado, totalExento, totalExonerado, totalNoSujeto].filter((x) => x !== null),
  );
  const totalDescuentos = sum(computed.map((c) => c.discountTotal));
  const totalVentaNeta = totalVenta.minus(totalDescuentos);
  const totalImpuesto = sum(computed.map((c) => c.netTax));
  const other = computeOtherCharges(charges, totalVentaNeta);
  const totalOtrosCargos = sum(other.amounts);
  const totalAsumido = sum(computed.map((c) => c.assumed));
  const totalIVADevuelto = sum(computed.map((c) => c.ivaReturned ?? ZERO));
  const totalComprobante = totalVentaNeta.plus(totalImpuesto).plus(totalOtrosCargos).minus(totalIVADevuelto);
  if (totalComprobante.gt(MAX_AMOUNT)) {
    throw new DomainValidationError([
      { path: '/lines', code: 'amount_too_large', message: 'TotalComprobante exceeds 13 integer digits' },
    ]);
  }
  const medioPago = options.payments ? resolvePayments(issues, options.payments, totalComprobante) : null;
  if (issues.list.length > 0) throw new DomainValidationError(issues.list);

  const opt = (d: Dec | null): Amount | null => (d === null ? null : fmt5(d));
  return {
    lines: computed.map((c) => c.result),
    otherCharges: other.resolved,
    summary: {
      currency: options.currency,
      exchangeRate: fmt5(exchangeRate),
      totalServGravados: opt(buckets.services.gravado),
      totalServExentos: opt(buckets.services.exento),
      totalServExonerado: opt(buckets.services.exonerado),
      totalServNoSujeto: opt(buckets.services.noSujeto),
      totalMercanciasGravadas: opt(buckets.goods.gravado),
      totalMercanciasExentas: opt(buckets.goods.exento),
      totalMercExonerada: opt(buckets.goods.exonerado),
      totalMercNoSujeta: opt(buckets.goods.noSujeto),
      totalGravado: opt(totalGravado),
      totalExento: opt(totalExento),
      totalExonerado: opt(totalExonerado),
      totalNoSujeto: opt(totalNoSujeto),
      totalVenta: fmt5(totalVenta),
      totalDescuentos: anyDiscount ? fmt5(totalDescuentos) : null,
      totalVentaNeta: fmt5(totalVentaNeta),
      totalDesgloseImpuesto: [...breakdown.values()].map((b) => ({
        code: b.code,
        ivaRateCode: b.ivaRateCode,
        amount: fmt5(b.amount),
      })),
      totalImpuesto: fmt5(totalImpuesto),
      totalImpAsumEmisorFabrica: anyAssumed ? fmt5(totalAsumido) : null,
      totalIVADevuelto: anyReturned ? fmt5(totalIVADevuelto) : null,
      totalOtrosCargos: other.resolved.length > 0 ? fmt5(totalOtrosCargos) : null,
      ...(medioPago ? { medioPago } : {}),
      totalComprobante: fmt5(totalComprobante),
    },
    total: fmt2(totalComprobante),
  };
}

/** Validates a money string (≥ 0, ≤ 13 integer digits, ≤ 5 decimals) and writes it with 5 decimals. */
export function formatAmount(value: string, path = ''): Amount {
  const issues = new Issues();
  const d = parseDecimal(issues, path, value, { maxInt: 13, maxFrac: 5, sign: 'nonNegative' });
  if (!d) throw new DomainValidationError(issues.list);
  return fmt5(d);
}

/** An amount in the document currency converted to colones with TipoCambio, rounded to 5 decimals. */
export function toColones(amount: string, exchangeRate: string): Amount {
  return fmt5(r5(new D(amount).times(exchangeRate)));
}
