// One balance for a document, however it is read: the invoice, its payments list and the invoice
// browser agree once credit notes and payments mix (total − credited − paid); a credit note owes
// nothing and has no payment status of its own (`not_applicable`), in the API and in the browser;
// a debit note is owed as a document of its own. The browser asks for no client a tiquete sold to
// no one does not have.
import { Decimal } from 'decimal.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, seedIssuer, startE2E, waitForDocumentStatus, type E2E } from './helpers/e2e.ts';
import { CHROMIUM, launchBrowser } from './helpers/browser.ts';
import { createTestPerson, signedInContext } from './helpers/web-session.ts';

const pad = (n: number) => String(n).padStart(12, '0');

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let browser: Browser;
let invoice: any; // credited in part, then paid in part
let note: any; // the credit note of one line of it

const get = async (path: string) => {
  const res = await api(e, 'GET', path, s.key);
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const post = async (path: string, body: unknown, status = 201) => {
  const res = await api(e, 'POST', path, s.key, body);
  expect(res.status, res.text).toBe(status);
  return res.json;
};
const accepted = (id: string) => waitForDocumentStatus(e, s.key, id, ['aceptada'], 45_000);

async function issue(qty: number[]): Promise<any> {
  const created = await post('/api/v1/invoices', {
    client_id: `cli_${pad(s.client.id)}`,
    condition: 'credito_30',
    credit_days: 30,
    lines: qty.map((q) => ({ service_id: `srv_${pad(s.consulting.id)}`, qty: q })),
  });
  return accepted(created.id);
}

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('chromium is missing: apt-get install -y chromium');
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  invoice = await issue([7, 3]);
  const created = await post(`/api/v1/invoices/${invoice.id}/credit_notes`, {
    reason: 'Devolución de la segunda línea',
    code: '06',
    lines: [{ line: 2 }],
  });
  note = await accepted(created.id);
  await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: '100.00', method: 'transferencia' });
  invoice = await get(`/api/v1/invoices/${invoice.id}`);
  browser = await launchBrowser();
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await e?.close();
});

