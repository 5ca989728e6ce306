// Vite's configuration of the application (web/): served by the API under /app/ from web/dist.
// scripts/build.ts and scripts/start.ts build it with vite's build API; `npx vite web` serves it
// for development (its /api requests go to the API on PORT, 3000 by default).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const FRAME_LIBRARIES =
  /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router|cookie|set-cookie-parser|i18next|react-i18next|html-parse-stringify|void-elements|use-sync-external-store|openapi-fetch)[\\/]/;

export default defineConfig({
  root,
  base: '/app/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    // Hashed file names under assets/: the API serves them as immutable.
    assetsDir: 'assets',
    sourcemap: false,
    rolldownOptions: {
      output: {
        // The frame's libraries in a chunk of their own: it changes only when they do, so a new
        // version of the application reuses the cached one. The pages' areas are split by their
        // lazy imports (routes.tsx); a library only one area uses (qrcode) stays with that area.
        codeSplitting: {
          groups: [{ name: 'vendor', test: FRAME_LIBRARIES }],
        },
      },
    },
  },
  server: {
    proxy: { '/api': `http://127.0.0.1:${process.env.PORT ?? 3000}` },
  },
});
