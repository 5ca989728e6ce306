// The invoice browser over the real service (API, workers, the Hacienda simulator and a real SMTP
// catcher process) in headless Chromium: list, filter and page through documents, open one (data,
// totals, timeline, rejection reason with its fix), download its PDF, signed XML and Hacienda's
// answer, resend its email, the credit-note form, and all of it with the keyboard. Also the API
// parts it stands on: the list's `document_type` and `q` filters and the invoice timeline.
// Leaves test/artifacts/invoices-list.png, invoice-accepted.png and invoice-rejected.png.
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { createClient } from '../db/queries/clients.ts';
import { setEmailDelivery } from '../db/queries/companies.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { findExecutable } from './helpers/executables.ts';
import { startCatcherProcess, type CatcherProcess } from './helpers/mail-catcher.ts';
import { waitFor } from './helpers/wait.ts';

const CHROMIUM = findExecutable(['chromium', 'chromium-browser', 'google-chrome']);
const ARTIFACTS = join(projectRoot, 'test/artifacts');
const pad = (n: number) => String(n).padStart(12, '0');

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let catcher: CatcherProcess;
let browser: Browser;
type Inv = { id: string; clave: string; consecutivo: string; status: string };
let accepted: Inv; // Juana, credit sale, partly paid, external id
let other: Inv; // Ferretería, accepted
let rejected: Inv;
let draftCount = 0;

async function issue(body: Record<string, unknown>): Promise<Inv> {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: `cli_${pad(s.client.id)}`,
    lines: [{ service_id: `srv_${pad(s.laptop.id)}`, qty: 1 }],
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.json as Inv;
}

async function settled(id: string, done: (inv: any) => boolean) {
  let inv: any;
  await waitFor(
    async () => done((inv = (await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json)),
    45_000,
    100,
    `invoice ${id}`,
  );
  return inv;
}

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('chromium is missing: apt-get install -y chromium');
  catcher = await startCatcherProcess();
  e = await startE2E({ env: { SMTP_URL: catcher.smtpUrl, SMTP_SANDBOX_URL: catcher.smtpUrl } });
  s = await seedIssuer(e.db, e.config);
  await setEmailDelivery(e.db, s.company.id, { enabled: true, replyTo: null, bcc: [] });
  const ferreteria = await createClient(
    e.db,
    { companyId: s.company.id, livemode: false },
    {
      idType: '02',
      idNumber: '3101654321',
      name: 'Ferretería Las Palmas S.A.',
      email: 'compras@laspalmas.example',
      addresses: [{ provincia: '1', canton: '01', distrito: '01', otrasSenas: 'Frente al parque central' }],
    },
    async () => {},
  );

  accepted = await issue({ external_id: 'pedido-1001', condition: 'credito_30', credit_days: 30 });
  other = await issue({
    client_id: `cli_${pad(ferreteria.id)}`,
    lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 3 }],
  });
  await settled(accepted.id, (i) => i.status === 'aceptada' && i.email.status === 'sent');
  await settled(other.id, (i) => i.status === 'aceptada' && i.email.status === 'sent');
  const paid = await api(e, 'POST', `/api/v1/invoices/${accepted.id}/payments`, s.key, {
    amount: '100000.00',
    method: 'sinpe_movil',
    reference: 'SINPE 555',
  });
  expect(paid.status, paid.text).toBe(201);

  e.sim.simulator.configure({ forcedRejectionRate: 1 });
  try {
    rejected = await issue({ lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 2 }] });
    await settled(rejected.id, (i) => i.status === 'rechazada');
  } finally {
    e.sim.simulator.configure({ forcedRejectionRate: 0 });
  }
  // Drafts (never sent, no worker touches them) so the list has more than one page of 20.
  for (let i = 0; i < 19; i++) await issue({ send: false, external_id: `borrador-${i}` });
  draftCount = 19;

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await e?.close();
  await catcher?.stop();
});

