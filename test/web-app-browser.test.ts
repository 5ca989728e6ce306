// The application in a real headless Chromium against the whole service (API, workers, Hacienda
// simulator, mail catcher): sign up, confirm from the email, sign in, register a company, upload
// its sandbox .p12, enter sandbox Hacienda credentials (tested on the simulator's IDP), define a
// branch, rename it and give it a second terminal, and see the go-live checklist; the sign-in
// page on a phone, and a sign-in with the keyboard only.
// Leaves test/artifacts/web-*.png.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, type E2E } from './helpers/e2e.ts';
import { CHROMIUM, launchBrowser } from './helpers/browser.ts';
import { startCatcherProcess, type CatcherProcess } from './helpers/mail-catcher.ts';
import { freePort } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';
import { ARTIFACTS, shot, signInToNewCompany, uploadTestCertificate } from './helpers/web-steps.ts';

const EMAIL = 'ana.mora@valle.example';
const PASSWORD = 'cafe-de-altura-2026';

let e: E2E;
let catcher: CatcherProcess;
let browser: Browser;
let temp: string;

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('chromium is missing: apt-get install -y chromium');
  mkdirSync(ARTIFACTS, { recursive: true });
  temp = mkdtempSync(join(tmpdir(), 'web-app-'));
  catcher = await startCatcherProcess();
  // The emails' links are built from PUBLIC_URL: here the API's real address.
  e = await startE2E({
    port: await freePort(),
    env: { SMTP_URL: catcher.smtpUrl, SMTP_SANDBOX_URL: catcher.smtpUrl },
  });
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
  const link = /https?:\/\/\S+\/app\/confirmar\?token=[\w.~%-]+/.exec(text)?.[0];
  expect(link, text).toBeTruthy();
  expect(link!.startsWith(`${e.apiUrl}/app/confirmar?token=`), link).toBe(true);
  await page.goto(link!);
  await page.getByText('Su correo quedó confirmado').waitFor();
  await shot(page, 'confirm');
}

async function setUpBranches(page: Page): Promise<void> {
  await page
    .getByRole('link', { name: /Sucursales/ })
    .first()
    .click();
  await page.getByLabel('Nombre de la sucursal', { exact: true }).fill('Casa matriz');
  await page.getByRole('button', { name: 'Agregar sucursal' }).click();
  await page.getByRole('heading', { name: '001 · Casa matriz' }).waitFor();
  await page.getByLabel('Nuevo nombre de la sucursal 001').fill('Beneficio San Isidro');
  await page.getByRole('button', { name: 'Cambiar nombre' }).click();
  await page.getByRole('heading', { name: '001 · Beneficio San Isidro' }).waitFor();
  // The new terminal is offered the next number and keeps the branch's first one.
  expect(await page.getByLabel('Número de la caja nueva de la sucursal 001').inputValue()).toBe('00002');
  await page.getByLabel('Nombre de la caja nueva de la sucursal 001 (opcional)').fill('Caja de recibo');
  await page.getByRole('button', { name: 'Agregar caja' }).click();
  await page.getByText('Caja 00002 agregada a la sucursal 001.').waitFor();
  await page.getByText(/Cajas: 00001 \(.+\), 00002 \(Caja de recibo\)/).waitFor();
  await shot(page, 'branches');
}

describe('the application', () => {
  it('takes a new person from sign-up to a company with its sandbox set up and the go-live checklist', async () => {
    const page = await browser.newPage();
    await signUpAndConfirm(page);
    await signInToNewCompany(page, e.apiUrl, EMAIL, PASSWORD);
    await page.getByLabel('Cédula').fill('3-101-123456');
    await shot(page, 'company-new');
    await page.getByRole('button', { name: 'Registrar empresa' }).click();
    await page.getByText('Empresa registrada').waitFor();
    await expect.poll(() => page.getByTestId('mode-badge').textContent()).toBe('Pruebas');
    await shot(page, 'company-data');
    await uploadTestCertificate(page, temp);
    await page
      .getByRole('link', { name: /Hacienda/ })
      .first()
      .click();
    await page.getByLabel('Usuario de Hacienda').fill('cpj-3-101-123456@stag.comprobanteselectronicos.go.cr');
    await page.getByLabel('Contraseña de Hacienda').fill('clave-sandbox');
    await page.getByRole('button', { name: 'Probar y guardar' }).click();
    await page.getByText('Hacienda aceptó las credenciales').waitFor();
    await shot(page, 'hacienda');
    await setUpBranches(page);
    await page
      .getByRole('link', { name: /Producción/ })
      .first()
      .click();
    const checklist = page.getByTestId('go-live-checklist');
    await checklist.waitFor();
    expect(await checklist.getByRole('listitem').count()).toBe(3);
    // Production still needs its own certificate and credentials: the button waits.
    expect(await page.getByRole('button', { name: 'Pasar a producción' }).isDisabled()).toBe(true);
    await shot(page, 'checklist');
    await page.close();
  });

  it('fits the sign-in page on a phone with touch-sized controls', async () => {
    const context = await browser.newContext({
      viewport: { width: 375, height: 720 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(`${e.apiUrl}/app/ingresar`);
    const button = page.getByRole('button', { name: 'Ingresar' });
    await button.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    for (const control of [button, page.getByLabel('Correo electrónico'), page.getByLabel('Contraseña')])
      expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await shot(page, 'signin-phone');
    await context.close();
  });

  it('signs in with the keyboard only: skip link first, then the fields, Enter to send', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${e.apiUrl}/app/ingresar`);
    await page.getByRole('button', { name: 'Ingresar' }).waitFor();
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el?.getAttribute('name') ?? el?.className ?? el?.tagName ?? '';
      });
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('skip-link');
    for (let i = 0; i < 10 && (await focused()) !== 'email'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('email');
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => !url.pathname.endsWith('/ingresar'));
    await page.getByRole('navigation', { name: 'Navegación principal' }).waitFor();
    await shot(page, 'keyboard-signin');
    await context.close();
  });
});
