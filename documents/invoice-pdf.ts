// The representación gráfica of an issued comprobante: one PDF (US Letter) with the emisor and the
// receptor, the document type, consecutivo, date and clave with its QR code, the sale terms, the
// lines with their taxes and exonerations, the totals in the document's currency and the state
// the document has with Hacienda. A pure function of its input (no I/O but reading the embedded
// fonts): the caller builds the document from the same rows the signer used and says its state.
// Layout of the lines and totals: ./invoice-pdf-body.ts.
import PDFDocument from 'pdfkit';
import { CONDICIONES_VENTA, MEDIOS_PAGO } from '../domain/codes.ts';
import { documentType } from '../domain/document-types/index.ts';
import type { InvoiceState } from '../domain/invoice-states.ts';
import type { ComprobanteDocument, PurchaseEmisor } from '../hacienda/xml/types.ts';
import { FONTS } from './fonts.ts';
import { formatDate, formatDateTime, identificationText, locationText } from './format.ts';
import { drawLines, drawReferences, drawTotals, type Layout } from './invoice-pdf-body.ts';
import { drawQr } from './qr.ts';

export interface InvoicePdfInput {
  document: ComprobanteDocument;
  /** Its document type's code: the title is the type's name (domain/document-types/). */
  docType: string;
  livemode: boolean;
  /** The service's state of the document, and Hacienda's own word for it (`aceptado`, …). */
  status: InvoiceState;
  haciendaStatus: string | null;
  /** The emisor's logo (PNG or JPEG), drawn at the top of the header when there is one. */
  logo?: { data: Buffer; width: number; height: number } | null;
}

export { PDF_LAYOUT_VERSION } from './layout-version.ts';

const MARGIN = 40;
const WIDTH = 612 - 2 * MARGIN;

const STATE_TEXT: Record<InvoiceState, { text: string; color: string }> = {
  borrador: { text: 'Borrador: sin número, no enviado a Hacienda', color: '#6b7280' },
  pendiente: { text: 'Pendiente de envío a Hacienda', color: '#6b7280' },
  enviada: { text: 'Enviado a Hacienda, en espera de respuesta', color: '#b45309' },
  aceptada: { text: 'Aceptado por el Ministerio de Hacienda', color: '#15803d' },
  rechazada: { text: 'Rechazado por el Ministerio de Hacienda', color: '#b91c1c' },
};

export function renderInvoicePdf(input: InvoicePdfInput): Promise<Buffer> {
  const d = input.document;
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: MARGIN,
    bufferPages: true,
    font: FONTS.regular,
    info: {
      Title: `${documentType(input.docType).name.es} ${d.consecutivo}`,
      Author: d.emisor.name,
      Subject: `Clave ${d.clave}`,
      Creator: 'factura-cr',
      CreationDate: d.issuedAt,
    },
  });
  doc.registerFont('regular', FONTS.regular);
  doc.registerFont('bold', FONTS.bold);
  doc.registerFont('mono', FONTS.mono);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const layout: Layout = { doc, left: MARGIN, width: WIDTH, bottom: 792 - MARGIN - 24 };
  let y = header(doc, input);
  y = parties(doc, input, y);
  y = terms(doc, input, y);
  y = drawLines(layout, d, y);
  y = drawReferences(layout, d, y);
  drawTotals(layout, d, y, (top) => stateBox(doc, input, top));
  footer(doc, input);
  doc.end();
  return done;
}

function label(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number): number {
  doc.font('bold').fontSize(7.5).fillColor('#6b7280').text(text.toUpperCase(), x, y, { width });
  return doc.y + 1;
}

/** The logo fitted in a box at the header's top left; answers where the emisor's name starts. */
function logo(doc: PDFKit.PDFDocument, input: InvoicePdfInput): number {
  if (!input.logo) return MARGIN;
  const maxW = 160;
  const maxH = 56;
  const { data, width, height } = input.logo;
  const scale = Math.min(maxW / width, maxH / height, 1);
  doc.image(data, MARGIN, MARGIN, { width: width * scale, height: height * scale });
  return MARGIN + height * scale + 6;
}

