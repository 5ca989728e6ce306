// One line of a comprobante: its fields validated (codes, decimals, discounts, exoneration, the
// other taxes and the IVA extras each document type allows) and its amounts computed as
// domain/totals.ts describes (MontoTotal → SubTotal → BaseImponible → taxes → MontoTotalLinea).
import {
  CODIGOS_DESCUENTO,
  IVA_RATES,
  BASE_TAX_CODES,
  isIvaTaxCode,
  isCodigoDescuento,
  isCodigoImpuesto,
  isCodigoTarifaIVA,
  isInstitucionExoneracion,
  isIvaRateAllowed,
  isTipoDocumentoExoneracion,
  isUnidadMedida,
  unitKind,
  type CodigoDescuento,
  type CodigoTarifaIVA,
  type IvaTaxCode,
  type IvaTreatment,
  type LineKind,
  type TipoComprobante,
} from './codes.ts';
import { computeOtherTaxes, otherTaxesAllowed, validateOtherTaxes } from './other-taxes.ts';
import {
  D,
  type Dec,
  type Issues,
  ZERO,
  HUNDRED,
  MAX_AMOUNT,
  MAX_DISCOUNTS,
  parseDecimal,
  textLength,
  r5,
  fmt5,
  fmt5OrNull,
  fmt2,
  sum,
  toFixedHalfUp,
} from './decimal-input.ts';
import type {
  ExonerationInput,
  LineInput,
  ResolvedDiscount,
  ResolvedExoneration,
  LineTax,
  LineTotals,
} from './totals-types.ts';

// ---------------------------------------------------------------------------------------------
// Line computation

export interface ValidLine {
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
  stated: { montoTotal: Dec | null; taxes: (Dec | null)[]; exoneration: Dec | null } | null;
}

// Regalías and bonificaciones carry IVA on MontoTotal (tax not reduced by the discount); that
// treatment is not modelled yet, so these codes are refused rather than computed wrongly.
export const UNSUPPORTED_DISCOUNT_CODES: ReadonlySet<CodigoDescuento> = new Set<CodigoDescuento>([
  '01',
  '02',
  '03',
]);

export function validateLine(
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
  const kind = validateKind(issues, base, line);
  const taxCode = line.taxCode ?? '01';
  checkTaxCode(issues, base, taxCode, docType);
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
  const discounts = validateDiscounts(issues, base, line.discounts ?? []);

  let exoneration: ValidLine['exoneration'] = null;
  if (line.exoneration !== undefined) {
    if (taxCode !== '01' || extra.factory === '02')
      issues.add(`${base}/exoneration`, 'not_allowed', 'an exoneration applies to IVA 01 only');
    exoneration = validateExoneration(issues, `${base}/exoneration`, line.exoneration, ivaRateCode);
  }
  if (line.ivaReturned !== undefined && exoneration)
    issues.add(`${base}/ivaReturned`, 'conflicting_fields', 'an exonerated line returns no IVA');

  const stated =
    line.stated === undefined
      ? null
      : validateStated(
          issues,
          base,
          line,
          docType,
          (extra.factory === '02' ? 0 : 1) + (extra.otherTaxes?.length ?? 0),
        );
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
    stated,
  };
}

/** Goods or services: by the unit (codes.ts unitKind), or as the line's `kind` says. */
function validateKind(issues: Issues, base: string, line: LineInput): LineKind {
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
  return kind;
}

/** The line's IVA code: 01, 07 or 08, and 07 or 08 only where the document type has other taxes. */
function checkTaxCode(issues: Issues, base: string, taxCode: string, docType: TipoComprobante): void {
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
}

/** The line's discounts, each an amount or a percentage with its code (at most MAX_DISCOUNTS). */
function validateDiscounts(
  issues: Issues,
  base: string,
  discountInputs: NonNullable<LineInput['discounts']>,
): ValidLine['discounts'] {
  const discounts: ValidLine['discounts'] = [];
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
  return discounts;
}

/** A credit note line's stated amounts (LineInput.stated): money figures, one per tax at most. */
function validateStated(
  issues: Issues,
  base: string,
  line: LineInput,
  docType: TipoComprobante,
  taxCount: number,
): ValidLine['stated'] {
  const p = `${base}/stated`;
  const s = line.stated!;
  if (docType !== '03') {
    issues.add(p, 'not_allowed', 'only a credit note states the amounts of its lines');
    return null;
  }
  const money = (path: string, v: unknown) =>
    parseDecimal(issues, path, v, { maxInt: 13, maxFrac: 5, sign: 'nonNegative' });
  const taxes = s.taxes ?? [];
  if (taxes.length > taxCount) issues.add(`${p}/taxes`, 'too_many', `the line has ${taxCount} taxes`);
  if (s.exoneration !== undefined && line.exoneration === undefined)
    issues.add(`${p}/exoneration`, 'not_applicable', 'the line has no exoneration');
  return {
    montoTotal: s.montoTotal === undefined ? null : money(`${p}/montoTotal`, s.montoTotal),
    taxes: taxes.map((t, k) => (t === null ? null : money(`${p}/taxes/${k}`, t))),
    exoneration: s.exoneration === undefined ? null : money(`${p}/exoneration`, s.exoneration),
  };
}

