// How deeply a JSON body may nest: 32 levels of objects and arrays on every route. Deeper is a
// 422 nesting_too_deep naming the JSON Pointer where the limit is crossed — never a 500 (a batch
// item thousands of levels deep used to overflow the stack), and nothing is recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeepAt } from '../api/json-body.ts';
import { createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';

const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('tooDeepAt', () => {
  it.each([
    [{}, 1, null],
    [{ a: { b: 1 } }, 2, null],
    [{ a: { b: {} } }, 2, '/a/b'],
    [[[[]]], 2, '/0/0'],
    [{ 'x/y': [{ '~': {} }] }, 3, '/x~1y/0/~0'],
    [{ a: 'not an object', b: [1, 2, { c: [] }] }, 3, '/b/2/c'],
    ['text', 1, null],
  ])('%j with at most %i levels → %s', (value, max, expected) =>
    expect(tooDeepAt(value, max)).toBe(expected),
  );

  it('walks a body nested 100,000 levels deep without overflowing the stack', () => {
    expect(tooDeepAt(JSON.parse(deepArray(100_000)))).toBe('/0'.repeat(MAX_JSON_DEPTH));
  });
});

describe('through the API', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    key = (await createTestKey(t.db, (await createTestCompany(t.db)).id)).secret;
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (url: string, payload: string) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload,
    });

  it('a batch item nested 3,000 levels deep is 422 nesting_too_deep with its path; no batch is recorded', async () => {
    const before = await t.db('batches').count('* as n');
    const item = `{"idempotency_key":"deep-1","client_id":"cli_000000000001","lines":[{"service_id":"srv_000000000001","qty":1}],"note":${deepObject(3000)}}`;
    const res = await post('/api/v1/invoices/batch', `{"invoices":[${item}]}`);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const p = res.json();
    expect(p.code).toBe('nesting_too_deep');
    expect(p.errors).toEqual([
      {
        path: `/invoices/0/note${'/a'.repeat(MAX_JSON_DEPTH - 3)}`,
        code: 'nesting_too_deep',
        message: expect.any(String),
      },
    ]);
    expect(await t.db('batches').count('* as n')).toEqual(before);
  });

  it('every route taking a body refuses 3,000 levels of arrays or objects with 422, never 500', async () => {
    const routes = t.app
      .routeTable()
      .filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && !r.url.startsWith('/admin/'));
    expect(routes.length).toBeGreaterThanOrEqual(15);
    for (const r of routes) {
      const url = r.url.replace(':id', 'x_000000000001');
      for (const body of [deepArray(3000), deepObject(3000)]) {
        const res = await t.app.inject({
          method: r.method as 'POST',
          url,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload: body,
        });
        if (r.person) {
          // A person's own routes refuse a key before reading its body (the same parser serves them).
          expect(res.statusCode, `${r.method} ${r.url}`).toBe(403);
          expect(res.json().code).toBe('session_required');
          continue;
        }
        expect(res.statusCode, `${r.method} ${r.url}: ${res.body.slice(0, 200)}`).toBe(422);
        expect(res.json().code, `${r.method} ${r.url}`).toBe('nesting_too_deep');
      }
    }
  });

  it('32 levels pass the parser (judged by the route schema); 33 do not', async () => {
    const at = (levels: number) =>
      post('/api/v1/clients', `{"cedula":"102340567","name":"Ana","x":${deepArray(levels - 1)}}`);
    const ok = await at(MAX_JSON_DEPTH);
    expect(ok.statusCode).toBe(422);
    expect(ok.json().code).toBe('validation_failed');
    expect(ok.json().errors[0]).toMatchObject({ path: '/x', code: 'unknown_field' });
    const deep = await at(MAX_JSON_DEPTH + 1);
    expect(deep.json().code).toBe('nesting_too_deep');
    expect(deep.json().errors[0].path).toBe(`/x${'/0'.repeat(MAX_JSON_DEPTH - 1)}`);
  });
});