describe('the API under the browser', () => {
  const list = async (query: string) => (await api(e, 'GET', `/api/v1/invoices?${query}`, s.key)).json;
  const ids = (page: any) => page.data.map((i: any) => i.id);

  it('q finds a document by its id, clave, consecutivo or external id, exactly', async () => {
    expect(ids(await list(`q=${accepted.id}`))).toEqual([accepted.id]);
    expect(ids(await list(`q=${accepted.clave}`))).toEqual([accepted.id]);
    expect(ids(await list(`q=${accepted.consecutivo}`))).toEqual([accepted.id]);
    expect(ids(await list('q=pedido-1001'))).toEqual([accepted.id]);
    expect(ids(await list('q=pedido-100'))).toEqual([]); // no substring search
    expect(ids(await list(`q=${accepted.clave}&status=rechazada`))).toEqual([]);
    const bad = await api(e, 'GET', '/api/v1/invoices?q=', s.key);
    expect(bad.status).toBe(422);
    expect(bad.json.code).toBe('validation_failed');
  });

  it('document_type filters by type and refuses an unknown one', async () => {
    const facturas = await list('document_type=01&limit=100');
    expect(facturas.data).toHaveLength(3 + draftCount);
    expect((await list('document_type=03')).data).toEqual([]);
    const bad = await api(e, 'GET', '/api/v1/invoices?document_type=77', s.key);
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].path).toContain('document_type');
  });

  it('the timeline of an accepted, emailed and partly paid invoice, oldest first', async () => {
    const res = await api(e, 'GET', `/api/v1/invoices/${accepted.id}/timeline`, s.key);
    expect(res.status).toBe(200);
    const types = res.json.data.map((x: any) => x.type);
    expect(types).toEqual(['recorded', 'signed', 'submitted', 'answered', 'emailed', 'paid']);
    const at = res.json.data.map((x: any) => x.at);
    expect([...at].sort()).toEqual(at);
    expect(res.json.data[3].detail.status).toBe('aceptada');
    expect(res.json.data[4].detail).toMatchObject({
      round: 0,
      status: 'sent',
      recipients: ['juana@example.com'],
    });
    expect(res.json.data[5].detail).toMatchObject({
      amount: '100000.00',
      currency: 'CRC',
      method: 'sinpe_movil',
    });

    const rej = await api(e, 'GET', `/api/v1/invoices/${rejected.id}/timeline`, s.key);
    expect(rej.json.data.at(-1)).toMatchObject({ type: 'answered', detail: { status: 'rechazada' } });
    const missing = await api(e, 'GET', '/api/v1/invoices/inv_000099999999/timeline', s.key);
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('resource_not_found');
  });
});

async function connect(page: Page, path: string) {
  await page.goto(`${e.apiUrl}${path}`);
  await page.fill('#key', s.key);
  await page.click('#connect-btn');
  await page.waitForSelector('body[data-loaded="true"]', { timeout: 20_000 });
}

async function reloaded(page: Page, act: () => Promise<unknown>) {
  await page.evaluate(() => document.body.removeAttribute('data-loaded'));
  await act();
  await page.waitForSelector('body[data-loaded="true"]', { timeout: 20_000 });
}

const rowIds = (page: Page) =>
  page.locator('#list-body tr').evaluateAll((r) => r.map((x) => x.getAttribute('data-id')));

async function shot(page: Page, name: string) {
  const path = join(ARTIFACTS, name);
  rmSync(path, { force: true }); // an earlier run's picture proves nothing
  await page.screenshot({ path, fullPage: true });
  expect(statSync(path).size).toBeGreaterThan(10_000);
}