describe('the balance of a credited and paid invoice', () => {
  it('is total − credited − paid on the invoice and on its last payment alike', async () => {
    const expected = new Decimal(invoice.total).minus(note.total).minus('100.00');
    expect(invoice.credited_total).toBe(note.total);
    expect(invoice).toMatchObject({ balance_due: expected.toFixed(2), payment_status: 'partial' });
    const payments = await get(`/api/v1/invoices/${invoice.id}/payments`);
    expect(payments.data).toHaveLength(1);
    expect(payments.data[0]).toMatchObject({
      amount: '100.00',
      invoice_balance_due: invoice.balance_due,
      invoice_payment_status: 'partial',
    });
  });

  it('each payment of the list shows the balance after it; paying the rest makes both paid', async () => {
    const rest = new Decimal(invoice.balance_due).minus('50.00').toFixed(2);
    await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: '50.00', method: 'efectivo' });
    await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: rest, method: 'sinpe_movil' });
    const after = await get(`/api/v1/invoices/${invoice.id}`);
    expect(after).toMatchObject({ balance_due: '0.00', payment_status: 'paid' });
    const payments = await get(`/api/v1/invoices/${invoice.id}/payments`);
    const owed = new Decimal(invoice.total).minus(note.total);
    expect(payments.data.map((p: any) => [p.invoice_balance_due, p.invoice_payment_status])).toEqual([
      [owed.minus('100.00').toFixed(2), 'partial'],
      [owed.minus('150.00').toFixed(2), 'partial'],
      ['0.00', 'paid'],
    ]);
    // A payment more is refused as before: nothing is due.
    const more = await api(e, 'POST', `/api/v1/invoices/${invoice.id}/payments`, s.key, {
      amount: '1.00',
      method: 'efectivo',
    });
    expect(more.status).toBe(422);
    expect(more.json.code).toBe('invoice_already_paid');
  });

  it('a credit note owes nothing and has no payment status: not_applicable, and it cannot be paid', async () => {
    expect(note).toMatchObject({
      document_type: '03',
      balance_due: '0.00',
      payment_status: 'not_applicable',
    });
    const listed = await get('/api/v1/invoices?document_type=03');
    expect(listed.data.map((d: any) => [d.id, d.payment_status])).toEqual([[note.id, 'not_applicable']]);
    const pay = await api(e, 'POST', `/api/v1/invoices/${note.id}/payments`, s.key, {
      amount: '1.00',
      method: 'efectivo',
    });
    expect(pay.status).toBe(422);
    expect(pay.json.code).toBe('invoice_not_payable');
    expect(await e.db('payments').where({ invoiceId: Number(note.id.slice(4)) })).toHaveLength(0);
  });

  it('an invoice credited whole before any payment owes nothing and has nothing paid: not_applicable', async () => {
    const whole = await issue([2]);
    const annul = await post(`/api/v1/invoices/${whole.id}/credit_notes`, {
      reason: 'Anulación de la factura',
    });
    const after = await get(`/api/v1/invoices/${whole.id}`);
    expect(after).toMatchObject({
      annulled: true,
      balance_due: '0.00',
      payment_status: 'not_applicable',
    });
    expect(annul.payment_status).toBe('not_applicable');
  });

  it('a debit note is owed as a document of its own; the invoice it references keeps its balance', async () => {
    const base = await issue([1]);
    const debit = await post(`/api/v1/invoices/${base.id}/debit_notes`, {
      reason: 'Intereses por mora',
      lines: [{ line: 1, amount: '10' }],
    });
    expect(debit).toMatchObject({ balance_due: debit.total, payment_status: 'unpaid' });
    await accepted(debit.id);
    await post(`/api/v1/invoices/${debit.id}/payments`, { amount: '5.00', method: 'efectivo' });
    const paid = await get(`/api/v1/invoices/${debit.id}`);
    expect(paid).toMatchObject({
      balance_due: new Decimal(debit.total).minus(5).toFixed(2),
      payment_status: 'partial',
    });
    const payments = await get(`/api/v1/invoices/${debit.id}/payments`);
    expect(payments.data[0].invoice_balance_due).toBe(paid.balance_due);
    expect((await get(`/api/v1/invoices/${base.id}`)).balance_due).toBe(base.balance_due);
  });
});

/** A page of the application, signed in as an owner of the company. */
async function openSignedIn(path: string): Promise<Page> {
  const person = await createTestPerson(e.db, s.company.id, 'owner');
  const context = await signedInContext(browser, e.apiUrl, person, { width: 1250, height: 1000 });
  const page = await context.newPage();
  await page.goto(`${e.apiUrl}${path}`);
  return page;
}

describe('the invoice browser', () => {
  it('a credit note shows no balance owed on its page (not_applicable)', async () => {
    const page = await openSignedIn(`/app/documentos/${note.id}`);
    await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 20_000 });
    await page.getByText('Correo al cliente').first().waitFor({ timeout: 20_000 });
    expect(await page.getByText('Saldo pendiente').count()).toBe(0);
    // The invoice it credits does owe its balance, and says so.
    const invoicePage = await openSignedIn(`/app/documentos/${invoice.id}`);
    await invoicePage.getByText('Saldo pendiente').first().waitFor({ timeout: 20_000 });
    await page.context().close();
    await invoicePage.context().close();
  }, 60_000);

  it('asks for no client a tiquete sold to no one does not have', async () => {
    const tiquete = await post('/api/v1/invoices', {
      document_type: '04',
      lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
    });
    expect(tiquete.client_id).toBeNull();
    const person = await createTestPerson(e.db, s.company.id, 'owner');
    const context = await signedInContext(browser, e.apiUrl, person, { width: 1250, height: 1000 });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await page.goto(`${e.apiUrl}/app/documentos/${tiquete.id}`);
    await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 20_000 });
    await page.waitForLoadState('networkidle');
    expect(requested).toContain(`/api/v1/invoices/${tiquete.id}`);
    // Its absent client is never looked up (a 404 the company's usage would count as its error).
    expect(requested.filter((p) => p.startsWith('/api/v1/clients'))).toEqual([]);
    await context.close();
  }, 60_000);
});