function header(doc: PDFKit.PDFDocument, input: InvoicePdfInput): number {
  const d = input.document;
  const e = d.emisor;
  const leftW = 300;
  const top = logo(doc, input);
  doc.font('bold').fontSize(14).fillColor('#111827').text(e.name, MARGIN, top, { width: leftW });
  doc.font('regular').fontSize(8.5).fillColor('#374151');
  if (e.commercialName) doc.text(e.commercialName, { width: leftW });
  doc.text(identificationText(e.idType, e.idNumber), { width: leftW });
  // A factura de compra's emisor (the supplier) may be foreign, with no Ubicacion.
  const ubicacion = (e as PurchaseEmisor).ubicacion;
  if (ubicacion) doc.text(locationText(ubicacion), { width: leftW });
  if (e.otrasSenasExtranjero) doc.text(e.otrasSenasExtranjero, { width: leftW });
  const contact = [e.phone ? `Tel. +${e.phone.countryCode} ${e.phone.number}` : null, ...e.emails]
    .filter(Boolean)
    .join(' · ');
  if (contact) doc.text(contact, { width: leftW });
  if (d.activityCode) doc.text(`Actividad económica ${d.activityCode}`, { width: leftW });
  const leftBottom = doc.y;

  // The document box: type, consecutivo, date.
  const bx = MARGIN + leftW + 16;
  const bw = WIDTH - leftW - 16;
  doc
    .font('bold')
    .fontSize(12)
    .fillColor('#111827')
    .text(documentType(input.docType).name.es, bx + 8, MARGIN + 6, {
      width: bw - 16,
    });
  let by = doc.y + 4;
  by = label(doc, 'Consecutivo', bx + 8, by, bw - 16);
  doc
    .font('mono')
    .fontSize(9.5)
    .fillColor('#111827')
    .text(d.consecutivo, bx + 8, by, { width: bw - 16 });
  by = label(doc, 'Fecha de emisión', bx + 8, doc.y + 3, bw - 16);
  doc
    .font('regular')
    .fontSize(9.5)
    .fillColor('#111827')
    .text(formatDateTime(d.issuedAt), bx + 8, by, {
      width: bw - 16,
    });
  const boxBottom = doc.y + 6;
  doc
    .roundedRect(bx, MARGIN, bw, boxBottom - MARGIN, 4)
    .lineWidth(0.8)
    .stroke('#9ca3af');

  const y = Math.max(leftBottom, boxBottom) + 8;
  if (!input.livemode) {
    doc.rect(MARGIN, y, WIDTH, 16).fill('#fef3c7');
    doc.font('bold').fontSize(8).fillColor('#92400e');
    doc.text('DOCUMENTO DE PRUEBAS (SANDBOX): SIN VALIDEZ TRIBUTARIA', MARGIN, y + 4, {
      width: WIDTH,
      align: 'center',
    });
    return y + 22;
  }
  return y;
}

