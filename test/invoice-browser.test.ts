// The invoice browser (the application's /app/documentos, signed in as a person of the company) over
// the real service (API, workers, the Hacienda simulator and a real SMTP catcher process) in headless
// Chromium: list, filter and page through documents, open one (data, totals, timeline, rejection
// reason with its fix), download its PDF, signed XML and Hacienda's answer, resend its email, the
// credit-note link, and all of it with the keyboard; the old /dashboard/invoices address leads there.
// Also the API parts it stands on: the list's `document_type` and `q` filters and the timeline.
// Leaves test/artifacts/invoices-list.png, invoice-accepted.png and invoice-rejected.png.
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { createClient } from '../db/queries/clients.ts';
import { setEmailDelivery } from '../db/queries/companies.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { CHROMIUM, launchBrowser } from './helpers/browser.ts';
import { startCatcherProcess, type CatcherProcess } from './helpers/mail-catcher.ts';
import { waitFor } from './helpers/wait.ts';
import { createTestPerson, signedInContext } from './helpers/web-session.ts';

const ARTIFACTS = join(projectRoot, 'test/artifacts');
const pad = (n: number) => String(n).padStart(12, '0');

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let catcher: CatcherProcess;
let browser: Browser;
type Inv = { id: string; clave: string; consecutivo: string; status: string };
let accepted: Inv; // Juana, credit sale, partly paid, external id
let other: Inv; // Ferretería, accepted, with the 10 % service charge
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
    other_charges: [{ code: '06' }],
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

  browser = await launchBrowser();
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

async function signedIn(role: 'owner' | 'viewer' = 'owner'): Promise<BrowserContext> {
  const person = await createTestPerson(e.db, s.company.id, role);
  return signedInContext(browser, e.apiUrl, person, { width: 1250, height: 1000 });
}

const rowIds = (page: Page) =>
  page.locator('#list-body tr').evaluateAll((r) => r.map((x) => x.getAttribute('data-id')));

async function shot(page: Page, name: string) {
  const path = join(ARTIFACTS, name);
  rmSync(path, { force: true }); // an earlier run's picture proves nothing
  await page.screenshot({ path, fullPage: true });
  expect(statSync(path).size).toBeGreaterThan(10_000);
}

const money = (text: string | null) => (text ?? '').replace(/\s/g, ' ');

