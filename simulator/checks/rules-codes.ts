// Business rules on codes and identifiers, checked against Hacienda's catalogues (the CABYS file
// when supplied, the territorial division, the IVA tariff table of nota 8.1) and against Nota 4:
// CABYS, activity codes, locations, tariff code ↔ rate, tariff codes per document type,
// identification formats and TipoCambio.
import { IVA_RATES, isCodigoTarifaIVA, isIvaRateAllowed } from '../../domain/codes.ts';
import { unknownLocationPart } from '../../domain/territorial-division.ts';
import { Dec, num, row, rulesOf } from './rule-context.ts';
import type { Rule } from './rule-context.ts';
import { RULE_CODES as C, RULE_TEXTS as T } from './rule-texts.ts';
import { child, children, descendants, text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';
import type { Row } from './verdict.ts';

const lines = (root: XmlElement) => children(child(root, 'DetalleServicio'), 'LineaDetalle');

export const cabysRule: Rule = ({ root, cabys }) => {
  const rows: Row[] = [];
  for (const line of lines(root)) {
    const n = text(line, 'NumeroLinea') ?? '?';
    // The line's own code and those of the components of a surtido.
    for (const code of descendants(line, 'CodigoCABYS').map((e) => (e.textContent ?? '').trim())) {
      if (!/^\d{13}$/.test(code)) rows.push(row(C.cabys, T.cabysFormat(n, code)));
      else if (cabys && !cabys.has(code)) rows.push(row(C.cabys, T.cabysUnknown(n, code)));
    }
  }
  return rows;
};

export const activityCodeRule: Rule = ({ root }) => {
  const rows: Row[] = [];
  for (const field of ['CodigoActividadEmisor', 'CodigoActividadReceptor', 'CodigoActividad']) {
    const code = text(root, field);
    if (code !== null && !/^\d{6}$/.test(code)) rows.push(row(C.activityCode, T.activityCode(field, code)));
  }
  return rows;
};

function location(party: XmlElement | null): string | null {
  const u = child(party, 'Ubicacion');
  if (!u) return null;
  const loc = {
    provincia: text(u, 'Provincia') ?? '',
    canton: text(u, 'Canton') ?? '',
    distrito: text(u, 'Distrito') ?? '',
  };
  const bad = unknownLocationPart(loc);
  return bad ? `${bad} ${loc[bad]}` : null;
}

export const locationRule: Rule = ({ root }) => {
  const rows: Row[] = [];
  if (location(child(root, 'Emisor'))) rows.push(row(C.emisorLocation, T.emisorLocation));
  const receptor = location(child(root, 'Receptor'));
  if (receptor) rows.push(row(C.receptorLocation, T.receptorLocation(receptor)));
  return rows;
};

/** IVA taxes (Codigo 01, 07, 08) of every line, with the line number. */
function ivaTaxes(root: XmlElement): { n: string; tax: XmlElement }[] {
  return lines(root).flatMap((line) =>
    children(line, 'Impuesto')
      .filter((t) => ['01', '07', '08'].includes(text(t, 'Codigo') ?? ''))
      .map((tax) => ({ n: text(line, 'NumeroLinea') ?? '?', tax })),
  );
}

export const tariffRateRule: Rule = ({ root }) => {
  const rows: Row[] = [];
  for (const { n, tax } of ivaTaxes(root)) {
    const code = text(tax, 'CodigoTarifaIVA') ?? '';
    const tarifa = num(tax, 'Tarifa');
    if (!isCodigoTarifaIVA(code) || tarifa === null) continue;
    const expected = new Dec(IVA_RATES[code].rate);
    if (!tarifa.eq(expected)) {
      rows.push(row(C.tariffRate, T.tariffRate(n, code, expected.toFixed(2), tarifa.toFixed(2))));
    }
  }
  return rows;
};

export const tariffDocumentTypeRule: Rule = ({ root, tipo }) => {
  const rules = tipo ? rulesOf(tipo) : null;
  if (!rules) return [];
  const rows: Row[] = [];
  for (const { n, tax } of ivaTaxes(root)) {
    const code = text(tax, 'CodigoTarifaIVA') ?? '';
    if (isCodigoTarifaIVA(code) && !isIvaRateAllowed(code, rules)) {
      rows.push(row(C.tariffDocumentType, T.tariffDocumentType(n, code)));
    }
  }
  return rows;
};

// Nota 4, written here on its own (not shared with the issuer's domain/identification.ts).
const ID_FORMATS: Record<string, [RegExp, string]> = {
  '01': [/^[1-9]\d{8}$/, '9 dígitos, sin cero al inicio ni guiones'],
  '02': [/^[0-9A-Za-z]{10}$/, '10 caracteres, sin guiones'],
  '03': [/^[1-9]\d{10,11}$/, '11 o 12 dígitos, sin cero al inicio ni guiones'],
  '04': [/^\d{10}$/, '10 dígitos, sin guiones'],
  '05': [/^[0-9A-Za-z]{1,20}$/, 'hasta 20 caracteres alfanuméricos'],
  '06': [/^[0-9A-Za-z]{1,20}$/, 'hasta 20 caracteres alfanuméricos'],
};

export const identificationRule: Rule = ({ root }) => {
  const rows: Row[] = [];
  for (const [party, name] of [
    ['emisor', 'Emisor'],
    ['receptor', 'Receptor'],
  ] as const) {
    const id = child(root, name, 'Identificacion');
    if (!id) continue;
    const tipo = text(id, 'Tipo') ?? '';
    const format = ID_FORMATS[tipo];
    if (format && !format[0].test(text(id, 'Numero') ?? '')) {
      rows.push(row(C.identification, T.identification(party, tipo, format[1])));
    }
  }
  return rows;
};

export const exchangeRateRule: Rule = ({ root }) => {
  const moneda = child(root, 'ResumenFactura', 'CodigoTipoMoneda');
  if (!moneda) return [];
  const currency = text(moneda, 'CodigoMoneda') ?? '';
  const rate = num(moneda, 'TipoCambio');
  if (rate === null) return [];
  if (currency === 'CRC' && !rate.eq(1)) return [row(C.exchangeRate, T.exchangeRateCrc(rate.toString()))];
  if (currency !== 'CRC' && rate.lte(0)) return [row(C.exchangeRate, T.exchangeRatePositive(currency))];
  return [];
};
