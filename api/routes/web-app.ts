// The application (web/, a React single-page application) under /app/: the built bundle's files
// as they are, and index.html for every other /app/ path (the application's own routes). Hashed
// assets are cached for good; index.html is revalidated every time, with a CSP that allows only
// this origin. `/` leads to /app/. The bundle is web/dist beside the sources in a checkout and
// <out>/web/dist in the compiled build (scripts/build.ts copies it there).
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, normalize, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where the built application is, from this module (the same in a checkout and compiled). */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const CSP =
  "default-src 'self'; img-src 'self' blob:; object-src 'none'; base-uri 'self'; " +
  "form-action 'self'; frame-ancestors 'none'";
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The bundle's file for an /app/ path, or null when there is none (then the page answers). */
function fileOf(root: string, rel: string): string | null {
  const path = normalize(join(root, rel));
  if (!path.startsWith(root) || path === root) return null;
  try {
    return statSync(path).isFile() ? path.slice(root.length).split(sep).join('/') : null;
  } catch {
    return null;
  }
}

function sendPage(reply: FastifyReply, root: string) {
  if (!existsSync(join(root, 'index.html')))
    return reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        'La aplicación no está construida (npm run build). / The application is not built (npm run build).\n',
      );
  return reply
    .header('cache-control', 'no-cache')
    .header('content-security-policy', CSP)
    .sendFile('index.html', root, { cacheControl: false });
}

export default async function webAppRoutes(app: FastifyInstance, opts: { root?: string }): Promise<void> {
  const root = normalize((opts.root ?? WEB_DIST) + sep);
  await app.register(fastifyStatic, { root, serve: false });
  const route = { config: { public: true }, schema: { hide: true } } as const;
  app.get('/', route, async (_request, reply) => reply.redirect('/app/'));
  app.get('/app', route, async (_request, reply) => sendPage(reply, root));
  app.get<{ Params: { '*': string } }>('/app/*', route, async (request, reply) => {
    const rel = request.params['*'];
    const file = rel ? fileOf(root, rel) : null;
    if (!file) {
      // A missing asset is a 404, not the page (a stale tab would otherwise run HTML as script).
      if (rel.startsWith('assets/')) return reply.callNotFound();
      return sendPage(reply, root);
    }
    if (file === 'index.html') return sendPage(reply, root);
    const cache = file.startsWith('assets/') ? IMMUTABLE : 'no-cache';
    return reply.header('cache-control', cache).sendFile(file, root, { cacheControl: false });
  });
}
