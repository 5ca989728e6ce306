// The whole journey through the application in a real headless Chromium against the whole
// service (API, workers, Hacienda simulator, mail catcher): sign up, confirm from the email, register
// a company, upload its sandbox .p12 and Hacienda credentials, issue a factura through the form
// (live totals from the server), watch it reach aceptada, issue a credit note of it; an accountant
// invited by email (the link from the mail catcher) signs up and
// downloads the month's report (CSV: the factura's total) and archive (ZIP: the factura's XML); a
// viewer cannot issue (no button; the API answers 403 when forced); another company's document
// answers "no encontrado". Leaves test/artifacts/web-*.png (web-issue-form.png: the README's).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { CHROMIUM, launchBrowser } from './helpers/browser.ts';
import { startCatcherProcess, type CatcherProcess } from './helpers/mail-catcher.ts';
import { waitFor } from './helpers/wait.ts';
import { ARTIFACTS, shot, signInToNewCompany, uploadTestCertificate } from './helpers/web-steps.ts';
import { createTestPerson, signedInContext } from './helpers/web-session.ts';

const EMAIL = 'ana.mora@valle.example';
const PASSWORD = 'cafe-de-altura-2026';

let e: E2E;
let catcher: CatcherProcess;
let browser: Browser;
let temp: string;

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('chromium is missing: apt-get install -y chromium');
  mkdirSync(ARTIFACTS, { recursive: true });
  temp = mkdtempSync(join(tmpdir(), 'web-journey-'));
  catcher = await startCatcherProcess();
  e = await startE2E({ env: { SMTP_URL: catcher.smtpUrl, SMTP_SANDBOX_URL: catcher.smtpUrl } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await e?.close();
  await catcher?.stop();
  if (temp) rmSync(temp, { recursive: true, force: true });
});

async function signUpAndConfirm(page: Page): Promise<void> {
  await page.goto(`${e.apiUrl}/app/registro`);
  await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('es-CR');
  await page.getByLabel('Nombre').fill('Ana Mora Solís');
  await page.getByLabel('Correo electrónico').fill(EMAIL);
  await page.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
  await shot(page, 'signup');
  await page.getByRole('button', { name: 'Crear cuenta' }).click();
  await page.getByRole('heading', { name: 'Revise su correo' }).waitFor();
  let text = '';
  await waitFor(
    async () => {
      text = (await catcher.messages()).find((m) => m.to.includes(EMAIL))?.text ?? '';
      return text !== '';
    },
    20_000,
    200,
    'the confirmation email',
  );
  const token = /\/app\/confirmar\?token=([\w.~-]+)/.exec(text)?.[1];
  expect(token, text).toBeTruthy();
  await page.goto(`${e.apiUrl}/app/confirmar?token=${token}`);
  await page.getByText('Su correo quedó confirmado').waitFor();
  await shot(page, 'confirm');
}

async function setUpCompany(page: Page): Promise<void> {
  await signUpAndConfirm(page);
  await signInToNewCompany(page, e.apiUrl, EMAIL, PASSWORD);
  await page.getByRole('textbox', { name: 'Cédula' }).fill('3-101-123456');
  await page.getByRole('button', { name: 'Registrar empresa' }).click();
  await page.getByText('Empresa registrada').waitFor();
  await uploadTestCertificate(page, temp);
  await page
    .getByRole('link', { name: /Hacienda/ })
    .first()
    .click();
  await page.getByLabel('Usuario de Hacienda').fill('cpj-3-101-123456@stag.comprobanteselectronicos.go.cr');
  await page.getByLabel('Contraseña de Hacienda').fill('clave-sandbox');
  await page.getByRole('button', { name: 'Probar y guardar' }).click();
  await page.getByText('Hacienda aceptó las credenciales').waitFor();
  // The emisor's address and email (what the company settings page sends).
  const status = await page.evaluate(async () => {
    const s = (await (await fetch('/api/v1/session')).json()) as {
      csrf_token: string;
      memberships: { company: { id: string } }[];
    };
    const r = await fetch('/api/v1/company', {
      method: 'PATCH',
      headers: {
        'content-type': 'application/json',
        'x-csrf-token': s.csrf_token,
        'factura-company': s.memberships[0]!.company.id,
      },
      body: JSON.stringify({
        email: 'facturas@valle.example',
        location: { provincia: '1', canton: '01', distrito: '01', otras_senas: 'Frente al parque central' },
      }),
    });
    return r.status;
  });
  expect(status).toBe(200);
}

