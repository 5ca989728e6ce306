// The error reference served where every problem's `type` points: GET /docs/errors (every code,
// each at its own fragment), GET /docs/errors/<code> (one code; an unknown one is a 404 problem),
// GET /docs/errors.json (the catalogue with its texts) and the pages' stylesheet. Rendered once at
// start from the catalogue and its reference (domain/error-reference/), so they cannot drift.
// The pages' policy allows nothing but that same-origin stylesheet.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from '../domain/errors.ts';
import {
  ERROR_REFERENCE,
  errorPagePath,
  errorTypeUrl,
  exampleProblem,
  isErrorCode,
} from '../domain/error-reference/index.ts';
import { codePage, referencePage, STYLESHEET, STYLESHEET_PATH } from './error-pages-html.ts';
import { ApiError } from './errors.ts';

const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const CACHE = 'public, max-age=300';

/** The catalogue with its texts, as /docs/errors.json answers it. */
export function referenceDocument() {
  const codes = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => {
    const e = ERROR_REFERENCE[code];
    return {
      code,
      status: ERROR_CATALOGUE[code].status,
      title: { es: e.titleEs, en: ERROR_CATALOGUE[code].title },
      means: e.means,
      fields: e.fields,
      fix: e.fix,
      example: exampleProblem(code),
      type: errorTypeUrl(code),
      page: errorPagePath(code),
    };
  });
  return { object: 'error_reference', codes };
}

const html = (reply: FastifyReply, body: string) =>
  reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', CACHE)
    .send(body);

export function registerErrorPages(app: FastifyInstance): void {
  const index = referencePage();
  const pages = new Map((Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((c) => [c, codePage(c)]));
  const json = JSON.stringify(referenceDocument());
  const config = { public: true };
  const schema = { hide: true };

  app.get('/docs/errors', { config, schema }, async (_request, reply) => html(reply, index));
  app.get('/docs/errors.json', { config, schema }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').header('cache-control', CACHE).send(json),
  );
  app.get(STYLESHEET_PATH, { config, schema }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', CACHE).send(STYLESHEET),
  );
  app.get<{ Params: { code: string } }>('/docs/errors/:code', { config, schema }, async (request, reply) => {
    const code = request.params.code;
    if (!isErrorCode(code)) throw new ApiError('resource_not_found', 'No error code by that name');
    return html(reply, pages.get(code)!);
  });
}