function parties(doc: PDFKit.PDFDocument, input: InvoicePdfInput, top: number): number {
  const d = input.document;
  const qrSize = 92;
  const w = WIDTH - qrSize - 16;
  let y = label(doc, 'Clave numérica', MARGIN, top, w);
  doc.font('mono').fontSize(8.6).fillColor('#111827').text(d.clave, MARGIN, y, { width: w });
  y = doc.y + 6;
  y = label(doc, 'Receptor', MARGIN, y, w);
  const r = d.receptor;
  if (!r) {
    doc
      .font('regular')
      .fontSize(9)
      .fillColor('#374151')
      .text('Sin receptor identificado', MARGIN, y, { width: w });
  } else {
    doc.font('bold').fontSize(10).fillColor('#111827').text(r.name, MARGIN, y, { width: w });
    doc.font('regular').fontSize(8.5).fillColor('#374151');
    if (r.commercialName) doc.text(r.commercialName, { width: w });
    doc.text(identificationText(r.idType, r.idNumber), { width: w });
    if (r.ubicacion) doc.text(locationText(r.ubicacion), { width: w });
    if (r.otrasSenasExtranjero) doc.text(r.otrasSenasExtranjero, { width: w });
    const contact = [r.phone ? `Tel. +${r.phone.countryCode} ${r.phone.number}` : null, r.email ?? null]
      .filter(Boolean)
      .join(' · ');
    if (contact) doc.text(contact, { width: w });
    if (d.receptorActivityCode) doc.text(`Actividad económica ${d.receptorActivityCode}`, { width: w });
  }
  const qrX = MARGIN + WIDTH - qrSize;
  drawQr(doc, d.clave, qrX, top, qrSize);
  return Math.max(doc.y, top + qrSize) + 10;
}

function terms(doc: PDFKit.PDFDocument, input: InvoicePdfInput, top: number): number {
  const d = input.document;
  const s = d.totals.summary;
  const condition =
    d.condicionVenta === '99' && d.condicionVentaOtros
      ? d.condicionVentaOtros
      : CONDICIONES_VENTA[d.condicionVenta] + (d.plazoCredito ? ` a ${d.plazoCredito} días` : '');
  const payments = d.mediosPago.map((m) => (m.type === '99' && m.other ? m.other : MEDIOS_PAGO[m.type]));
  const cells: [string, string][] = [
    ['Condición de venta', condition],
    ['Medio de pago', payments.join(', ') || '—'],
    ['Moneda', s.currency],
  ];
  if (s.currency !== 'CRC') cells.push(['Tipo de cambio', s.exchangeRate.replace('.', ',')]);
  const cw = WIDTH / cells.length;
  doc.rect(MARGIN, top, WIDTH, 30).fill('#f3f4f6');
  cells.forEach(([k, v], i) => {
    const x = MARGIN + i * cw + 8;
    const y = label(doc, k, x, top + 5, cw - 16);
    doc
      .font('regular')
      .fontSize(9)
      .fillColor('#111827')
      .text(v, x, y, { width: cw - 16, lineBreak: false });
  });
  return top + 40;
}

function stateBox(doc: PDFKit.PDFDocument, input: InvoicePdfInput, top: number): number {
  const w = 250;
  const s = STATE_TEXT[input.status];
  let y = label(doc, 'Estado en Hacienda', MARGIN, top, w);
  doc.font('bold').fontSize(9);
  const h = doc.heightOfString(s.text, { width: w - 16 }) + 14;
  doc.roundedRect(MARGIN, y, w, h, 3).lineWidth(1.2).stroke(s.color);
  doc.fillColor(s.color).text(s.text, MARGIN + 8, y + 7, { width: w - 16 });
  y += h + 6;
  if (input.haciendaStatus) {
    doc.font('regular').fontSize(7.5).fillColor('#6b7280');
    doc.text(`Respuesta de Hacienda: ${input.haciendaStatus}`, MARGIN, y, { width: w });
    y = doc.y;
  }
  return y;
}

function footer(doc: PDFKit.PDFDocument, input: InvoicePdfInput): void {
  const range = doc.bufferedPageRange();
  const d = input.document;
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    doc.page.margins.bottom = 0; // text below the bottom margin would otherwise open a page
    const y = 792 - MARGIN - 14;
    doc.font('regular').fontSize(7).fillColor('#6b7280');
    doc.text(
      `Comprobante electrónico v4.4 · Emitido el ${formatDate(d.issuedAt)} · Clave ${d.clave}`,
      MARGIN,
      y,
      { width: WIDTH - 70, lineBreak: false },
    );
    doc.text(`Página ${i - range.start + 1} de ${range.count}`, MARGIN + WIDTH - 70, y, {
      width: 70,
      align: 'right',
      lineBreak: false,
    });
  }
}