/** The factura form: a client and a service created in its dialogs, one line, live totals. */
async function writeFactura(page: Page): Promise<void> {
  await page.goto(`${e.apiUrl}/app/documentos/nuevo?tipo=01`);
  await page.getByRole('button', { name: 'Nuevo cliente' }).click();
  const clientDialog = page.getByRole('dialog', { name: 'Nuevo cliente' });
  await clientDialog.getByLabel('Identificación').fill('114250789');
  await clientDialog.getByLabel('Nombre').fill('Juana Pérez Rojas');
  await clientDialog.getByLabel('Correo electrónico').fill('juana@cliente.example');
  await clientDialog.getByRole('button', { name: 'Crear' }).click();
  await page.getByText('Juana Pérez Rojas').waitFor();
  await page.getByRole('button', { name: 'Nuevo producto o servicio' }).click();
  const svc = page.getByRole('dialog', { name: 'Nuevo producto o servicio' });
  await svc.getByLabel(/Código CABYS/).fill('8314100000200');
  await svc.getByRole('button', { name: /^8314100000200/ }).click();
  await svc.getByLabel('Descripción').fill('Consultoría en sistemas');
  await svc.getByLabel('Unidad de medida').selectOption('Sp');
  await svc.getByLabel('Tarifa de IVA').selectOption('08');
  await svc.getByLabel(/Precio unitario/).fill('10000');
  await svc.getByRole('button', { name: 'Guardar' }).click();
  await page.getByLabel('Cantidad').fill('2');
  // The server's totals: 2 × ₡10 000 + 13 % IVA.
  await expect
    .poll(() => page.getByTestId('total').textContent(), { timeout: 15_000 })
    .toMatch(/22\s?600,00/);
  await shot(page, 'issue-form');
}

async function waitAccepted(page: Page): Promise<string> {
  await page.waitForURL(/\/app\/documentos\/inv_\w+$/);
  await page.locator('.doc-status [data-status="aceptada"]').waitFor({ timeout: 60_000 });
  return page.url().split('/').at(-1)!;
}

async function download(page: Page, button: string): Promise<Buffer> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  return readFileSync((await file.path())!);
}

