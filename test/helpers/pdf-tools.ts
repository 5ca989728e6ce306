// Poppler's command-line tools, driven on PDFs the tests make: pages to PNG (pdftoppm), the text
// layer (pdftotext) and the font list (pdffonts). CI installs poppler-utils.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { findExecutable } from './executables.ts';

function tool(name: string): string {
  const path = findExecutable([name]);
  if (!path) throw new Error(`${name} is not installed (apt-get install poppler-utils)`);
  return path;
}

function withPdf<T>(pdf: Buffer, run: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'factura-pdf-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return run(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Page `page` (1-based) as a PNG at `dpi`. */
export function pdfPageToPng(pdf: Buffer, dpi: number, page = 1): Buffer {
  return withPdf(pdf, (file, dir) => {
    const out = join(dir, 'page');
    execFileSync(tool('pdftoppm'), [
      '-png',
      '-r',
      String(dpi),
      '-f',
      String(page),
      '-l',
      String(page),
      '-singlefile',
      file,
      out,
    ]);
    return readFileSync(`${out}.png`);
  });
}

/** Page 1 as a JPEG at `dpi` (a real JPEG for the tests of logos). */
export function pdfPageToJpeg(pdf: Buffer, dpi: number): Buffer {
  return withPdf(pdf, (file, dir) => {
    const out = join(dir, 'page');
    execFileSync(tool('pdftoppm'), [
      '-jpeg',
      '-r',
      String(dpi),
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      file,
      out,
    ]);
    return readFileSync(`${out}.jpg`);
  });
}

export function pdfText(pdf: Buffer): string {
  return withPdf(pdf, (file) =>
    execFileSync(tool('pdftotext'), ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }),
  );
}

export function pdfInfo(pdf: Buffer): string {
  return withPdf(pdf, (file) => execFileSync(tool('pdfinfo'), [file], { encoding: 'utf8' }));
}

/** pdffonts' table rows: name, type, and whether each font is embedded. */
export function pdfFonts(pdf: Buffer): { name: string; embedded: boolean }[] {
  const out = withPdf(pdf, (file) => execFileSync(tool('pdffonts'), [file], { encoding: 'utf8' }));
  return out
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => {
      const cols = l.trim().split(/\s+/);
      // name type [encoding…] emb sub uni object ID: emb is the 5th column from the end.
      return { name: cols[0]!, embedded: cols[cols.length - 5] === 'yes' };
    });
}

/** Share of pixels that differ between two PNGs of the same size (pixelmatch, threshold 0.1). */
export function pngDifference(a: Buffer, b: Buffer): { ratio: number; diff: Buffer; sameSize: boolean } {
  const pa = PNG.sync.read(a);
  const pb = PNG.sync.read(b);
  if (pa.width !== pb.width || pa.height !== pb.height)
    return { ratio: 1, diff: Buffer.alloc(0), sameSize: false };
  const out = new PNG({ width: pa.width, height: pa.height });
  const different = pixelmatch(pa.data, pb.data, out.data, pa.width, pa.height, { threshold: 0.1 });
  return { ratio: different / (pa.width * pa.height), diff: PNG.sync.write(out), sameSize: true };
}
