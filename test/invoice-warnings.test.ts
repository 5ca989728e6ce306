// Hacienda's observations on an accepted invoice, end to end through the simulator: a document
// Hacienda receives after the sending window (the simulator's `maxDocumentAgeMs` set to 0) is
// accepted with the observation -16 in a bare table. The invoice keeps it as `warnings` (on the
// API object, in its timeline, in the `invoice.accepted` event and on the invoice browser's page,
// Spanish first), is not rejected, and nothing about it says "rechazado"; an invoice accepted
// clean has `warnings: []` everywhere. Leaves test/artifacts/invoice-warnings.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { createTestPerson, signedInContext } from './helpers/web-session.ts';
import { launchBrowser } from './helpers/browser.ts';
import { waitFor } from './helpers/wait.ts';

const pad = (n: number) => String(n).padStart(12, '0');
const MSG_16 =
  'El archivo XML, fue enviado a la Dirección General de Tributación de manera extemporánea; con base en lo estipulado en el artículo 9 y 15 ambos de la resolución 48-2016';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let late: any;
let clean: any;

async function issueAccepted(): Promise<any> {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: `cli_${pad(s.client.id)}`,
    lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
  });
  expect(res.status, res.text).toBe(201);
  let inv: any;
  await waitFor(
    async () =>
      (inv = (await api(e, 'GET', `/api/v1/invoices/${res.json.id}`, s.key)).json).status !== 'enviada' &&
      inv.status !== 'pendiente',
    45_000,
    100,
    `invoice ${res.json.id} answered`,
  );
  expect(inv.status).toBe('aceptada');
  return inv;
}

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  // Every document is past the window by the time Hacienda reads it.
  e.sim.simulator.configure({ maxDocumentAgeMs: 0 });
  try {
    late = await issueAccepted();
  } finally {
    e.sim.simulator.configure({ maxDocumentAgeMs: 3 * 24 * 3600_000 });
  }
  clean = await issueAccepted();
}, 120_000);

afterAll(async () => {
  await e?.close();
});

describe('an invoice accepted with observations', () => {
  it('shows them as warnings on the invoice, accepted and not rejected', async () => {
    expect(late.warnings).toEqual([
      {
        code: -16,
        message: MSG_16,
        readable: {
          es: expect.stringMatching(/fuera del plazo/),
          en: expect.stringMatching(/after the allowed period/),
        },
        fix: { es: expect.any(String), en: expect.any(String) },
      },
    ]);
    expect(late.hacienda.status).toBe('aceptado');
    expect(late.rejection_reason).toBeNull();
    expect(JSON.stringify(late.warnings)).not.toMatch(/rechaz|reject/i);
    // The list carries them too.
    const list = await api(e, 'GET', `/api/v1/invoices?q=${late.id}`, s.key);
    expect(list.json.data[0].warnings.map((w: any) => w.code)).toEqual([-16]);
  });

  it('an invoice accepted clean has warnings: []', () => {
    expect(clean.warnings).toEqual([]);
    expect(clean.rejection_reason).toBeNull();
  });

  it('puts them on the timeline’s answer', async () => {
    const answered = async (id: string) =>
      (await api(e, 'GET', `/api/v1/invoices/${id}/timeline`, s.key)).json.data.find(
        (x: any) => x.type === 'answered',
      );
    const l = await answered(late.id);
    expect(l.detail.status).toBe('aceptada');
    expect(l.detail.warnings).toEqual(late.warnings);
    expect((await answered(clean.id)).detail).toMatchObject({ status: 'aceptada', warnings: [] });
  });

  it('carries them in the invoice.accepted event', async () => {
    const events = (await api(e, 'GET', '/api/v1/events?type=invoice.accepted', s.key)).json.data;
    const of = (id: string) => events.find((ev: any) => ev.data.id === id);
    expect(of(late.id).data.warnings).toEqual(late.warnings);
    expect(of(late.id).data.status).toBe('aceptada');
    expect(of(clean.id).data.warnings).toEqual([]);
  });

  it('shows them on the application’s document page, in Spanish', async () => {
    const browser: Browser = await launchBrowser();
    try {
      const person = await createTestPerson(e.db, s.company.id, 'owner');
      const context = await signedInContext(browser, e.apiUrl, person, { width: 1250, height: 1000 });
      const page = await context.newPage();
      await page.goto(`${e.apiUrl}/app/documentos/${late.id}`);
      const section = page.getByTestId('warnings');
      await section.waitFor({ timeout: 20_000 });
      const item = section.locator('li');
      expect(await item.count()).toBe(1);
      const text = await item.innerText();
      expect(text).toContain(late.warnings[0].readable.es);
      expect(await section.innerText()).toContain('Advertencias de Hacienda');
      // An accepted document: the page shows no rejection.
      expect(await page.locator('main').innerText()).not.toMatch(/rechazad|rejected/i);
      mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
      await page.screenshot({
        path: join(projectRoot, 'test/artifacts/invoice-warnings.png'),
        fullPage: true,
      });

      // An invoice accepted clean shows no warnings section.
      await page.goto(`${e.apiUrl}/app/documentos/${clean.id}`);
      await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 20_000 });
      await page.getByText('Correo al cliente').first().waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('warnings').count()).toBe(0);
      await context.close();
    } finally {
      await browser.close();
    }
  }, 60_000);
});
