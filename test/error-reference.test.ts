// The error reference: every code of the catalogue has its texts (Spanish and English) and an
// example answer of its own status; the URL every problem's `type` names opens a page holding the
// code's entry; each code has its own page (an unknown one is a 404 problem); real error answers
// link to pages that exist. And /docs opens on the invoices: the OpenAPI document lists that tag
// first, and every operation has a request example (body and path parameters) and response examples.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../domain/errors.ts';
import { ERROR_REFERENCE, exampleProblem } from '../domain/error-reference/index.ts';
import { escapeHtml } from '../api/error-pages-html.ts';
import { createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';

type Json = Record<string, any>;
const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

describe('the reference texts', () => {
  it('has an entry for every code, in Spanish and English, with an example of the catalogue status', () => {
    expect(CODES.length).toBeGreaterThanOrEqual(80);
    expect(Object.keys(ERROR_REFERENCE).sort()).toEqual([...CODES].sort());
    for (const code of CODES) {
      const e = ERROR_REFERENCE[code];
      for (const t of [e.means, e.fix]) {
        expect(t.es.length, code).toBeGreaterThan(10);
        expect(t.en.length, code).toBeGreaterThan(10);
        expect(t.es, code).not.toBe(t.en);
      }
      expect(e.titleEs.length, code).toBeGreaterThan(3);
      const example = exampleProblem(code);
      expect(example.status, code).toBe(ERROR_CATALOGUE[code].status);
      expect(example).toMatchObject({
        code,
        title: ERROR_CATALOGUE[code].title,
        type: `/docs/errors#${code}`,
      });
      expect(example.detail.length, code).toBeGreaterThan(5);
      // The fields listed are those the answer names (or, for any field, `errors[].path`).
      for (const f of example.errors ?? [])
        expect(e.fields.includes(f.path) || e.fields.includes('errors[].path'), `${code}: ${f.path}`).toBe(
          true,
        );
    }
  });

  it('a validation answer carries a field in its example', () => {
    expect(exampleProblem('validation_failed').errors?.[0]).toEqual({
      path: '/lines/0/qty',
      code: 'invalid_type',
      message: expect.any(String),
    });
  });

  it('escapes every text it writes into HTML', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe(
      '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;',
    );
  });
});

