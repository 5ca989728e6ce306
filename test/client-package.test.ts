// The client package (client/, @factura-cr/client) as it ships: its generated types are those of
// the current OpenAPI document (a route schema changed without `npm run client:generate` fails
// here), it compiles to plain JavaScript that imports nothing of the service and runs with plain
// node through its package name, and its webhook verifier accepts exactly what the service signs.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature as clientVerify } from '../client/src/index.ts';
import { projectRoot } from '../config/index.ts';
import { signWebhookPayload, verifyWebhookSignature as serviceVerify } from '../domain/webhook-signature.ts';
import { CLIENT_SCHEMA_FILE, renderClientSchema } from '../scripts/client-schema.ts';

const run = promisify(execFile);

describe('the generated types', () => {
  it('are those of the current OpenAPI document (else: npm run client:generate)', async () => {
    const committed = await readFile(CLIENT_SCHEMA_FILE, 'utf8');
    const current = await renderClientSchema();
    expect(committed === current, 'client/src/schema.ts is stale: run `npm run client:generate`').toBe(true);
    // The named schemas the client's own code relies on are there.
    for (const name of [
      'Invoice',
      'Client',
      'Problem',
      'FieldError',
      'InvoiceList',
      'WebhookEndpointWithSecret',
    ])
      expect(current).toContain(`export type ${name} = components['schemas']['${name}'];`);
  }, 180_000);
});

describe('the built package', () => {
  it('compiles to JavaScript that imports only openapi-fetch and runs under plain node', async () => {
    const client = join(projectRoot, 'client');
    await run('npm', ['run', 'build', '--workspace', '@factura-cr/client'], { cwd: projectRoot });
    const files = (await readdir(join(client, 'dist'))).filter((f) => f.endsWith('.js'));
    expect(files).toEqual(
      expect.arrayContaining(['index.js', 'client.js', 'errors.js', 'webhook-signature.js', 'schema.js']),
    );
    for (const f of files) {
      const js = await readFile(join(client, 'dist', f), 'utf8');
      const specifiers = [...js.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      for (const spec of specifiers)
        expect(spec, `${f} imports ${spec}`).toMatch(/^(\.\/[\w-]+\.js|openapi-fetch)$/);
    }
    const script = `
      import { createHmac } from 'node:crypto';
      import { createFacturaClient, FacturaApiError, verifyWebhookSignature } from '@factura-cr/client';
      const t = Math.floor(Date.now() / 1000);
      const body = '{"event":"invoice.accepted"}';
      const v1 = createHmac('sha256', 'whsec_x').update(t + '.' + body).digest('hex');
      const good = await verifyWebhookSignature(body, 't=' + t + ', v1=' + v1, 'whsec_x');
      const bad = await verifyWebhookSignature(body + ' ', 't=' + t + ', v1=' + v1, 'whsec_x');
      const problem = { type: '/docs/errors#resource_not_found', title: 'x', status: 404, detail: 'No invoice',
        code: 'resource_not_found', request_id: 'req_1' };
      const fetch = async () => new Response(JSON.stringify(problem), {
        status: 404, headers: { 'content-type': 'application/problem+json' } });
      const api = createFacturaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'ik_test_x', fetch });
      const err = await api.get('/api/v1/invoices/{id}', { params: { path: { id: 'inv_1' } } }).catch((e) => e);
      console.log(JSON.stringify({ good: good.ok, bad: bad.ok, error: err instanceof FacturaApiError, code: err.code }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: projectRoot,
    });
    expect(JSON.parse(stdout)).toEqual({ good: true, bad: false, error: true, code: 'resource_not_found' });
  }, 180_000);
});

describe("the client's webhook verifier", () => {
  const secret = fc.string({ minLength: 1, maxLength: 60 }).map((s) => `whsec_${s}`);

  it('accepts what the service signs, with any of the secrets of a rotation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.uniqueArray(secret, { minLength: 1, maxLength: 2 }),
        fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }),
        async (body, secrets, t) => {
          const header = signWebhookPayload(body, secrets, t);
          for (const s of secrets)
            expect(await clientVerify(body, header, s, { now: t * 1000 })).toEqual({
              ok: true,
              timestamp: t,
            });
          expect(await clientVerify(Buffer.from(body, 'utf8'), header, secrets, { now: t * 1000 })).toEqual({
            ok: true,
            timestamp: t,
          });
          expect(await clientVerify(`${body}.`, header, secrets, { now: t * 1000 })).toEqual({
            ok: false,
            reason: 'no_matching_signature',
          });
          expect(await clientVerify(body, header, 'whsec_other', { now: t * 1000 })).toEqual({
            ok: false,
            reason: 'no_matching_signature',
          });
          expect(await clientVerify(body, header, secrets, { now: (t + 301) * 1000 })).toEqual({
            ok: false,
            reason: 'timestamp_out_of_tolerance',
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('judges any header as the service does (malformed, stale, wrong, right)', async () => {
    const t = 1_780_000_000;
    const body = '{"id":"evt_000000000001","event":"invoice.accepted"}';
    const genuine = signWebhookPayload(body, ['whsec_a'], t);
    const headers = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.constantFrom(genuine, genuine.toUpperCase(), `${genuine}, v2=abc`, `v0=1, ${genuine}`, 't=, v1='),
      fc
        .tuple(fc.integer({ min: 0, max: 2 * t }), fc.stringMatching(/^[0-9a-f]{64}$/))
        .map(([ts, sig]) => `t=${ts}, v1=${sig}`),
      fc.integer({ min: t - 400, max: t + 400 }).map((ts) => signWebhookPayload(body, ['whsec_a'], ts)),
    );
    await fc.assert(
      fc.asyncProperty(headers, async (header) => {
        const options = { now: t * 1000 };
        expect(await clientVerify(body, header, 'whsec_a', options)).toEqual(
          serviceVerify(body, header, 'whsec_a', options),
        );
      }),
      { numRuns: 300 },
    );
  });
});
