// A company's logo as it is handed in: really an image of the type it says (PNG: signature, then
// the whole file decoded by pngjs, so a truncated or corrupt one is refused; JPEG: the SOI marker,
// then the segments walked to the frame header, SOFn, that gives its size), at most 256 KB and of
// a size a PDF header can show. The PDF (documents/) draws it as it is.
import { PNG } from 'pngjs';
import type { FieldError } from './errors.ts';

export const LOGO_MAX_BYTES = 256 * 1024;
const MAX_SIDE = 4096;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export type LogoContentType = 'image/png' | 'image/jpeg';

export type LogoCheck =
  | { ok: true; width: number; height: number }
  | { ok: false; code: 'logo_invalid' | 'logo_too_large'; error: FieldError };

function pngSize(bytes: Buffer): { width: number; height: number } | null {
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  try {
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height };
  } catch {
    return null;
  }
}

/** SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC): the frame header with the image's size. */
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

function jpegSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let i = 2;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end, or scan data before any frame
    const length = bytes.readUInt16BE(i + 2);
    if (length < 2 || i + 2 + length > bytes.length) return null;
    if (isSof(marker)) {
      if (length < 7) return null;
      return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return null;
}

/** Whether `bytes` is a usable logo of `contentType`; the field at fault is `path`. */
export function checkLogo(bytes: Buffer, contentType: LogoContentType, path: string): LogoCheck {
  if (bytes.length > LOGO_MAX_BYTES)
    return {
      ok: false,
      code: 'logo_too_large',
      error: {
        path,
        code: 'too_large',
        message: `la imagen pesa ${bytes.length} bytes; el máximo es 262144 (256 KB) (image of ${bytes.length} bytes; at most 256 KB)`,
      },
    };
  const size = contentType === 'image/png' ? pngSize(bytes) : jpegSize(bytes);
  const kind = contentType === 'image/png' ? 'PNG' : 'JPEG';
  if (!size || size.width < 1 || size.height < 1)
    return {
      ok: false,
      code: 'logo_invalid',
      error: {
        path,
        code: 'invalid_image',
        message: `no es una imagen ${kind} legible (not a readable ${kind} image)`,
      },
    };
  if (size.width > MAX_SIDE || size.height > MAX_SIDE)
    return {
      ok: false,
      code: 'logo_invalid',
      error: {
        path,
        code: 'image_too_big',
        message: `la imagen mide ${size.width}×${size.height}; a lo sumo ${MAX_SIDE} px por lado (at most ${MAX_SIDE} px a side)`,
      },
    };
  return { ok: true, ...size };
}
