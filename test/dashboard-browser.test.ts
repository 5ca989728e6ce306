// The usage dashboard, now on the application's start page, in a real headless Chromium: a signed-in
// owner sees the company's keys and its consumption (requests, errors, 429s) charted, and nothing
// of another company; a viewer's role has no read:usage, so no usage. The old /dashboard address
// leads to /app/. Leaves test/artifacts/dashboard.png.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { createTestPerson, signedInContext } from './helpers/web-session.ts';

const SCREENSHOT = join(projectRoot, 'test/artifacts/dashboard.png');

let t: TestApp;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

describe('dashboard', () => {
  it('shows an owner the keys and charts the consumption of their company only', async () => {
    const mine = await createTestCompany(t.db, { rateLimitPerSecond: 8 });
    const theirs = await createTestCompany(t.db);
    const shop = await createTestKey(t.db, mine.id, { name: 'Tienda en línea' });
    const panel = await createTestKey(t.db, mine.id, { name: 'Panel de uso', scopes: ['read:usage'] });
    const foreign = await createTestKey(t.db, theirs.id, { name: 'Otra empresa' });

    // A burst: successes, 404s and (over 8 req/s) some 429s; another company's traffic too.
    // 40 at once overflow 8 per second unless they spread over five windows.
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(t.app, 'GET', i % 4 ? '/api/v1/clients' : '/api/v1/clients/cli_000000999999', {
          key: shop.secret,
        }),
      ),
    );
    const limited = burst.filter((r) => r.statusCode === 429).length;
    expect(limited).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) await call(t.app, 'GET', '/api/v1/services', { key: foreign.secret });
    // The people's requests share the company's 8/s: let the burst's window pass, so the page's
    // own requests are not among the 429s counted below.
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const owner = await createTestPerson(t.db, mine.id, 'owner');
    const context = await signedInContext(browser, baseUrl, owner, { width: 1200, height: 1100 });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/dashboard`);
    await page.waitForURL(`${baseUrl}/app/`);
    await page.waitForSelector('#usage[data-loaded="true"]', { timeout: 15_000 });

    // Keys of this company and mode, redacted; none of the other company's.
    const keyRows = await page.locator('#usage #keys tbody tr').allInnerTexts();
    expect(keyRows.some((r) => r.includes('Tienda en línea'))).toBe(true);
    expect(keyRows.some((r) => r.includes('Panel de uso') && r.includes('read:usage'))).toBe(true);
    expect(keyRows.join('\n')).not.toContain('Otra empresa');
    const content = await page.content();
    expect(content).not.toContain(shop.secret);
    expect(content).toContain(`ik_test_…${shop.secret.slice(-4)}`);

    // Totals: the 40-request burst is there, with its 404s and 429s.
    const num = async (sel: string) => Number(await page.locator(sel).innerText());
    expect(await num('#t-requests')).toBeGreaterThanOrEqual(40);
    expect(await num('#t-429')).toBe(limited);
    expect(await num('#t-errors')).toBeGreaterThan(0);
    const routes = await page.locator('#routes tbody tr').allInnerTexts();
    expect(routes.some((r) => r.startsWith('GET /api/v1/clients'))).toBe(true);
    expect(routes.join('\n')).not.toContain('/api/v1/services');

    // The chart has a bar with requests and the error and 429 lines.
    const bars = await page
      .locator('#chart rect')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-requests'))));
    expect(Math.max(...bars)).toBeGreaterThanOrEqual(20);
    expect(await page.locator('#chart polyline.series-errors').count()).toBe(1);
    expect(await page.locator('#chart polyline.series-limited').count()).toBe(1);

    // Filtering by key shows only that key's traffic.
    await page.selectOption('#key-filter', `key_${String(panel.id).padStart(12, '0')}`);
    await expect.poll(() => num('#t-429')).toBe(0);
    expect(await num('#t-requests')).toBe(0);

    await page.selectOption('#key-filter', '');
    await expect.poll(() => num('#t-429')).toBe(limited);
    mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
    rmSync(SCREENSHOT, { force: true }); // an earlier run's picture proves nothing
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    await context.close();
  });

  it('a viewer sees no usage: the page leaves it out and the API answers 403', async () => {
    const c = await createTestCompany(t.db);
    await createTestKey(t.db, c.id, { name: 'Llave de la tienda' });
    const viewer = await createTestPerson(t.db, c.id, 'viewer');
    const context = await signedInContext(browser, baseUrl, viewer);
    const page = await context.newPage();
    await page.goto(`${baseUrl}/app/`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByText('Consulta').first().waitFor();
    expect(await page.locator('#usage').count()).toBe(0);
    expect(await page.content()).not.toContain('Llave de la tienda');
    const status = await page.evaluate(
      async (id) => {
        const r = await fetch('/api/v1/usage', { headers: { 'Factura-Company': id } });
        return r.status;
      },
      `cmp_${String(c.id).padStart(12, '0')}`,
    );
    expect(status).toBe(403);
    await context.close();
  });
});