describe('the pages', () => {
  let t: TestApp;
  let key: string;
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  beforeAll(async () => {
    t = await startTestApp();
    key = (await createTestKey(t.db, (await createTestCompany(t.db)).id)).secret;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the type URL of every code opens a Spanish page holding the code’s entry, same-origin only', async () => {
    const pages = new Map<string, string>();
    for (const code of CODES) {
      const path = exampleProblem(code).type.split('#')[0]!;
      if (!pages.has(path)) {
        const res = await get(path);
        expect(res.statusCode, path).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        const csp = String(res.headers['content-security-policy']);
        expect(csp).toMatch(/default-src 'none'/);
        expect(csp).toMatch(/style-src 'self'/);
        expect(csp).not.toMatch(/unsafe-inline/);
        pages.set(path, res.body);
      }
      expect(pages.get(path), code).toContain(`id="${code}"`);
    }
    const html = pages.get('/docs/errors')!;
    expect(html).toMatch(/<html lang="es">/);
    expect(html).not.toMatch(/<script|style=|<style/i);
    // The contents list every status, and each code once by its fragment.
    for (const status of new Set(CODES.map((c) => ERROR_CATALOGUE[c].status)))
      expect(html).toContain(`id="status-${status}"`);
    for (const code of CODES) expect(html.split(`href="#${code}"`).length - 1, code).toBe(1);
    // Spanish first: the title in Spanish precedes the English one.
    const entry = html.slice(html.indexOf('id="invalid_credentials"'));
    expect(entry.indexOf('Correo o contraseña incorrectos')).toBeLessThan(
      entry.indexOf('Wrong email or password'),
    );
    const css = await get('/docs/errors.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });

  it('every code has its own page; an unknown code is a 404 problem', async () => {
    for (const code of CODES) {
      const res = await get(`/docs/errors/${code}`);
      expect(res.statusCode, code).toBe(200);
      expect(res.body).toContain(`id="${code}"`);
      expect(res.body).toContain(escapeHtml(ERROR_REFERENCE[code].fix.es));
      expect(res.body).toContain(escapeHtml(ERROR_REFERENCE[code].fix.en));
    }
    for (const unknown of ['no_such_code', 'constructor', '__proto__', '%3Cscript%3E']) {
      const res = await get(`/docs/errors/${unknown}`);
      expect(res.statusCode, unknown).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().code).toBe('resource_not_found');
    }
  });

  it('/docs/errors.json is the catalogue with its texts', async () => {
    const res = await get('/docs/errors.json');
    expect(res.statusCode).toBe(200);
    const codes = (res.json() as Json).codes as Json[];
    expect(codes.map((c) => c.code)).toEqual(CODES);
    for (const c of codes) {
      expect(c.status).toBe(ERROR_CATALOGUE[c.code as ErrorCode].status);
      expect(c.example.status).toBe(c.status);
      expect(c.means.es && c.means.en && c.fix.es && c.fix.en).toBeTruthy();
    }
  });

  it('real error answers link to pages that exist', async () => {
    const answers = [
      await get('/api/v1/invoices'),
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/invoices',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: { client_id: 'cli_000000000001', lines: [{ service_id: 'srv_000000000001', qty: 'many' }] },
      }),
      await get('/api/v1/nothing-here', { authorization: `Bearer ${key}` }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([401, 422, 404]);
    for (const a of answers) {
      const problem = a.json() as Json;
      const [path, fragment] = String(problem.type).split('#');
      expect(fragment).toBe(problem.code);
      const page = await get(path!);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`id="${fragment}"`);
      expect((await get(`/docs/errors/${fragment}`)).statusCode).toBe(200);
    }
    expect((answers[1]!.json() as Json).errors.map((e: Json) => e.path)).toContain('/lines/0/qty');
  });

  describe('/docs', () => {
    let doc: Json;
    beforeAll(async () => {
      doc = (await get('/openapi.json')).json() as Json;
    });
    const operations = () =>
      Object.entries(doc.paths as Json).flatMap(([path, item]) =>
        Object.entries(item as Json).map(([method, op]) => ({ where: `${method} ${path}`, op: op as Json })),
      );
    const schemaOf = (s: Json): Json =>
      s.$ref ? doc.components.schemas[String(s.$ref).split('/').pop()!] : s;

    it('lists the invoices first, and every tag an operation uses', () => {
      const tags = (doc.tags as Json[]).map((x) => x.name);
      expect(tags[0]).toBe('invoices');
      for (const { where, op } of operations())
        for (const tag of op.tags ?? []) expect(tags, where).toContain(tag);
      for (const tag of doc.tags as Json[]) expect(tag.description.length).toBeGreaterThan(5);
    });

    it('every operation has a request example (body and path parameters) and response examples', () => {
      expect(operations().length).toBeGreaterThanOrEqual(35);
      for (const { where, op } of operations()) {
        const body = op.requestBody?.content?.['application/json'];
        if (body) {
          const examples = body.example ?? body.examples ?? schemaOf(body.schema).examples;
          expect(examples, `${where}: a body example`).toBeTruthy();
        }
        for (const p of op.parameters ?? [])
          if (p.in === 'path')
            expect(p.example ?? p.examples ?? p.schema?.examples, `${where}: {${p.name}}`).toBeTruthy();
        for (const [status, r] of Object.entries(op.responses as Json)) {
          const resolved = (r as Json).$ref
            ? doc.components.responses[
                String((r as Json).$ref)
                  .split('/')
                  .pop()!
              ]
            : (r as Json);
          for (const [type, media] of Object.entries((resolved.content ?? {}) as Json)) {
            const m = media as Json;
            const example = m.example ?? m.examples ?? schemaOf(m.schema ?? {}).examples;
            expect(example, `${where} ${status} ${type}`).toBeTruthy();
          }
        }
      }
    });

    it('Swagger UI opens on the invoices with deep links, try-it-out one click away', async () => {
      const page = await get('/docs');
      expect(page.statusCode).toBe(200);
      const init = (await get('/docs/static/swagger-initializer.js')).body;
      expect(init).toMatch(/"deepLinking":\s*true/);
      expect(init).toMatch(/"docExpansion":\s*"none"/);
      expect(init).toMatch(/"tryItOutEnabled":\s*false/);
      const script = page.body.match(/src="([^"]*open-on-invoices\.js)"/)?.[1];
      expect(script).toBeTruthy();
      const js = await get(new URL(script!, 'http://x/docs/').pathname);
      expect(js.statusCode).toBe(200);
      expect(js.body).toContain('#/invoices');
    });
  });
});