describe('invoice browser', () => {
  it('lists, filters and pages through the documents; the key stays in the tab', async () => {
    const page = await browser.newPage({ viewport: { width: 1250, height: 1000 } });
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await connect(page, '/dashboard/invoices');
    // The key form folds away; the focus moves on to the first filter, not to the page's top.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-status');
    expect(await page.locator('#key').isHidden()).toBe(true);

    // Newest first, 20 a page: 19 drafts, then the rejected one; client names looked up.
    expect(await page.locator('#list-body tr').count()).toBe(20);
    expect((await rowIds(page))[19]).toBe(rejected.id);
    await page.waitForFunction(() =>
      document.querySelector('#list-body')!.textContent!.includes('Juana Pérez Mora'),
    );
    expect(await page.locator('#summary').innerText()).toContain('more on the next page');
    expect(await page.locator('#mode').innerText()).toBe('sandbox');

    await reloaded(page, () => page.click('#older'));
    expect(await rowIds(page)).toEqual([other.id, accepted.id]);
    expect(await page.locator('#page-no').innerText()).toBe('Page 2');
    expect(await page.locator('#older').isDisabled()).toBe(true);
    await reloaded(page, () => page.click('#newer'));
    expect(await page.locator('#list-body tr').count()).toBe(20);

    // Status.
    await page.selectOption('#f-status', 'aceptada');
    await reloaded(page, () => page.click('#apply'));
    expect(await rowIds(page)).toEqual([other.id, accepted.id]);
    const accRow = await page.locator(`#list-body tr[data-id="${accepted.id}"]`).innerText();
    expect(accRow).toContain(accepted.consecutivo);
    expect(accRow).toContain('Accepted');
    expect(accRow).toContain('Partly paid');
    expect(accRow).toContain('pedido-1001');
    expect(new URL(page.url()).searchParams.get('status')).toBe('aceptada');
    await shot(page, 'invoices-list.png');

    // Client by name (resolved through the clients search), then text, then dates.
    await page.selectOption('#f-status', '');
    await page.fill('#f-client', 'Ferretería');
    await reloaded(page, () => page.click('#apply'));
    expect(await rowIds(page)).toEqual([other.id]);
    await page.fill('#f-client', '');
    await page.fill('#f-q', accepted.clave);
    await reloaded(page, () => page.click('#apply'));
    expect(await rowIds(page)).toEqual([accepted.id]);
    await page.fill('#f-q', '');
    await page.selectOption('#f-status', 'rechazada');
    await reloaded(page, () => page.click('#apply'));
    expect(await rowIds(page)).toEqual([rejected.id]);
    const tomorrow = new Date(Date.now() + 86_400_000);
    const day = (d: Date) =>
      `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    await page.fill('#f-from', day(tomorrow));
    await reloaded(page, () => page.click('#apply'));
    expect(await page.locator('#list-body tr').count()).toBe(0);
    expect(await page.locator('#summary').innerText()).toBe('No documents match these filters.');
    await page.fill('#f-from', '');
    await page.fill('#f-to', day(new Date()));
    await reloaded(page, () => page.click('#apply'));
    expect(await rowIds(page)).toEqual([rejected.id]);

    // Back and forward in history restore the filters.
    await reloaded(page, () => page.goBack());
    expect(await page.inputValue('#f-to')).toBe('');
    expect(await rowIds(page)).toEqual([]);

    // The key: in sessionStorage only, never in a URL or lasting storage.
    const storage = await page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: localStorage.length,
    }));
    expect(storage.session).toContain(s.key);
    expect(storage.local).toBe(0);
    expect(requested.some((u) => u.includes(s.key))).toBe(false);
    expect(requested.every((u) => u.startsWith(e.apiUrl))).toBe(true); // nothing from elsewhere
    await page.close();
  }, 90_000);

  it('opens a document: data, totals, timeline, downloads and a resent email', async () => {
    const page = await browser.newPage({ viewport: { width: 1250, height: 1000 }, acceptDownloads: true });
    await connect(page, '/dashboard/invoices?q=pedido-1001');
    await page.click(`a[data-id="${accepted.id}"]`);
    await page.waitForURL(`**/dashboard/invoices/${accepted.id}`);
    await page.waitForSelector('body[data-loaded="true"]');

    expect(await page.locator('#doc-title').innerText()).toContain(accepted.consecutivo);
    expect(await page.locator('#doc-title').innerText()).toContain('Accepted');
    expect(await page.locator('#clave').innerText()).toBe(accepted.clave);
    const text = async (sel: string) => (await page.locator(sel).innerText()).replace(/\u00a0/g, ' ');
    expect(await text('#total')).toBe('CRC 508,500.00'); // 450 000 + 13 %
    expect(await text('#balance')).toBe('CRC 408,500.00');
    await page.waitForFunction(() => document.querySelector('#client')!.textContent!.includes('Juana'));
    expect(await page.locator('#lines tr').count()).toBe(1);
    expect(await page.locator('#lines').innerText()).toContain('Computadora portátil');
    const steps = () =>
      page.locator('#timeline li').evaluateAll((l) => l.map((x) => x.getAttribute('data-type')));
    expect(await steps()).toEqual(['recorded', 'signed', 'submitted', 'answered', 'emailed', 'paid']);
    const timeline = await text('#timeline');
    expect(timeline).toContain('Accepted by Hacienda');
    expect(timeline).toContain('juana@example.com');
    expect(timeline).toContain('CRC 100,000.00');
    expect(await page.locator('#rejection').isHidden()).toBe(true);
    expect(await page.locator('#credit').isVisible()).toBe(true);

    // Downloads: each file with its content type, saved by the browser under the clave.
    for (const [button, path, type, start, name] of [
      ['#dl-pdf', '/pdf', 'application/pdf', '%PDF-', `${accepted.clave}.pdf`],
      ['#dl-xml', '/xml', 'application/xml; charset=utf-8', '<?xml', `${accepted.clave}.xml`],
      [
        '#dl-response',
        '/response',
        'application/xml; charset=utf-8',
        '<?xml',
        `${accepted.clave}-respuesta.xml`,
      ],
    ] as const) {
      const [response, download] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/api/v1/invoices/${accepted.id}${path}`)),
        page.waitForEvent('download'),
        page.click(button),
      ]);
      expect(response.status()).toBe(200);
      expect(response.headers()['content-type']).toBe(type);
      expect(download.suggestedFilename()).toBe(name);
      const file = await download.path();
      expect(readFileSync(file).subarray(0, start.length).toString()).toBe(start);
      if (path === '/response') expect(readFileSync(file).toString()).toContain('MensajeHacienda');
    }
    await page.waitForSelector('#action-result.ok');
    await shot(page, 'invoice-accepted.png');

    // Resend the email with an extra recipient: queued, on the timeline, and delivered.
    await page.click('#resend');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('resend-extra');
    await page.fill('#resend-extra', 'contabilidad@cliente.example');
    await page.click('#resend-send');
    await page.waitForFunction(() =>
      document.querySelector('#action-result')!.textContent!.startsWith('Email queued'),
    );
    expect(await page.locator('#action-result').innerText()).toContain('contabilidad@cliente.example');
    // The timeline is read again once the email is queued.
    await page.waitForFunction(() =>
      document.querySelector('#timeline')!.textContent!.includes('Email resent (1)'),
    );
    await waitFor(
      async () =>
        (await catcher.messages()).some(
          (m) =>
            m.headers['x-factura-clave'] === accepted.clave && m.to.includes('contabilidad@cliente.example'),
        ),
      30_000,
      200,
      'the resent email',
    );
    await page.close();
  }, 90_000);

  it('shows why Hacienda rejected a document and how to fix it; no resend or credit note there', async () => {
    const page = await browser.newPage({ viewport: { width: 1250, height: 1000 } });
    await connect(page, `/dashboard/invoices/${rejected.id}`);
    expect(await page.locator('#doc-title').innerText()).toContain('Rejected');
    expect(await page.locator('#rejection').isVisible()).toBe(true);
    const json = (await api(e, 'GET', `/api/v1/invoices/${rejected.id}`, s.key)).json;
    expect(await page.locator('#rejection-summary').innerText()).toBe(json.rejection_reason.summary.en);
    const items = page.locator('#rejection-items li');
    expect(await items.count()).toBe(json.rejection_reason.items.length);
    expect(await items.first().locator('.fix').innerText()).toContain(json.rejection_reason.items[0].fix.en);
    expect(await page.locator('#credit').isHidden()).toBe(true);
    expect(await page.locator('#resend').isHidden()).toBe(true);
    expect(await page.locator('#dl-response').isDisabled()).toBe(false); // the rejection message itself
    expect(await page.locator('#timeline li').last().innerText()).toContain('Rejected by Hacienda');
    await shot(page, 'invoice-rejected.png');
    await page.close();
  }, 60_000);

  it('is usable with the keyboard alone: focus order, visible focus, Enter opens and acts', async () => {
    const page = await browser.newPage({ viewport: { width: 1250, height: 1000 } });
    await connect(page, '/dashboard/invoices?status=aceptada');
    const focused = () =>
      page.evaluate(() => {
        const a = document.activeElement as HTMLElement;
        return {
          id: a.id,
          tag: a.tagName,
          text: a.textContent!.trim().slice(0, 40),
          data: a.getAttribute('data-id'),
        };
      });
    // A fresh load (the key is in the tab already), then Tab from the top of the page. A date
    // field takes one Tab stop per part (day, month, year): consecutive stops on one control count once.
    await page.goto(`${e.apiUrl}/dashboard/invoices?status=aceptada`);
    await page.waitForSelector('body[data-loaded="true"]');
    const order: string[] = [];
    for (let i = 0; i < 24 && order.length < 14; i++) {
      await page.keyboard.press('Tab');
      const f = await focused();
      const name = f.data ?? (f.id || f.text);
      if (order.at(-1) !== name) order.push(name);
    }
    expect(order.slice(0, 13)).toEqual([
      'Skip to the documents',
      'API usage',
      'Documents',
      'forget',
      'f-status',
      'f-type',
      'f-client',
      'f-from',
      'f-to',
      'f-q',
      'apply',
      'clear',
      other.id,
    ]);
    expect(order[13]).toBe(accepted.id);
    // The focused element is drawn with a visible outline.
    await page.focus(`a[data-id="${accepted.id}"]`);
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');

    // Enter on the link opens the document; Tab reaches the actions in order.
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/dashboard/invoices/${accepted.id}`);
    await page.waitForSelector('body[data-loaded="true"]');
    const reached: string[] = [];
    for (let i = 0; i < 14 && !reached.includes('credit'); i++) {
      await page.keyboard.press('Tab');
      reached.push((await focused()).id);
    }
    const actions = reached.filter((x) =>
      ['back', 'dl-pdf', 'dl-xml', 'dl-response', 'resend', 'credit'].includes(x),
    );
    expect(actions).toEqual(['back', 'dl-pdf', 'dl-xml', 'dl-response', 'resend', 'credit']);

    // Enter on "Issue credit note" opens its form with the reason focused; the form is labelled.
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('credit-reason');
    expect(await page.locator('label[for="credit-reason"]').count()).toBe(1);
    expect(await page.locator('label[for="credit-code"]').count()).toBe(1);
    await page.keyboard.type('Devolución del equipo');
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe('credit-code');
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe('credit-send');
    // Enter issues the note: a whole credit note of the invoice, recorded and shown.
    const posted = page.waitForRequest((r) => r.url().endsWith(`/${accepted.id}/credit_notes`));
    await page.keyboard.press('Enter');
    const req = await posted;
    expect(req.method()).toBe('POST');
    expect(JSON.parse(req.postData()!)).toEqual({ reason: 'Devolución del equipo' });
    await page.waitForSelector('#action-result.ok');
    expect(await page.locator('#action-result').innerText()).toMatch(
      /^Credit note \d{20} recorded; Hacienda will answer shortly\.$/,
    );
    expect(await page.locator('#credit-form').isHidden()).toBe(true);
    const credited = await api(e, 'GET', `/api/v1/invoices/${accepted.id}`, s.key);
    expect(credited.json.credited_total).toBe(credited.json.total);
    const notes = await api(e, 'GET', '/api/v1/invoices?document_type=03', s.key);
    expect(
      notes.json.data.map((n: { reference: { document_id: string } }) => n.reference.document_id),
    ).toEqual([accepted.id]);

    // Escape hatch by keyboard: Cancel closes the form and gives focus back to its button.
    await page.focus('#credit');
    await page.keyboard.press('Enter');
    await page.focus('#credit-cancel');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('credit');
    expect(await page.locator('#credit-form').isHidden()).toBe(true);

    // Enter on "Resend email" opens its form; Enter in the field sends it.
    await page.focus('#resend');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('resend-extra');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() =>
      document.querySelector('#action-result')!.textContent!.startsWith('Email queued'),
    );
    expect((await focused()).id).toBe('resend');
    await page.close();
  }, 60_000);

  it('a key without read:invoices gets a readable error', async () => {
    const { createApiKey } = await import('../db/queries/api-keys.ts');
    const { secret } = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: false,
      name: 'usage only',
      scopes: ['read:usage'],
    });
    const page = await browser.newPage();
    await page.goto(`${e.apiUrl}/dashboard/invoices`);
    await page.fill('#key', secret);
    await page.click('#connect-btn');
    await page.waitForSelector('#error:not(.hidden)');
    expect(await page.locator('#error').innerText()).toMatch(/read:invoices/);
    expect(await page.locator('#results').isHidden()).toBe(true);
    await page.close();
  });
});
