// The usage dashboard in a real headless Chromium: paste a read:usage key, see the company's
// keys and its consumption (requests, errors, 429s) charted, and nothing of another company.
// Leaves test/artifacts/dashboard.png.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';
import { findExecutable } from './helpers/executables.ts';

const CHROMIUM = findExecutable(['chromium', 'chromium-browser', 'google-chrome']);
const SCREENSHOT = join(projectRoot, 'test/artifacts/dashboard.png');

let t: TestApp;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  if (!CHROMIUM) throw new Error('chromium is missing: apt-get install -y chromium');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

describe('dashboard', () => {
  it('shows the keys and charts the consumption of the pasted key’s company only', async () => {
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
    // The panel key shares the company's 8/s: let the burst's window pass, so the dashboard's
    // own requests are not among the 429s counted below.
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const page = await browser.newPage({ viewport: { width: 1200, height: 1100 } });
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(`${baseUrl}/dashboard`);
    await page.fill('#key', panel.secret);
    await page.click('#connect-btn');
    await page.waitForSelector('body[data-loaded="true"]', { timeout: 15_000 });

    // Keys of this company and mode, redacted; none of the other company's.
    const keyRows = await page.locator('#keys-body tr').allInnerTexts();
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

    // The key stays in the tab: sessionStorage only, never in a URL or localStorage.
    const storage = await page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: Object.keys(localStorage).length,
    }));
    expect(storage.session).toContain(panel.secret);
    expect(storage.local).toBe(0);
    expect(requested.some((u) => u.includes(panel.secret))).toBe(false);
    expect(await page.inputValue('#key')).toBe('');

    // Filtering by key shows only that key's traffic.
    await page.evaluate(() => document.body.removeAttribute('data-loaded'));
    await page.selectOption('#key-filter', `key_${String(panel.id).padStart(12, '0')}`);
    await page.waitForSelector('body[data-loaded="true"]');
    expect(await num('#t-429')).toBe(0);

    await page.selectOption('#key-filter', '');
    await page.waitForSelector('body[data-loaded="true"]');
    mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
    rmSync(SCREENSHOT, { force: true }); // an earlier run's picture proves nothing
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    await page.close();
  });

  it('a key without read:usage gets a readable error on the page', async () => {
    const c = await createTestCompany(t.db);
    const k = await createTestKey(t.db, c.id, { scopes: ['read:clients'] });
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/dashboard`);
    await page.fill('#key', k.secret);
    await page.click('#connect-btn');
    await page.waitForSelector('#error:not(.hidden)');
    expect(await page.locator('#error').innerText()).toMatch(/read:usage/);
    expect(await page.locator('#usage').isHidden()).toBe(true);
    await page.close();
  });
});
