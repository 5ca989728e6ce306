// The body of the representación gráfica: the lines table (with each line's discount, tax and
// exoneration), the documents a note references, and the totals as ResumenFactura states them.
// Amounts are the document's exact figures shown with 2 decimals in Costa Rican format.
import {
  INSTITUCIONES_EXONERACION,
  IVA_RATES,
  TIPOS_DOCUMENTO_EXONERACION,
  TIPOS_DOCUMENTO_REFERENCIA,
  CODIGOS_REFERENCIA,
} from '../domain/codes.ts';
import type { DocumentSummary, LineTotals } from '../domain/totals.ts';
import type { ComprobanteDocument } from '../hacienda/xml/types.ts';
import { formatDate, formatMoney, formatNumber, formatQuantity, formatRate } from './format.ts';

export interface Layout {
  doc: PDFKit.PDFDocument;
  left: number;
  width: number;
  /** Lowest y content may reach before a new page (the footer sits below). */
  bottom: number;
}

interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
}

const COLUMNS: Column[] = [
  { title: '#', width: 16, align: 'left' },
  { title: 'CABYS', width: 76, align: 'left' },
  { title: 'Descripción', width: 126, align: 'left' },
  { title: 'Cant.', width: 38, align: 'right' },
  { title: 'Unid.', width: 28, align: 'left' },
  { title: 'Precio unit.', width: 58, align: 'right' },
  { title: 'Desc.', width: 46, align: 'right' },
  { title: 'IVA', width: 30, align: 'right' },
  { title: 'Impuesto', width: 50, align: 'right' },
  { title: 'Total línea', width: 64, align: 'right' },
];
const PAD = 3;

function tableHeader(l: Layout, y: number): number {
  const { doc } = l;
  doc.rect(l.left, y, l.width, 16).fill('#1f2937');
  let x = l.left;
  doc.font('bold').fontSize(7.5).fillColor('#ffffff');
  for (const c of COLUMNS) {
    doc.text(c.title, x + PAD, y + 4.5, { width: c.width - 2 * PAD, align: c.align, lineBreak: false });
    x += c.width;
  }
  return y + 18;
}

function newPage(l: Layout): number {
  l.doc.addPage();
  return l.left;
}

function lineCells(d: ComprobanteDocument, t: LineTotals, i: number): string[] {
  const input = d.lines[i]!;
  // The IVA comes first; a line without one (IVA cobrado a nivel de fábrica 02) shows no rate.
  const tax = t.taxes[0]?.ivaRateCode ? t.taxes[0] : undefined;
  return [
    String(t.lineNumber),
    input.cabys,
    input.description,
    formatQuantity(t.quantity),
    input.unit,
    formatNumber(t.unitPrice),
    t.discounts.length ? formatNumber(t.discountTotal) : '—',
    tax?.rate ? formatRate(tax.rate) : '—',
    formatNumber(t.impuestoNeto),
    formatNumber(t.montoTotalLinea),
  ];
}

function exonerationText(t: LineTotals): string | null {
  const e = t.taxes.find((x) => x.exoneration)?.exoneration;
  if (!e) return null;
  const type = e.docType === '99' && e.docTypeOther ? e.docTypeOther : TIPOS_DOCUMENTO_EXONERACION[e.docType];
  const inst =
    e.institution === '99' && e.institutionOther
      ? e.institutionOther
      : INSTITUCIONES_EXONERACION[e.institution];
  return (
    `Exoneración: ${type}, documento ${e.number} del ${formatDate(e.issuedAt)} (${inst}); ` +
    `tarifa exonerada ${formatRate(e.rate)}, monto exonerado ${formatNumber(e.amount)}`
  );
}

/** The lines table, across pages when needed; returns the y below it. */
export function drawLines(l: Layout, d: ComprobanteDocument, top: number): number {
  const { doc } = l;
  let y = tableHeader(l, top);
  d.totals.lines.forEach((t, i) => {
    const cells = lineCells(d, t, i);
    doc.font('regular').fontSize(8);
    const heights = cells.map((text, c) => doc.heightOfString(text, { width: COLUMNS[c]!.width - 2 * PAD }));
    const exo = exonerationText(t);
    const exoWidth = l.width - COLUMNS[0]!.width - 2 * PAD;
    const exoHeight = exo ? doc.fontSize(7).heightOfString(exo, { width: exoWidth }) + 2 : 0;
    const h = Math.max(...heights) + exoHeight + 6;
    if (y + h > l.bottom) y = tableHeader(l, newPage(l));
    if (i % 2 === 1) doc.rect(l.left, y - 1, l.width, h).fill('#f9fafb');
    let x = l.left;
    doc.font('regular').fontSize(8).fillColor('#111827');
    cells.forEach((text, c) => {
      const col = COLUMNS[c]!;
      doc.text(text, x + PAD, y + 2, { width: col.width - 2 * PAD, align: col.align });
      x += col.width;
    });
    if (exo) {
      doc.font('regular').fontSize(7).fillColor('#1d4ed8');
      doc.text(exo, l.left + COLUMNS[0]!.width + PAD, y + 2 + Math.max(...heights) + 2, { width: exoWidth });
    }
    y += h;
    doc
      .moveTo(l.left, y - 1)
      .lineTo(l.left + l.width, y - 1)
      .lineWidth(0.4)
      .stroke('#e5e7eb');
  });
  return y + 8;
}

