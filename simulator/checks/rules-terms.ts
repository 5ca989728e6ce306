// Business rules on the terms of the sale and the summary: PlazoCredito with credit conditions
// (and a positive number of days, Hacienda's -58),
// the description every code 99 ("Otros") needs, MedioPago amounts, TotalDesgloseImpuesto listing
// each tax of the lines once, NumeroLinea in sequence, and OtrosCargos (the third party of a
// charge collected for one, a percentage that matches its amount).
import { Dec, f5, num, row, sum, ZERO } from './rule-context.ts';
import type { D, Rule } from './rule-context.ts';
import { RULE_CODES as C, RULE_TEXTS as T } from './rule-texts.ts';
import { child, children, descendants, text } from './xml-reader.ts';
import type { Row } from './verdict.ts';

/** CondicionVenta codes sold on credit (nota 5): crédito, servicios al Estado a crédito, IVA 90 días. */
const CREDIT_CONDITIONS = new Set(['02', '08', '10']);

export const creditTermRule: Rule = ({ root }) => {
  const condicion = text(root, 'CondicionVenta') ?? '';
  const plazo = text(root, 'PlazoCredito') ?? '';
  // The schema makes it an integer of up to 5 digits; a term of no days is no structure either (-58).
  if (plazo !== '' && !/^0*[1-9]\d*$/.test(plazo))
    return [row(C.creditTermStructure, T.creditTermStructure(plazo))];
  if (!CREDIT_CONDITIONS.has(condicion) || plazo !== '') return [];
  return [row(C.creditTerm, T.creditTerm(condicion))];
};

/** [element holding the code, code field, field required with 99] (XSD annotations, nota 5-20). */
const OTHER_TEXTS: readonly [string | null, string, string][] = [
  [null, 'CondicionVenta', 'CondicionVentaOtros'],
  ['MedioPago', 'TipoMedioPago', 'MedioPagoOtros'],
  ['Descuento', 'CodigoDescuento', 'CodigoDescuentoOTRO'],
  ['Impuesto', 'Codigo', 'CodigoImpuestoOTRO'],
  ['Exoneracion', 'TipoDocumentoEX1', 'TipoDocumentoOTRO'],
  ['Exoneracion', 'NombreInstitucion', 'NombreInstitucionOtros'],
  ['OtrosCargos', 'TipoDocumentoOC', 'TipoDocumentoOTROS'],
  ['InformacionReferencia', 'TipoDocIR', 'TipoDocRefOTRO'],
  ['InformacionReferencia', 'Codigo', 'CodigoReferenciaOTRO'],
];

export const otherTextsRule: Rule = ({ root }) => {
  const rows: Row[] = [];
  for (const [holder, codeField, textField] of OTHER_TEXTS) {
    const holders = holder === null ? [root] : descendants(root, holder);
    for (const el of holders) {
      if (text(el, codeField) === '99' && !text(el, textField)) {
        rows.push(row(C.otherTexts, T.otherTexts(textField, codeField)));
      }
    }
  }
  return rows;
};

export const paymentMethodsRule: Rule = ({ root }) => {
  const resumen = child(root, 'ResumenFactura');
  const medios = children(resumen, 'MedioPago');
  const amounts = medios.map((m) => num(m, 'TotalMedioPago'));
  const rows: Row[] = [];
  if (medios.length > 1 && amounts.some((a) => a === null)) {
    rows.push(row(C.paymentMethods, T.paymentTotalRequired));
  }
  const total = num(resumen, 'TotalComprobante');
  if (total && amounts.some((a) => a !== null)) {
    const paid = sum(amounts);
    if (!paid.eq(total)) rows.push(row(C.totals, T.paymentTotals(f5(total), f5(paid))));
  }
  return rows;
};

export const taxBreakdownRule: Rule = ({ root }) => {
  const resumen = child(root, 'ResumenFactura');
  const lineTaxes = new Set<string>();
  for (const line of children(child(root, 'DetalleServicio'), 'LineaDetalle')) {
    for (const t of children(line, 'Impuesto')) {
      lineTaxes.add(`${text(t, 'Codigo') ?? ''}|${text(t, 'CodigoTarifaIVA') ?? ''}`);
    }
  }
  if (!resumen || lineTaxes.size === 0) return [];
  const rows: Row[] = [];
  const stated = children(resumen, 'TotalDesgloseImpuesto').map((d) => ({
    codigo: text(d, 'Codigo') ?? '',
    tarifa: text(d, 'CodigoTarifaIVA') ?? '',
  }));
  const covers = (s: { codigo: string; tarifa: string }, key: string) => {
    const [codigo, tarifa] = key.split('|') as [string, string];
    return s.codigo === codigo && (s.tarifa === '' || s.tarifa === tarifa);
  };
  const seen = new Set<string>();
  for (const s of stated) {
    const key = `${s.codigo}|${s.tarifa}`;
    if (seen.has(key)) rows.push(row(C.totals, T.breakdownRepeated(s.codigo, s.tarifa)));
    seen.add(key);
    if (![...lineTaxes].some((k) => covers(s, k)))
      rows.push(row(C.totals, T.breakdownExtra(s.codigo, s.tarifa)));
  }
  for (const key of lineTaxes) {
    if (!stated.some((s) => covers(s, key))) {
      const [codigo, tarifa] = key.split('|') as [string, string];
      rows.push(row(C.totals, T.breakdownMissing(codigo, tarifa)));
    }
  }
  return rows;
};

export const lineNumbersRule: Rule = ({ root }) => {
  const lines = children(child(root, 'DetalleServicio'), 'LineaDetalle');
  for (const [i, line] of lines.entries()) {
    const n = text(line, 'NumeroLinea') ?? '';
    if (n !== String(i + 1)) return [row(C.lineNumbers, T.lineNumbers(i + 1, n))];
  }
  return [];
};

// A charge stated as a percentage may be computed on the sale before or after discounts, or on
// the net sale plus tax; Hacienda does not say which, so any of them is accepted, rounded to 5 or
// to 2 decimals.
const CHARGE_TOLERANCE = new Dec('0.005');

export const otherChargesRule: Rule = ({ root }) => {
  const resumen = child(root, 'ResumenFactura');
  const venta = num(resumen, 'TotalVenta') ?? ZERO;
  const neta = num(resumen, 'TotalVentaNeta') ?? ZERO;
  const bases: D[] = [venta, neta, neta.plus(num(resumen, 'TotalImpuesto') ?? ZERO)];
  const rows: Row[] = [];
  children(root, 'OtrosCargos').forEach((cargo, i) => {
    const k = i + 1;
    if (
      text(cargo, 'TipoDocumentoOC') === '04' &&
      (!child(cargo, 'IdentificacionTercero') || !text(cargo, 'NombreTercero'))
    ) {
      rows.push(row(C.otherCharges, T.otherChargeThirdParty(k)));
    }
    const percent = num(cargo, 'PorcentajeOC');
    const amount = num(cargo, 'MontoCargo');
    if (percent === null || amount === null) return;
    const fits = bases.some((b) => b.times(percent).div(100).minus(amount).abs().lte(CHARGE_TOLERANCE));
    if (!fits) rows.push(row(C.totals, T.otherChargeAmount(k, f5(amount))));
  });
  return rows;
};
