// Request logs never carry a secret a client put in the URL: query parameters named like a
// credential and values shaped like the service's own secrets are [redacted] in every log line,
// checked on the log output of a listening server (every level) after requests of every kind —
// authenticated or not, origin and absolute form, unknown routes, URLs that fail to route.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../api/logging.ts';
import { createTestCompany, createTestKey } from './helpers/app.ts';
import { startFullApp, type FullApp } from './helpers/full-app.ts';
import { rawRequest } from './helpers/raw-http.ts';

describe('redactUrl', () => {
  it.each([
    ['/api/v1/clients?api_key=abc123', '/api/v1/clients?api_key=[redacted]'],
    ['/x?API_KEY=abc&limit=5', '/x?API_KEY=[redacted]&limit=5'],
    ['/x?limit=5&key=abc', '/x?limit=5&key=[redacted]'],
    [
      '/x?token=a&access_token=b&refresh_token=c',
      '/x?token=[redacted]&access_token=[redacted]&refresh_token=[redacted]',
    ],
    [
      '/x?secret=a&client_secret=b&password=c&passwd=d&pwd=e',
      '/x?secret=[redacted]&client_secret=[redacted]&password=[redacted]&passwd=[redacted]&pwd=[redacted]',
    ],
    ['/hacienda/callback?t=abc.def', '/hacienda/callback?t=[redacted]'],
    ['/x?api%5Fkey=abc', '/x?api%5Fkey=[redacted]'],
    ['/x?api_key[]=a&api_key[]=b', '/x?api_key[]=[redacted]&api_key[]=[redacted]'],
    ['/x?x-api-key=a', '/x?x-api-key=[redacted]'],
    ['/x?api_key', '/x?api_key=[redacted]'],
    [
      '/x?key_id=key_000000000001&idempotency_key=order-1',
      '/x?key_id=key_000000000001&idempotency_key=order-1',
    ],
    ['/x?q=ik_live_abcDEF123', '/x?q=[redacted]'],
    ['/api/v1/clients/ik_test_abcDEF123', '/api/v1/clients/[redacted]'],
    ['/x?whsec_abc', '/x?[redacted]'],
    ['http://h/x?token=a#frag', 'http://h/x?token=[redacted]#frag'],
    ['/x?limit=5&starting_after=cli_000000000001', '/x?limit=5&starting_after=cli_000000000001'],
    ['/x?q=ik%5Ftest%5FabcDEF123&limit=5', '/x?q=[redacted]&limit=5'],
    ['/api/v1/clients/ik%5Flive%5Fabc%44EF', '/api/v1/clients/[redacted]'],
    ['/x/%69%6B%5F%74%65%73%74%5Fabc/y', '/x/[redacted]/y'],
    ['/x?q=ik%255Ftest%255Fabc', '/x?q=[redacted]'],
    ['/x?q=whsec%5Fabc%2Fdef', '/x?q=[redacted]%2Fdef'],
    ['/x?q=IK_TEST_abc', '/x?q=[redacted]'],
  ])('%s', (url, expected) => expect(redactUrl(url)).toBe(expected));
});

describe('the log output of a listening server', () => {
  let f: FullApp;
  let port: number;
  let key: string;

  beforeAll(async () => {
    f = await startFullApp({ logLevel: 'trace' });
    port = Number(new URL(await f.app.listen({ port: 0, host: '127.0.0.1' })).port);
    key = (await createTestKey(f.database.db, (await createTestCompany(f.database.db)).id)).secret;
  });
  afterAll(async () => {
    await f?.close();
  });

  it('holds no secret sent in a URL, whatever the request', async () => {
    const s = (label: string) => `${label}-${randomBytes(9).toString('hex')}`;
    const secrets = {
      apiKey: key,
      key: s('key'),
      token: s('token'),
      secret: s('secret'),
      password: s('password'),
      t: s('t'),
      encoded: s('encoded'),
      upper: s('upper'),
      access: s('access'),
    };
    const auth = { authorization: `Bearer ${key}` };
    const urls: [string, Record<string, string>][] = [
      [`/api/v1/clients?api_key=${secrets.apiKey}`, {}],
      [`/api/v1/clients?limit=5&key=${secrets.key}&token=${secrets.token}`, auth],
      [`/api/v1/clients/cli_000000000001?secret=${secrets.secret}`, auth],
      [`/api/v1/clients/%ZZ?password=${secrets.password}`, auth],
      [`/nowhere?API_KEY=${secrets.upper}`, {}],
      [`/hacienda/callback?t=${secrets.t}`, {}],
      [`/health?api%5Fkey=${secrets.encoded}&access_token=${secrets.access}`, {}],
      [`/api/v1/clients/${secrets.apiKey}`, auth],
    ];
    for (const [url, headers] of urls) {
      const res = await fetch(`http://127.0.0.1:${port}${url}`, { headers });
      await res.arrayBuffer();
    }
    // The absolute form and a request without a key.
    const abs = await rawRequest(port, [
      `GET http://127.0.0.1:${port}/api/v1/clients?password=${secrets.password}&api_key=${secrets.apiKey} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
    ]);
    expect(abs.status).toBe(401);
    // The key percent-encoded (in part, in full, twice) in the query and in the path, in a URL
    // that fails to route, and as the Host header.
    const underscores = key.replace(/_/g, '%5F');
    const everyByte = [...key].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
    for (const url of [
      `/health?q=${underscores}`,
      `/api/v1/clients/${everyByte}`,
      `/nowhere/${underscores.replace(/%/g, '%25')}`,
      `/api/v1/clients/%ZZ${underscores}`,
    ]) {
      const res = await fetch(`http://127.0.0.1:${port}${url}`, { headers: auth });
      await res.arrayBuffer();
    }
    const hosted = await rawRequest(port, ['GET /health HTTP/1.1', `Host: ${key}`]);
    expect(hosted.status).toBe(200);

    const logs = f.logs.join('');
    expect(logs).toContain('"url":"/api/v1/clients?limit=5&key=[redacted]&token=[redacted]"');
    expect(logs).toContain('/api/v1/clients/[redacted]');
    expect(logs.match(/\[redacted\]/g)?.length ?? 0).toBeGreaterThanOrEqual(urls.length);
    for (const [name, value] of Object.entries(secrets)) expect(logs, name).not.toContain(value);
    // Nor any part of the key long enough to matter.
    expect(logs).not.toContain(key.slice(8, 28));
  });
});