/** InformacionReferencia of notes (what they correct). */
export function drawReferences(l: Layout, d: ComprobanteDocument, top: number): number {
  const refs = d.referencias ?? [];
  if (refs.length === 0) return top;
  const { doc } = l;
  let y = top;
  doc
    .font('bold')
    .fontSize(7.5)
    .fillColor('#6b7280')
    .text('DOCUMENTOS DE REFERENCIA', l.left, y, { width: l.width });
  y = doc.y + 2;
  for (const r of refs) {
    const kind =
      r.docType === '99' && r.docTypeOther ? r.docTypeOther : TIPOS_DOCUMENTO_REFERENCIA[r.docType];
    const code = r.code
      ? ` · ${r.code === '99' && r.codeOther ? r.codeOther : CODIGOS_REFERENCIA[r.code]}`
      : '';
    const text = `${kind}${r.number ? ` ${r.number}` : ''} del ${formatDate(r.issuedAt)}${code}${r.reason ? ` · ${r.reason}` : ''}`;
    doc.font('regular').fontSize(8).fillColor('#111827').text(text, l.left, y, { width: l.width });
    y = doc.y + 2;
  }
  return y + 6;
}

function summaryRows(s: DocumentSummary): [string, string][] {
  const rows: [string, string | null][] = [
    ['Servicios gravados', s.totalServGravados],
    ['Servicios exentos', s.totalServExentos],
    ['Servicios exonerados', s.totalServExonerado],
    ['Servicios no sujetos', s.totalServNoSujeto],
    ['Mercancías gravadas', s.totalMercanciasGravadas],
    ['Mercancías exentas', s.totalMercanciasExentas],
    ['Mercancías exoneradas', s.totalMercExonerada],
    ['Mercancías no sujetas', s.totalMercNoSujeta],
    ['Total venta', s.totalVenta],
    ['Descuentos', s.totalDescuentos],
    ['Venta neta', s.totalVentaNeta],
    ...s.totalDesgloseImpuesto.map((b): [string, string] => [
      b.ivaRateCode ? `IVA ${IVA_RATES[b.ivaRateCode].label}` : `Impuesto ${b.code}`,
      b.amount,
    ]),
    ['Total impuesto', s.totalImpuesto],
    ['IVA devuelto', s.totalIVADevuelto],
    ['Otros cargos', s.totalOtrosCargos],
  ];
  return rows.filter((r): r is [string, string] => r[1] !== null);
}

/**
 * The totals on the right and, beside them on the left, whatever `left` draws (the Hacienda
 * state); both start at the same y, on a new page when they would not fit.
 */
export function drawTotals(
  l: Layout,
  d: ComprobanteDocument,
  top: number,
  left: (y: number) => number,
): number {
  const { doc } = l;
  const s = d.totals.summary;
  const rows = summaryRows(s);
  const rowH = 13;
  const needed = rows.length * rowH + 34;
  let y = top;
  if (y + needed > l.bottom) y = newPage(l);
  const leftBottom = left(y);
  const w = 240;
  const x = l.left + l.width - w;
  doc.fontSize(8.5);
  for (const [k, v] of rows) {
    doc
      .font('regular')
      .fillColor('#374151')
      .text(k, x, y, { width: w - 100, lineBreak: false, ellipsis: true });
    doc
      .font('regular')
      .fillColor('#111827')
      .text(formatNumber(v), x + w - 100, y, { width: 100, align: 'right' });
    y += rowH;
  }
  y += 3;
  doc.rect(x, y, w, 24).fill('#1f2937');
  doc.font('bold').fontSize(10).fillColor('#ffffff');
  doc.text('TOTAL', x + 8, y + 7, { width: 80, lineBreak: false });
  doc.text(formatMoney(s.totalComprobante, s.currency), x + 80, y + 7, { width: w - 88, align: 'right' });
  return Math.max(y + 30, leftBottom);
}
