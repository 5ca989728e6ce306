// The fonts embedded in every PDF: DejaVu Sans (regular, bold) and DejaVu Sans Mono, TrueType
// files from the `dejavu-fonts-ttf` npm package, so `npm ci` installs the same glyphs on every
// machine (nothing is read from the operating system's font folders). DejaVu covers Spanish
// (á é í ó ú ñ ü ¿ ¡) and the colón sign ₡; pdfkit embeds only the glyphs a document uses.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const ttfDir = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');

export const FONTS = {
  regular: join(ttfDir, 'DejaVuSans.ttf'),
  bold: join(ttfDir, 'DejaVuSans-Bold.ttf'),
  mono: join(ttfDir, 'DejaVuSansMono.ttf'),
} as const;

export type FontName = keyof typeof FONTS;