/** Document types whose lines have IVACobradoFabrica and TotalIVADevuelto in their schema. */
export const FACTORY_DOC_TYPES: ReadonlySet<string> = new Set(['01', '02', '03', '04']);

/**
 * The fields beside the IVA rate: FactorCalculoIVA (08), a stated BaseImponible (07 or factory
 * 01), IVACobradoFabrica, the other taxes, ImpuestoAsumidoEmisorFabrica and the IVA returned.
 */
export function validateIvaExtras(
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
  const factor = validateIvaFactor(issues, base, line, taxCode);
  const factory = validateFactory(issues, base, line, taxCode, docType);
  const taxableBase = validateTaxableBase(issues, base, line, taxCode);
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
  const assumedTax = validateAssumedTax(issues, base, line, docType);
  if (line.ivaReturned !== undefined) checkIvaReturned(issues, base, line, taxCode, docType, factory);
  return { factor, taxableBase, factory, otherTaxes, assumedTax };
}

/** FactorCalculoIVA: required with IVA 08 (bienes usados), refused with any other. */
function validateIvaFactor(issues: Issues, base: string, line: LineInput, taxCode: string): Dec | null {
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
  return factor;
}

/** IVACobradoFabrica (01 or 02): IVA 01 only, in the document types whose schema has it. */
function validateFactory(
  issues: Issues,
  base: string,
  line: LineInput,
  taxCode: string,
  docType: TipoComprobante,
): '01' | '02' | null {
  let factory: '01' | '02' | null = null;
  if (line.ivaCollectedAtFactory !== undefined) {
    if (line.ivaCollectedAtFactory !== '01' && line.ivaCollectedAtFactory !== '02')
      issues.add(`${base}/ivaCollectedAtFactory`, 'unknown_code', 'IVACobradoFabrica is 01 or 02');
    // A recibo de pago writes no IVACobradoFabrica, but a line settling goods whose IVA the
    // factory collected (02) carries no IVA there either.
    else if (!FACTORY_DOC_TYPES.has(docType) && docType !== '10')
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
  return factory;
}

/** A stated BaseImponible: with IVA 07 (cálculo especial) or IVA cobrado a nivel de fábrica 01 only. */
function validateTaxableBase(issues: Issues, base: string, line: LineInput, taxCode: string): Dec | null {
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
  return taxableBase;
}

/** ImpuestoAsumidoEmisorFabrica: zero unless stated, where the document type has it. */
function validateAssumedTax(issues: Issues, base: string, line: LineInput, docType: TipoComprobante): Dec {
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
  return assumedTax;
}

/** `ivaReturned`: a boolean, and true only for a line of IVA 01 at a rate above zero that assumes no tax. */
function checkIvaReturned(
  issues: Issues,
  base: string,
  line: LineInput,
  taxCode: string,
  docType: TipoComprobante,
  factory: '01' | '02' | null,
): void {
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

export function validateExoneration(
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

export interface ComputedLine {
  result: LineTotals;
  // Decimal copies used for the summary.
  montoTotal: Dec;
  discountTotal: Dec;
  netTax: Dec;
  assumed: Dec;
  ivaReturned: Dec | null;
  split: { gravado: Dec | null; exento: Dec | null; exonerado: Dec | null; noSujeto: Dec | null };
  /** Each tax's Monto less its MontoExoneracion, in `result.taxes` order (TotalDesgloseImpuesto). */
  taxNets: Dec[];
}

export function computeLine(issues: Issues, v: ValidLine): ComputedLine | null {
  const p = `/lines/${v.index}`;
  const stated = v.stated;
  const montoTotal = stated?.montoTotal ?? r5(v.quantity.times(v.unitPrice));
  if (montoTotal.gt(MAX_AMOUNT)) {
    issues.add(p, 'amount_too_large', 'Cantidad × PrecioUnitario exceeds 13 integer digits');
    return null;
  }
  const resolved = resolveDiscounts(issues, p, v, montoTotal);
  if (!resolved) return null;
  const { discounts, subTotal } = resolved;
  const discountTotal = montoTotal.minus(subTotal);
  const offset = v.iva ? 1 : 0;
  const others = computeOtherTaxes(v.otherTaxes, v.quantity, subTotal).map((t, k) => {
    const given = stated?.taxes[offset + k];
    return given ? { ...t, amount: given } : t;
  });
  const baseImponible =
    v.taxableBase ??
    subTotal.plus(sum(others.filter((t) => BASE_TAX_CODES.has(t.code)).map((t) => t.amount)));

  const { ivaAmount, exonerationAmount, rate, treatment, ivaTax } = computeIva(v, baseImponible);
  const taxes: LineTax[] = [...(ivaTax ? [ivaTax] : []), ...others.map(otherTaxRow)];
  // The figures of `taxes` as written (rounded to 5 decimals), less the exoneration.
  const taxNets = [
    ...(ivaTax ? [r5(ivaAmount).minus(r5(exonerationAmount))] : []),
    ...others.map((t) => r5(t.amount)),
  ];
  const gross = ivaAmount.plus(sum(others.map((t) => t.amount)));
  if (baseImponible.gt(MAX_AMOUNT) || gross.gt(MAX_AMOUNT)) {
    issues.add(p, 'amount_too_large', 'a tax or BaseImponible of the line exceeds 13 integer digits');
    return null;
  }
  const impuestoAsumido = v.assumedTax;
  const taxAfterExoneration = gross.minus(exonerationAmount);
  if (impuestoAsumido.gt(taxAfterExoneration)) {
    issues.add(
      `${p}/assumedTax`,
      'assumed_exceeds_tax',
      `ImpuestoAsumidoEmisorFabrica cannot exceed the line's tax (${fmt5(taxAfterExoneration)})`,
    );
    return null;
  }
  const impuestoNeto = taxAfterExoneration.minus(impuestoAsumido);
  const montoTotalLinea = subTotal.plus(impuestoNeto);
  const ivaReturned = v.ivaReturned ? ivaAmount.minus(exonerationAmount) : null;

  const split = splitByTreatment(v, montoTotal, rate, treatment);

  return {
    montoTotal,
    discountTotal,
    netTax: impuestoNeto,
    assumed: impuestoAsumido,
    ivaReturned,
    split,
    taxNets,
    result: {
      lineNumber: v.index + 1,
      kind: v.kind,
      treatment,
      quantity: toFixedHalfUp(v.quantity, 3),
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
        gravado: fmt5OrNull(split.gravado),
        exento: fmt5OrNull(split.exento),
        exonerado: fmt5OrNull(split.exonerado),
        noSujeto: fmt5OrNull(split.noSujeto),
      },
    },
  };
}

/** The discounts applied in order, each a percentage of what the earlier ones left; null when they exceed MontoTotal. */
function resolveDiscounts(
  issues: Issues,
  p: string,
  v: ValidLine,
  montoTotal: Dec,
): { discounts: ResolvedDiscount[]; subTotal: Dec } | null {
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
  return { discounts, subTotal: remaining };
}

/** Each IVA rate code's Tarifa as a Decimal, parsed once (decimals are immutable). */
const IVA_RATE_DECIMALS: ReadonlyMap<string, Dec> = new Map(
  Object.entries(IVA_RATES).map(([code, info]) => [code, new D(info.rate)]),
);

/** The line's IVA on BaseImponible (or as a credit note states it), with its exoneration; none under IVACobradoFabrica 02. */
function computeIva(
  v: ValidLine,
  baseImponible: Dec,
): { ivaAmount: Dec; exonerationAmount: Dec; rate: Dec; treatment: IvaTreatment; ivaTax: LineTax | null } {
  if (!v.iva) {
    return { ivaAmount: ZERO, exonerationAmount: ZERO, rate: ZERO, treatment: 'exento', ivaTax: null };
  }
  const stated = v.stated;
  const rateInfo = IVA_RATES[v.iva.rateCode];
  const rate = IVA_RATE_DECIMALS.get(v.iva.rateCode) ?? new D(rateInfo.rate);
  const ivaAmount =
    stated?.taxes[0] ??
    r5(v.iva.factor ? baseImponible.times(v.iva.factor) : baseImponible.times(rate).div(HUNDRED));
  let exonerationAmount = ZERO;
  let exoneration: ResolvedExoneration | null = null;
  if (v.exoneration) {
    exonerationAmount = stated?.exoneration ?? r5(baseImponible.times(v.exoneration.rate).div(HUNDRED));
    exoneration = { ...v.exoneration, rate: fmt2(v.exoneration.rate), amount: fmt5(exonerationAmount) };
  }
  const ivaTax: LineTax = {
    code: v.iva.code,
    ivaRateCode: v.iva.rateCode,
    rate: fmt2(rate),
    ...(v.iva.factor ? { factor: toFixedHalfUp(v.iva.factor, 4) } : {}),
    amount: fmt5(ivaAmount),
    exoneration,
  };
  return { ivaAmount, exonerationAmount, rate, treatment: rateInfo.treatment, ivaTax };
}

/** One of the line's other taxes as the line shows it. */
function otherTaxRow(t: ReturnType<typeof computeOtherTaxes>[number]): LineTax {
  return {
    code: t.code,
    ivaRateCode: null,
    rate: t.rate,
    ...(t.codeOther ? { codeOther: t.codeOther } : {}),
    ...(t.specific ? { specific: t.specific } : {}),
    amount: fmt5(t.amount),
    exoneration: null,
  };
}

/** The line's MontoTotal in its summary bucket; an exonerated line split into exonerado and gravado. */
function splitByTreatment(
  v: ValidLine,
  montoTotal: Dec,
  rate: Dec,
  treatment: IvaTreatment,
): ComputedLine['split'] {
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
  return split;
}
