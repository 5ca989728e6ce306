// The invoice browser, beside the usage dashboard: GET /dashboard/invoices lists and filters the
// company's documents, GET /dashboard/invoices/{id} shows one (data, totals, timeline, rejection
// reason with its fix, Hacienda's observations on an accepted one in Spanish then English,
// downloads, resend the email, issue a credit note). Plain HTML pages that call
// the public API with a key the person pastes (the dashboard's model: sessionStorage, Authorization
// header). Each page is sent with its shared stylesheet and script inlined, under the dashboard's
// strict CSP: a per-response nonce for the page's own script and style, requests to this origin.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';

const read = (name: string) => readFileSync(new URL(`../dashboard/${name}`, import.meta.url), 'utf8');

function assemble(page: string): string {
  const css = read('browser.css');
  const js = read('browser.js');
  return read(page)
    .replace('<!--BROWSER_CSS-->', () => `<style nonce="__NONCE__">\n${css}</style>`)
    .replace('<!--BROWSER_JS-->', () => `<script nonce="__NONCE__">\n${js}</script>`);
}

const LIST = assemble('invoices.html');
const DOCUMENT = assemble('invoice.html');

function sendPage(reply: FastifyReply, page: string) {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
        `connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    )
    .header('cache-control', 'no-store')
    .send(page.replaceAll('__NONCE__', nonce));
}

export default async function invoiceBrowserRoutes(app: FastifyInstance): Promise<void> {
  const config = { public: true };
  app.get('/dashboard/invoices', { config, schema: { hide: true } }, async (_request, reply) =>
    sendPage(reply, LIST),
  );
  app.get<{ Params: { id: string } }>(
    '/dashboard/invoices/:id',
    { config, schema: { hide: true } },
    async (_request, reply) => sendPage(reply, DOCUMENT),
  );
}