describe('the journey through the application', () => {
  it('sign-up to an accepted factura and its credit note, the accountant’s report, a viewer and another company', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 1000 }, locale: 'es-CR' });
    const page = await context.newPage();
    await setUpCompany(page);
    await writeFactura(page);
    await page.getByRole('button', { name: 'Emitir', exact: true }).click();
    const facturaId = await waitAccepted(page);
    await page.locator('#timeline li[data-type="answered"]').waitFor();
    await shot(page, 'document');
    const clave = (await page.locator('dd.mono').first().textContent())!.trim();
    expect(clave).toMatch(/^\d{50}$/);

    await page.getByRole('link', { name: 'Emitir nota de crédito' }).click();
    await page.getByLabel('Razón').fill('Anulación por error en el cliente');
    await shot(page, 'credit-note');
    await page.getByRole('button', { name: 'Emitir nota de crédito' }).click();
    const noteId = await waitAccepted(page);
    expect(noteId).not.toBe(facturaId);
    await page.goto(`${e.apiUrl}/app/documentos`);
    await page.locator('#list-body tr').nth(1).waitFor();
    await shot(page, 'documents');

    // The company's people: an accountant invited from the owner's session (the email read from
    // the catcher, the link followed to sign up), and a viewer given the role in the database.
    const company = (await e.db('companies').where({ idNumber: '3101123456' }).first()) as { id: number };
    const invited = await page.evaluate(async () => {
      const s = (await (await fetch('/api/v1/session')).json()) as {
        csrf_token: string;
        memberships: { company: { id: string } }[];
      };
      const r = await fetch('/api/v1/members/invitations', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-csrf-token': s.csrf_token,
          'factura-company': s.memberships[0]!.company.id,
        },
        body: JSON.stringify({ email: 'carlos@contadores.example', role: 'accountant' }),
      });
      return r.status;
    });
    expect(invited).toBe(201);
    let mail = '';
    await waitFor(
      async () => {
        mail = (await catcher.messages()).find((m) => m.to.includes('carlos@contadores.example'))?.text ?? '';
        return mail !== '';
      },
      20_000,
      200,
      'the invitation email',
    );
    const token = /\/app\/invitacion\?token=([\w.~-]+)/.exec(mail)?.[1];
    expect(token, mail).toBeTruthy();
    const accountant = { id: 0, email: 'carlos@contadores.example', password: 'libros-contables-2026' };
    const signUp = await browser.newPage();
    await signUp.goto(`${e.apiUrl}/app/registro?invitacion=${token}`);
    await signUp.getByLabel('Nombre').fill('Carlos Contador');
    await signUp.getByLabel('Correo electrónico').fill(accountant.email);
    await signUp.getByLabel('Contraseña', { exact: true }).fill(accountant.password);
    await signUp.getByRole('button', { name: 'Crear cuenta' }).click();
    await waitFor(
      async () =>
        Boolean(await e.db('memberships').where({ companyId: company.id, role: 'accountant' }).first()),
      20_000,
      200,
      'the accountant’s membership',
    );
    await signUp.close();
    const acc = await signedInContext(browser, e.apiUrl, accountant);
    const accPage = await acc.newPage();
    await accPage.goto(`${e.apiUrl}/app/reportes`);
    await accPage.getByTestId('report-totals').waitFor();
    await shot(accPage, 'reports');
    const csv = (await download(accPage, 'Descargar CSV')).toString('utf8');
    expect(csv).toContain('22600,00');
    const zip = await download(accPage, 'Descargar comprobantes (ZIP)');
    expect(zip.subarray(0, 2).toString()).toBe('PK');
    expect(zip.includes(Buffer.from(`emitidos/${clave}.xml`))).toBe(true);
    await acc.close();

    const viewer = await createTestPerson(e.db, company.id, 'viewer', 'Vera Consulta');
    const vc = await signedInContext(browser, e.apiUrl, viewer);
    const vp = await vc.newPage();
    await vp.goto(`${e.apiUrl}/app/documentos`);
    await vp.locator('#list-body tr').first().waitFor();
    expect(await vp.getByRole('link', { name: 'Emitir un documento' }).count()).toBe(0);
    await vp.goto(`${e.apiUrl}/app/documentos/${facturaId}`);
    await vp.locator('[data-status="aceptada"]').first().waitFor();
    expect(await vp.getByRole('link', { name: 'Emitir nota de crédito' }).count()).toBe(0);
    const forced = await vp.evaluate(
      async (cmp) => {
        const s = (await (await fetch('/api/v1/session')).json()) as { csrf_token: string };
        const r = await fetch('/api/v1/invoices', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-csrf-token': s.csrf_token,
            'factura-company': cmp,
          },
          body: JSON.stringify({ lines: [] }),
        });
        return r.status;
      },
      `cmp_${String(company.id).padStart(12, '0')}`,
    );
    expect(forced).toBe(403);
    await shot(vp, 'viewer');
    await vc.close();

    // Another company's document: the API answers 404 and the page says so.
    const other = await seedIssuer(e.db, e.config, '3101654321');
    const pad = (n: number) => String(n).padStart(12, '0');
    const draft = await api(e, 'POST', '/api/v1/invoices', other.key, {
      client_id: `cli_${pad(other.client.id)}`,
      lines: [{ service_id: `srv_${pad(other.laptop.id)}`, qty: 1 }],
      send: false,
    });
    expect(draft.status, draft.text).toBe(201);
    await page.goto(`${e.apiUrl}/app/documentos/${draft.json.id as string}`);
    await page.getByRole('heading', { name: 'Documento no encontrado' }).waitFor();
    await shot(page, 'not-found');
    await context.close();
  }, 240_000);
});
