// The shapes of a totals computation (domain/totals.ts): what a request's lines, charges and
// payments carry in, and what comes out per line and for the ResumenFactura, named after the XML.
import {
  type CodigoDescuento,
  type CodigoImpuesto,
  type CodigoMoneda,
  type CodigoTarifaIVA,
  type IdentificationType,
  type InstitucionExoneracion,
  type IvaTreatment,
  type LineKind,
  type TipoComprobante,
  type TipoDocumentoExoneracion,
  type TipoMedioPago,
  type TipoOtroCargo,
  type UnidadMedida,
} from './codes.ts';
import type { Amount } from './decimal-input.ts';
import { type OtherTaxInput, type SpecificTaxData } from './other-taxes.ts';

export type { Amount };

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
  /** A credit note's line: amounts taken as given instead of computed (StatedAmounts). */
  stated?: StatedAmounts;
}

/**
 * Amounts of a credit note's line taken as given instead of computed (domain/note-credits.ts): a
 * fixed-amount tax prorated by quantity, and what the earlier notes left of a line's discounts,
 * fixed-amount taxes, stated base and assumed tax when a note takes its last units (its rate taxes
 * are computed from its base, as Hacienda recomputes them). Credit notes (03) only.
 */
export interface StatedAmounts {
  /** MontoTotal, instead of Cantidad × PrecioUnitario. */
  montoTotal?: string;
  /** Monto of each tax in the line's order (the IVA first, then the other taxes); null: computed. */
  taxes?: readonly (string | null)[];
  /** MontoExoneracion of the IVA. */
  exoneration?: string;
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
  /**
   * A note on a document that returned IVA: that document's TotalIVADevuelto and the IVA of its
   * `ivaReturned` lines. The note returns the same share of its own returned lines' IVA (the whole
   * note exactly the document's amount), instead of deriving it from payments it does not split.
   */
  ivaReturnedOf?: { returned: string; iva: string };
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
