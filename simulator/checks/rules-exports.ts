// Business rules of the factura electrónica de exportación (09; a type whose descriptor lists the
// `exportacion` check), on top of its schema: it goes to
// a foreign buyer, named with its foreign address (OtrasSenasExtranjero) and, when identified, as
// an extranjero no domiciliado (05, nota 4); exports are taxed at 0% with the right to credit
// (CodigoTarifaIVA 01, Art. 32 RLIVA), so an IVA line carries rate code 01 and no tax; and a
// PartidaArancelaria is a 12-digit tariff heading. A tiquete (04) needs no rule here: its
// receptor is optional, and the conditions it excludes (09, 11, 12) are not in its schema.
import { hasTypeCheck, num, row, ZERO } from './rule-context.ts';
import type { Rule } from './rule-context.ts';
import { RULE_CODES as C, RULE_TEXTS as T } from './rule-texts.ts';
import { child, children, text } from './xml-reader.ts';
import type { Row } from './verdict.ts';

export const exportRule: Rule = ({ root, tipo }) => {
  if (!hasTypeCheck(tipo, 'exportacion')) return [];
  const rows: Row[] = [];
  const receptor = child(root, 'Receptor');
  if (!receptor) return [row(C.exportacion, T.exportReceptorMissing)];
  const idType = text(receptor, 'Identificacion', 'Tipo');
  if (idType !== null && idType !== '05') rows.push(row(C.exportacion, T.exportReceptorNotForeign(idType)));
  if (!text(receptor, 'OtrasSenasExtranjero')) rows.push(row(C.exportacion, T.exportForeignAddress));
  for (const line of children(child(root, 'DetalleServicio'), 'LineaDetalle')) {
    const n = text(line, 'NumeroLinea') ?? '?';
    const partida = text(line, 'PartidaArancelaria');
    if (partida !== null && !/^\d{12}$/.test(partida))
      rows.push(row(C.exportacion, T.exportPartida(n, partida)));
    for (const tax of children(line, 'Impuesto')) {
      if (text(tax, 'Codigo') !== '01') continue;
      const rate = text(tax, 'CodigoTarifaIVA') ?? '';
      const monto = num(tax, 'Monto');
      if (rate !== '01' || (monto !== null && !monto.eq(ZERO)))
        rows.push(row(C.exportacion, T.exportTariff(n, rate || '(ninguno)')));
    }
  }
  return rows;
};
