// The QR code of the clave, drawn as vector squares (sharp at any zoom, no raster image in the
// PDF). The `qrcode` library computes the symbol; error correction M (15 %) tolerates a worn or
// folded printout while keeping 50 digits in a small version.
import QRCode from 'qrcode';

/** Draws `text` as a QR code of `size` points with its top-left corner at (x, y). */
export function drawQr(doc: PDFKit.PDFDocument, text: string, x: number, y: number, size: number): void {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const quiet = 2; // modules of white margin on each side (printed on white paper anyway)
  const cell = size / (modules.size + 2 * quiet);
  doc.save();
  doc.rect(x, y, size, size).fill('#ffffff');
  for (let r = 0; r < modules.size; r++) {
    for (let c = 0; c < modules.size; c++) {
      if (modules.get(r, c)) doc.rect(x + (c + quiet) * cell, y + (r + quiet) * cell, cell, cell);
    }
  }
  doc.fill('#000000');
  doc.restore();
}
