// GET /dashboard: one self-contained HTML page (no build step, no CDN) where a person pastes a
// key with read:usage and sees the company's keys and consumption over time. The page calls
// GET /api/v1/usage/keys and GET /api/v1/usage with the key in the Authorization header; the
// key lives in the tab's sessionStorage only. A strict CSP with a per-response nonce allows
// only the page's own inline script and style, and requests to this origin.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const PAGE = readFileSync(new URL('../dashboard/page.html', import.meta.url), 'utf8');

export default async function dashboardRoute(app: FastifyInstance): Promise<void> {
  app.get('/dashboard', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    return reply
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
          `connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      )
      .header('cache-control', 'no-store')
      .send(PAGE.replaceAll('__NONCE__', nonce));
  });
}
