// What reaches a route must pass its hooks whatever the request looks like on the wire, checked
// with a raw socket against a listening server:
//   - an absolute-form target (`POST http://host/api/v1/keys HTTP/1.1`) is authenticated, scoped,
//     rate-limited, counted and refused before its body exactly like `/api/v1/keys`;
//   - two Authorization headers (or one carrying two credentials) are 400 ambiguous_authorization
//     and authenticate with neither.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestCompany, createTestKey, startTestApp, type TestApp } from './helpers/app.ts';
import { rawRequest, type RawResponse } from './helpers/raw-http.ts';

let t: TestApp;
let port: number;
let host: string;
let all: { id: number; secret: string };
let readOnly: { id: number; secret: string };

beforeAll(async () => {
  t = await startTestApp();
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
  host = `127.0.0.1:${port}`;
  const company = await createTestCompany(t.db, { rateLimitPerSecond: 1000 });
  all = await createTestKey(t.db, company.id);
  readOnly = await createTestKey(t.db, company.id, { scopes: ['read:clients', 'read:usage'] });
});
afterAll(async () => {
  await t.close();
});

const problem = (res: RawResponse, status: number, code: string) => {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json().code).toBe(code);
  return res.json();
};

const keysBody = JSON.stringify({ scopes: ['read:clients'] });

describe('absolute-form request targets', () => {
  for (const target of [
    'http://HOST/api/v1/keys',
    'HTTP://HOST/api/v1/keys?x=1',
    'http://elsewhere.example/api/v1/keys',
  ]) {
    it(`POST ${target} without a key: 401 before the body is read`, async () => {
      const res = await rawRequest(port, [
        `POST ${target.replace('HOST', host)} HTTP/1.1`,
        `Host: ${host}`,
        'Content-Type: application/json',
        'Content-Length: 500000', // announced, never sent: only an answer that does not wait arrives
      ]);
      const p = problem(res, 401, 'missing_api_key');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(p.instance).toBe('/api/v1/keys');
      expect(res.headers['cache-control']).toBe('no-store');
    });
  }

  it('a key without manage:keys is 403 insufficient_scope, and nothing is created', async () => {
    const before = await t.db('api_keys').count('* as n');
    const res = await rawRequest(
      port,
      [
        `POST http://${host}/api/v1/keys HTTP/1.1`,
        `Host: ${host}`,
        `Authorization: Bearer ${readOnly.secret}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(keysBody)}`,
      ],
      { body: keysBody },
    );
    expect(problem(res, 403, 'insufficient_scope').required_scope).toBe('manage:keys');
    expect(await t.db('api_keys').count('* as n')).toEqual(before);
  });

  it('an unknown or malformed key is 401 there too', async () => {
    for (const key of [`ik_test_${'x'.repeat(40)}`, 'nope']) {
      const res = await rawRequest(port, [
        `GET http://${host}/api/v1/clients HTTP/1.1`,
        `Host: ${host}`,
        `Authorization: Bearer ${key}`,
      ]);
      problem(res, 401, 'invalid_api_key');
    }
    problem(
      await rawRequest(port, [`GET http://${host}/api/v1/nowhere HTTP/1.1`, `Host: ${host}`]),
      401,
      'missing_api_key',
    );
  });

  it('an authenticated answer carries the rate limit and is counted as usage of its route', async () => {
    const key = await createTestKey(t.db, (await createTestCompany(t.db)).id, {
      scopes: ['read:clients', 'read:usage'],
    });
    for (let i = 0; i < 3; i++) {
      const res = await rawRequest(port, [
        `GET http://${host}/api/v1/clients?limit=1 HTTP/1.1`,
        `Host: ${host}`,
        `Authorization: Bearer ${key.secret}`,
      ]);
      expect(res.status, res.body).toBe(200);
      expect(res.headers['ratelimit-policy']).toMatch(/^\d+;w=1$/);
      expect(res.headers.ratelimit).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const usage = await call(t.app, 'GET', '/api/v1/usage?granularity=minute', { key: key.secret });
    expect(usage.statusCode, usage.body).toBe(200);
    const clients = usage
      .json()
      .data.filter((d: { route: string }) => d.route === 'GET /api/v1/clients')
      .reduce((n: number, d: { requests: number }) => n + d.requests, 0);
    expect(clients).toBe(3);
  });
});

describe('more than one Authorization header', () => {
  const get = (headers: string[]) =>
    rawRequest(port, ['GET /api/v1/clients HTTP/1.1', `Host: ${host}`, ...headers]);

  it('two headers are 400 ambiguous_authorization, whichever comes first and whether they agree or not', async () => {
    const bad = `ik_test_${'x'.repeat(40)}`;
    for (const pair of [
      [all.secret, readOnly.secret],
      [readOnly.secret, all.secret],
      [all.secret, all.secret],
      [bad, all.secret],
      [all.secret, bad],
    ]) {
      const res = await get(pair.map((k) => `Authorization: Bearer ${k}`));
      problem(res, 400, 'ambiguous_authorization');
      expect(res.headers.ratelimit, 'never authenticated').toBeUndefined();
    }
    // The same header in another case is the same header.
    problem(
      await get([`Authorization: Bearer ${all.secret}`, `authorization: Bearer ${all.secret}`]),
      400,
      'ambiguous_authorization',
    );
  });

  it('one header carrying two credentials (as joined by a proxy) is refused too', async () => {
    problem(
      await get([`Authorization: Bearer ${all.secret}, Bearer ${readOnly.secret}`]),
      400,
      'ambiguous_authorization',
    );
  });

  it('on a write, nothing is created, and the admin pages refuse them too', async () => {
    const before = await t.db('api_keys').count('* as n');
    const res = await rawRequest(
      port,
      [
        'POST /api/v1/keys HTTP/1.1',
        `Host: ${host}`,
        `Authorization: Bearer ${readOnly.secret}`,
        `Authorization: Bearer ${all.secret}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(keysBody)}`,
      ],
      { body: keysBody },
    );
    problem(res, 400, 'ambiguous_authorization');
    expect(await t.db('api_keys').count('* as n')).toEqual(before);
    const metrics = await rawRequest(port, [
      'GET /metrics HTTP/1.1',
      `Host: ${host}`,
      'Authorization: Basic b3BzOng=',
      'Authorization: Basic b3BzOnk=',
    ]);
    problem(metrics, 400, 'ambiguous_authorization');
  });

  it('one header still works, and inject() with an array of values is refused', async () => {
    expect((await get([`Authorization: Bearer ${all.secret}`])).status).toBe(200);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/clients',
      headers: { authorization: [`Bearer ${all.secret}`, `Bearer ${readOnly.secret}`] as never },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('ambiguous_authorization');
  });
});
