// The application's bundle as the API serves it under /app/: files as they are, index.html for
// the application's own paths, immutable hashed assets, a revalidated page with a CSP of this
// origin only, a 404 (not the page) for a missing asset, and `/` leading to /app/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { WEB_DIST } from '../scripts/web-build.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const get = (url: string) => t.app.inject({ method: 'GET', url });

describe('the application under /app/', () => {
  it('answers the page for /app/, /app and every application path, never cached, with a self-only CSP', async () => {
    const page = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
    for (const url of ['/app/', '/app', '/app/ingresar', '/app/empresas/nueva?paso=2', '/app/index.html']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers['content-security-policy'], url).toMatch(/^default-src 'self';/);
      expect(res.headers['content-security-policy'], url).not.toMatch(/unsafe|\*/);
      expect(res.body, url).toBe(page);
    }
  });

  it('serves the hashed assets as immutable, with their own type', async () => {
    const assets = readdirSync(join(WEB_DIST, 'assets'));
    const js = assets.find((n) => n.endsWith('.js'))!;
    const css = assets.find((n) => n.endsWith('.css'))!;
    const script = await get(`/app/assets/${js}`);
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe(readFileSync(join(WEB_DIST, 'assets', js), 'utf8'));
    const style = await get(`/app/assets/${css}`);
    expect(style.headers['content-type']).toMatch(/^text\/css/);
    expect(style.headers['cache-control']).toMatch(/immutable/);
  });

  it('answers 404 for a missing asset and refuses paths out of the bundle', async () => {
    const missing = await get('/app/assets/index-00000000.js');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).not.toMatch(/^text\/html/);
    for (const url of ['/app/../package.json', '/app/%2e%2e/package.json', '/app/..%2fpackage.json']) {
      const res = await get(url);
      expect(res.body, url).not.toContain('"name": "factura-cr"');
    }
  });

  it('leads / to the application', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/app/');
  });
});