describe('invoice browser', () => {
  it('lists, filters and pages through the documents; the old address leads there', async () => {
    const context = await signedIn();
    const page = await context.newPage();
    await page.goto(`${e.apiUrl}/dashboard/invoices`);
    await page.waitForURL(`${e.apiUrl}/app/documentos`);
    await page.locator('#list-body tr').nth(19).waitFor();
    expect(await page.locator('#list-body tr').count()).toBe(20);
    const first = await rowIds(page);
    // Newest first: the 19 drafts and the rejected one, then the two accepted ones.
    expect(first).toContain(rejected.id);
    await page.getByRole('button', { name: 'Siguiente' }).click();
    await expect.poll(async () => (await rowIds(page))[0]).not.toBe(first[0]);
    const second = await rowIds(page);
    expect(second).toEqual([other.id, accepted.id]);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    await page.getByRole('button', { name: 'Anterior' }).click();
    await expect.poll(async () => (await rowIds(page))[0]).toBe(first[0]);

    await page.selectOption('#f-status', 'rechazada');
    await expect.poll(() => rowIds(page)).toEqual([rejected.id]);
    expect(page.url()).toContain('estado=rechazada');
    await page.selectOption('#f-status', 'aceptada');
    await expect.poll(async () => (await rowIds(page)).sort()).toEqual([accepted.id, other.id].sort());
    await shot(page, 'invoices-list.png');
    await context.close();
  }, 60_000);

  it('opens a document: data, totals, timeline, downloads and a resent email', async () => {
    const context = await signedIn();
    const page = await context.newPage();
    await page.goto(`${e.apiUrl}/app/documentos?estado=aceptada`);
    await page.getByRole('link', { name: accepted.consecutivo }).click();
    await page.waitForURL(`**/app/documentos/${accepted.id}`);
    await page.locator('.doc-status [data-status="aceptada"]').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toContain(accepted.consecutivo);
    expect(await page.locator('dd.mono').first().innerText()).toBe(accepted.clave);
    expect(money(await page.getByTestId('total').textContent())).toBe('₡508 500,00'); // 450 000 + 13 %
    expect(money(await page.locator('dl.facts.card').innerText())).toContain('₡408 500,00'); // balance due
    expect(await page.locator('table').first().innerText()).toContain('Computadora portátil');
    const steps = () =>
      page.locator('#timeline li').evaluateAll((l) => l.map((x) => x.getAttribute('data-type')));
    await expect.poll(steps).toEqual(['recorded', 'signed', 'submitted', 'answered', 'emailed', 'paid']);
    expect(await page.locator('#timeline').innerText()).toContain('Aceptada');
    expect(await page.getByTestId('explanation').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Emitir nota de crédito' }).count()).toBe(1);

    for (const [button, start, name] of [
      ['Descargar PDF', '%PDF-', `${accepted.consecutivo}.pdf`],
      ['Descargar XML', '<?xml', `${accepted.consecutivo}.xml`],
      ['Descargar respuesta de Hacienda', '<?xml', `${accepted.consecutivo}-respuesta.xml`],
    ] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: button }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(name);
      const bytes = readFileSync((await download.path())!);
      expect(bytes.subarray(0, start.length).toString()).toBe(start);
      if (name.endsWith('-respuesta.xml')) expect(bytes.toString()).toContain('MensajeHacienda');
      if (name.endsWith(`${accepted.consecutivo}.xml`)) expect(bytes.toString()).toContain(accepted.clave);
    }
    await shot(page, 'invoice-accepted.png');

    const before = (await catcher.messages()).filter(
      (m) => m.headers['x-factura-clave'] === accepted.clave,
    ).length;
    await page.getByRole('button', { name: 'Reenviar por correo' }).click();
    await page.getByText('El correo quedó en cola.').waitFor();
    await waitFor(
      async () =>
        (await catcher.messages()).filter((m) => m.headers['x-factura-clave'] === accepted.clave).length >
        before,
      30_000,
      200,
      'the resent email',
    );
    await context.close();
  }, 90_000);

  it("shows a document's other charges from the invoice's totals (total_otros_cargos)", async () => {
    const inv = (await api(e, 'GET', `/api/v1/invoices/${other.id}`, s.key)).json;
    // 3 × ₡33,33333 = ₡99,99999 net; the 10 % service charge rounds to ₡10,00000.
    expect(inv.totals.total_otros_cargos).toBe('10.00000');
    const context = await signedIn();
    const page = await context.newPage();
    await page.goto(`${e.apiUrl}/app/documentos/${other.id}`);
    await page.locator('.doc-status [data-status="aceptada"]').waitFor();
    const totals = money(await page.getByTestId('totals').innerText());
    expect(totals).toMatch(/Otros cargos\s+₡10,00/);
    expect(money(await page.getByTestId('total').textContent())).toBe(`₡${inv.total.replace('.', ',')}`);
    await context.close();
  }, 60_000);

  it('shows why Hacienda rejected a document and how to fix it; no resend or credit note there', async () => {
    const context = await signedIn();
    const page = await context.newPage();
    await page.goto(`${e.apiUrl}/app/documentos/${rejected.id}`);
    await page.locator('.doc-status [data-status="rechazada"]').waitFor();
    const json = (await api(e, 'GET', `/api/v1/invoices/${rejected.id}`, s.key)).json;
    const why = page.getByTestId('explanation');
    expect(await why.locator('p').innerText()).toBe(
      json.rejection_reason.summary.es || json.rejection_reason.message,
    );
    expect(await why.locator('li').count()).toBe(json.rejection_reason.items.length);
    expect(await why.locator('li').first().innerText()).toContain(json.rejection_reason.items[0].fix.es);
    expect(await page.getByRole('link', { name: 'Emitir nota de crédito' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reenviar por correo' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Descargar respuesta de Hacienda' }).count()).toBe(1);
    await expect.poll(async () => page.locator('#timeline li').last().innerText()).toContain('Rechazada');
    await shot(page, 'invoice-rejected.png');
    await context.close();
  }, 60_000);

  it('is usable with the keyboard alone: Tab reaches a document, Enter opens it', async () => {
    const context = await signedIn();
    const page = await context.newPage();
    await page.goto(`${e.apiUrl}/app/documentos?estado=rechazada`);
    await page.locator('#list-body tr').first().waitFor();
    const focused = () =>
      page.evaluate(() => (document.activeElement as HTMLElement | null)?.textContent ?? '');
    for (let i = 0; i < 60 && (await focused()) !== rejected.consecutivo; i++)
      await page.keyboard.press('Tab');
    expect(await focused()).toBe(rejected.consecutivo);
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(ring).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/app/documentos/${rejected.id}`);
    // The new page's heading takes the focus.
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await context.close();
  }, 60_000);

  it('a viewer browses the documents but gets no issuing or email actions', async () => {
    const context = await signedIn('viewer');
    const page = await context.newPage();
    await page.goto(`${e.apiUrl}/app/documentos/${accepted.id}`);
    await page.locator('.doc-status [data-status="aceptada"]').waitFor();
    expect(await page.getByRole('button', { name: 'Reenviar por correo' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Emitir nota de crédito' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Descargar XML' }).count()).toBe(1);
    await context.close();
  }, 60_000);
});
