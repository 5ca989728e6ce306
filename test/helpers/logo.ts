// Logos for the tests: a PNG drawn with pngjs (two coloured bands, so it shows on a rendered page).
import { PNG } from 'pngjs';

export function testLogoPng(width = 240, height = 80): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const top = y < height / 2;
      png.data[i] = top ? 29 : 245;
      png.data[i + 1] = top ? 78 : 158;
      png.data[i + 2] = top ? 216 : 11;
      png.data[i + 3] = 255;
    }
  return PNG.sync.write(png);
}
