// Business rules that compare amounts and dates across parts of a document: exonerations (rate
// not above the tax's, amount = base × exonerated rate, issued before the document, reported in
// the exonerated totals), InformacionReferencia (a real clave where the type names an electronic
// document, not dated after the document) and FechaEmision not ahead of the official clock. A
// document sent late is not rejected: Hacienda accepts it with the observation -16
// (lateIssueObservation, read by checks/observations.ts).
import { f5, HALF_UNIT, num, row, sum, ZERO } from './rule-context.ts';
import type { D, Rule } from './rule-context.ts';
import { RULE_CODES as C, RULE_TEXTS as T } from './rule-texts.ts';
import { child, children, text } from './xml-reader.ts';
import type { Row } from './verdict.ts';

const date = (value: string | null): number | null => {
  const t = value === null ? NaN : Date.parse(value);
  return Number.isNaN(t) ? null : t;
};

export const exonerationRule: Rule = ({ root, fechaEmision }) => {
  const rows: Row[] = [];
  const shares: D[] = [];
  for (const line of children(child(root, 'DetalleServicio'), 'LineaDetalle')) {
    const n = text(line, 'NumeroLinea') ?? '?';
    const base = num(line, 'BaseImponible');
    const montoTotal = num(line, 'MontoTotal');
    for (const tax of children(line, 'Impuesto')) {
      const ex = child(tax, 'Exoneracion');
      if (!ex) continue;
      const tarifa = num(tax, 'Tarifa');
      const exonerated = num(ex, 'TarifaExonerada');
      if (tarifa && exonerated && exonerated.gt(tarifa)) {
        rows.push(row(C.exoneration, T.exonerationRate(n, exonerated.toFixed(2), tarifa.toFixed(2))));
      }
      const issued = date(text(ex, 'FechaEmisionEX'));
      if (issued !== null && fechaEmision !== null && issued > fechaEmision) {
        rows.push(row(C.exoneration, T.exonerationDate(n)));
      }
      const amount = num(ex, 'MontoExoneracion');
      if (base && exonerated && amount) {
        const exact = base.times(exonerated).div(100);
        if (amount.minus(exact).abs().gt(HALF_UNIT)) {
          rows.push(row(C.totals, T.exonerationAmount(n, f5(exact), f5(amount))));
        }
      }
      // The exonerated share of the sale: all of it, or TarifaExonerada / Tarifa of it.
      if (montoTotal && tarifa && exonerated && tarifa.gt(0)) {
        shares.push(exonerated.gte(tarifa) ? montoTotal : montoTotal.times(exonerated).div(tarifa));
      }
    }
  }
  if (shares.length > 0) {
    const resumen = child(root, 'ResumenFactura');
    const stated = (num(resumen, 'TotalServExonerado') ?? ZERO).plus(
      num(resumen, 'TotalMercExonerada') ?? ZERO,
    );
    const expected = sum(shares);
    // Each line's share is rounded to 5 decimals on its own.
    if (stated.minus(expected).abs().gt(HALF_UNIT.times(shares.length))) {
      rows.push(row(C.totals, T.exonerationBuckets(f5(expected), f5(stated))));
    }
  }
  return rows;
};

// TipoDocIR (nota 10) that name an electronic document, and the consecutivo types such a
// document may have (positions 9-10 of its consecutivo).
const REFERENCED_TYPES: Readonly<Record<string, readonly string[]>> = {
  '01': ['01'],
  '02': ['02'],
  '03': ['03'],
  '04': ['04'],
  '10': ['01', '02', '03', '04', '08', '09', '10'],
  '11': ['01'],
  '12': ['09'],
  '15': ['08'],
  '17': ['08'],
  '18': ['08'],
  '19': ['09'],
  '20': ['10'],
};

const CLAVE = /^506(\d{2})(\d{2})\d{2}[A-Za-z0-9]{12}(\d{20})[123]\d{8}$/;

function isClaveOf(numero: string, types: readonly string[]): boolean {
  const m = CLAVE.exec(numero);
  if (!m) return false;
  const [day, month] = [Number(m[1]), Number(m[2])];
  return day >= 1 && day <= 31 && month >= 1 && month <= 12 && types.includes(m[3]!.slice(8, 10));
}

export const referencesRule: Rule = ({ root, fechaEmision }) => {
  const rows: Row[] = [];
  children(root, 'InformacionReferencia').forEach((ref, i) => {
    const k = i + 1;
    const tipo = text(ref, 'TipoDocIR') ?? '';
    const types = REFERENCED_TYPES[tipo];
    if (types && !isClaveOf(text(ref, 'Numero') ?? '', types)) {
      rows.push(row(C.references, T.referenceClave(k, tipo)));
    }
    const issued = date(text(ref, 'FechaEmisionIR'));
    if (issued !== null && fechaEmision !== null && issued > fechaEmision) {
      rows.push(row(C.references, T.referenceDate(k)));
    }
  });
  return rows;
};

export const issueDateRule: Rule = ({ fechaEmision, now, maxClockSkewMs }) => {
  if (fechaEmision === null) return [];
  if (fechaEmision > now + maxClockSkewMs) return [row(C.issueDateFuture, T.issueDateFuture)];
  return [];
};

/** -16: FechaEmision older than the sending window (an observation on an accepted document). */
export const lateIssueObservation: Rule = ({ fechaEmision, now, maxDocumentAgeMs }) =>
  fechaEmision !== null && fechaEmision < now - maxDocumentAgeMs
    ? [row(C.issueDateLate, T.issueDateLate)]
    : [];
