// The representación gráfica, rendered from a fixed document: its first page as an image must
// match the reviewed reference (test/fixtures/invoice-pdf.png; a differing run leaves the new
// image and the difference in test/artifacts/), its text layer must say the clave, the totals in
// Costa Rican format and the Spanish text with its accents, and its fonts must be embedded.
// UPDATE_PDF_REFERENCE=1 writes a new reference (look at it before committing it).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { formatMoney, formatNumber, formatQuantity } from '../documents/format.ts';
import { renderInvoicePdf } from '../documents/invoice-pdf.ts';
import { pdfFixture, PDF_LINES } from './helpers/pdf-fixture.ts';
import { checkLogo } from '../domain/logo-image.ts';
import { testLogoPng } from './helpers/logo.ts';
import {
  pdfFonts,
  pdfInfo,
  pdfPageToJpeg,
  pdfPageToPng,
  pdfText,
  pngDifference,
} from './helpers/pdf-tools.ts';
import { testDocument } from './helpers/documents.ts';

const REFERENCE = join(projectRoot, 'test/fixtures/invoice-pdf.png');
const ARTIFACTS = join(projectRoot, 'test/artifacts');
const DPI = 60;
/**
 * Share of differing pixels tolerated: anti-aliasing of another poppler build, not a layout change.
 * Renders here are identical (0); the state box alone changes about 0.3 % of the page at this DPI,
 * so the tolerance stays well below that.
 */
const MAX_DIFFERENCE = 0.001;

