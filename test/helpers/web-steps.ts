// Steps in the application that several browser tests take the same way: a screenshot into
// test/artifacts/web-<name>.png, signing in as a person who has no company yet, and uploading a
// sandbox .p12 from the company's settings.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { projectRoot } from '../../config/index.ts';
import { createTestCertificate } from '../../hacienda/test-certificates.ts';

export const ARTIFACTS = join(projectRoot, 'test/artifacts');

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `web-${name}.png`), fullPage: true });

/** Signs in through the form and lands on the new-company wizard. */
export async function signInToNewCompany(
  page: Page,
  apiUrl: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${apiUrl}/app/ingresar`);
  await page.getByLabel('Correo electrónico').fill(email);
  await page.getByLabel('Contraseña').fill(password);
  await shot(page, 'signin');
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await page.waitForURL(/\/app\/empresas\/nueva$/);
}

/** Uploads a sandbox .p12 of Cafetalera del Valle (written to `dir`) through the certificate page. */
export async function uploadTestCertificate(page: Page, dir: string): Promise<void> {
  const cert = await createTestCertificate({
    idType: '02',
    idNumber: '3101123456',
    name: 'Cafetalera del Valle S.A.',
  });
  const file = join(dir, 'firma.p12');
  writeFileSync(file, cert.p12);
  await page
    .getByRole('link', { name: /Certificado/ })
    .first()
    .click();
  await page.getByLabel('Archivo .p12').setInputFiles(file);
  await page.getByLabel('PIN').fill(cert.pin);
  await page.getByRole('button', { name: 'Subir certificado' }).click();
  await page.getByText('Certificado guardado').waitFor();
  await shot(page, 'certificate');
}