/** pdftotext writes the no-break spaces of the figures as they are; compare on plain spaces. */
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('number formatting', () => {
  it('writes figures as es-CR does, from decimal strings', () => {
    const intl = new Intl.NumberFormat('es-CR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    for (const v of ['0', '5.5', '999.994', '1000', '1234567.891', '258378.56500', '10000000'])
      expect(formatNumber(v)).toBe(intl.format(Number(v)));
    expect(formatNumber('258378.565')).toBe('258\u00a0378,57'); // half-up, not the float's 258378.56
    expect(formatQuantity('1.500')).toBe('1,5');
    expect(formatQuantity('2.000')).toBe('2');
    expect(formatMoney('1234.5', 'CRC')).toBe('₡1\u00a0234,50');
    expect(formatMoney('1234.5', 'USD')).toBe('USD\u00a01\u00a0234,50');
  });
});

describe('the invoice PDF', () => {
  it('matches the reviewed reference image', async () => {
    const pdf = await renderInvoicePdf(pdfFixture());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdfInfo(pdf)).toMatch(/Pages:\s+1\n/);
    const png = pdfPageToPng(pdf, DPI);
    if (process.env.UPDATE_PDF_REFERENCE === '1' || !existsSync(REFERENCE)) {
      writeFileSync(REFERENCE, png);
      if (process.env.UPDATE_PDF_REFERENCE !== '1')
        throw new Error(`no reference image: wrote ${REFERENCE}; review it`);
    }
    const { ratio, diff, sameSize } = pngDifference(png, readFileSync(REFERENCE));
    if (!sameSize || ratio > MAX_DIFFERENCE) {
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(join(ARTIFACTS, 'invoice-pdf.png'), png);
      if (sameSize) writeFileSync(join(ARTIFACTS, 'invoice-pdf-diff.png'), diff);
    }
    expect(sameSize).toBe(true);
    expect(ratio).toBeLessThan(MAX_DIFFERENCE);
    // The comparison sees a change as small as the state box.
    const rejected = pdfPageToPng(await renderInvoicePdf(pdfFixture({ status: 'rechazada' })), DPI);
    expect(pngDifference(rejected, readFileSync(REFERENCE)).ratio).toBeGreaterThan(MAX_DIFFERENCE);
  });

  it('draws the emisor’s logo (PNG or JPEG) in the header when there is one, and still renders', async () => {
    const plainPng = pdfPageToPng(await renderInvoicePdf(pdfFixture()), DPI);
    const png = testLogoPng();
    const withPng = await renderInvoicePdf(pdfFixture({ logo: { data: png, width: 240, height: 80 } }));
    expect(pdfInfo(withPng)).toMatch(/Pages:\s+1\n/);
    const pngPage = pdfPageToPng(withPng, DPI);
    const { ratio, sameSize } = pngDifference(pngPage, plainPng);
    expect(sameSize).toBe(true);
    expect(ratio).toBeGreaterThan(MAX_DIFFERENCE * 5);
    expect(plain(pdfText(withPng))).toContain('Servicios Contables del Valle S.A.');
    // A JPEG (a page rendered by pdftoppm), checked by its SOF marker, then drawn.
    const jpeg = pdfPageToJpeg(withPng, 8);
    const size = checkLogo(jpeg, 'image/jpeg', '/data_base64');
    expect(size.ok).toBe(true);
    if (!size.ok) return;
    const withJpeg = await renderInvoicePdf(pdfFixture({ logo: { data: jpeg, ...size } }));
    expect(pdfInfo(withJpeg)).toMatch(/Pages:\s+1\n/);
    expect(pngDifference(pdfPageToPng(withJpeg, DPI), plainPng).ratio).toBeGreaterThan(MAX_DIFFERENCE * 5);
  });

  it('says the clave, consecutivo, parties, lines, exoneration, totals and state in Spanish', async () => {
    const input = pdfFixture();
    const text = plain(pdfText(await renderInvoicePdf(input)));
    const d = input.document;
    expect(text).toContain(d.clave);
    expect(text).toContain(d.consecutivo);
    expect(text).toContain('Factura electrónica');
    expect(text).toContain('Servicios Contables del Valle S.A.');
    expect(text).toContain('Cédula jurídica 3101123456');
    expect(text).toContain('María José Núñez Araya');
    expect(text).toContain('Heredia');
    expect(text).toContain('Crédito a 30 días');
    expect(text).toContain('Transferencia - depósito bancario');
    expect(text).toContain('Café de Tarrazú, 500 g');
    expect(text).toContain('Asociación Cañera');
    expect(text).toContain('Exoneración: Compras autorizadas por la Dirección General de Tributación');
    expect(text).toContain('AL-00123-2026');
    // Totals as the document computes them, in Costa Rican format.
    const s = d.totals.summary;
    expect(text).toContain(plain(formatMoney(s.totalComprobante, 'CRC')));
    expect(text).toContain('₡258 378,57');
    expect(text).toContain(plain(formatNumber(s.totalImpuesto)));
    expect(text).toContain('20 427,62');
    expect(text).toContain('Servicios exonerados');
    expect(text).toContain('IVA Tarifa general 13%');
    expect(text).toContain('Aceptado por el Ministerio de Hacienda');
    expect(text).not.toContain('SANDBOX');
    expect(PDF_LINES).toHaveLength(4);
  });

  it('embeds its fonts (DejaVu, from the npm package) and nothing else', async () => {
    const fonts = pdfFonts(await renderInvoicePdf(pdfFixture()));
    expect(fonts.length).toBeGreaterThanOrEqual(2);
    for (const f of fonts) {
      expect(f.embedded, f.name).toBe(true);
      expect(f.name).toMatch(/DejaVuSans/);
    }
  });

  it('shows the state it is rendered for, and marks sandbox documents', async () => {
    const sent = plain(
      pdfText(
        await renderInvoicePdf(
          pdfFixture({ status: 'enviada', haciendaStatus: 'procesando', livemode: false }),
        ),
      ),
    );
    expect(sent).toContain('Enviado a Hacienda, en espera de respuesta');
    expect(sent).toContain('procesando');
    expect(sent).toContain('SIN VALIDEZ TRIBUTARIA');
    expect(sent).not.toContain('Aceptado por el Ministerio');
    const rejected = plain(
      pdfText(await renderInvoicePdf(pdfFixture({ status: 'rechazada', haciendaStatus: 'rechazado' }))),
    );
    expect(rejected).toContain('Rechazado por el Ministerio de Hacienda');
  });

  it('writes a foreign currency with its code and the exchange rate', async () => {
    const document = testDocument({ totals: { currency: 'USD', exchangeRate: '512.34' } });
    const text = plain(pdfText(await renderInvoicePdf({ ...pdfFixture(), document })));
    expect(text).toContain(plain(formatMoney(document.totals.summary.totalComprobante, 'USD')));
    expect(text).toMatch(/USD \d/);
    expect(text).toContain('512,34');
    expect(text).not.toContain('₡');
  });

  it('continues the lines on further pages with the header repeated', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => ({
      ...PDF_LINES[i % 2]!,
      description: `Línea número ${i + 1} — señal`,
    }));
    const pdf = await renderInvoicePdf({ ...pdfFixture(), document: testDocument({ lines }) });
    const pages = Number(/Pages:\s+(\d+)/.exec(pdfInfo(pdf))![1]);
    expect(pages).toBeGreaterThan(1);
    const text = plain(pdfText(pdf));
    expect(text).toContain('Línea número 60 — señal');
    expect(text).toContain(`Página ${pages} de ${pages}`);
    expect(text.match(/Precio unit\./g)!.length).toBe(pages);
  });
});
