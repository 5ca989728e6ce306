// The typed client (client/, @factura-cr/client) against the running service: the API on a real
// port, the workers and the Hacienda simulator. A webhook endpoint, a client and an invoice are
// created through it (Idempotency-Key and Prefer: wait as options), the invoice is waited for
// until Hacienda accepts it, the invoice list is read page by page, failures arrive as typed
// FacturaApiErrors, and the invoice.accepted webhook is verified with the client's verifier
// (and a tampered, a stale and a wrongly keyed copy are refused).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  constructWebhookEvent,
  createFacturaClient,
  FacturaApiError,
  verifyWebhookSignature,
  WebhookSignatureError,
  type FacturaClient,
  type Invoice,
} from '../client/src/index.ts';
import { formatId } from '../domain/ids.ts';
import { seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let receiver: Receiver;
let factura: FacturaClient;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  receiver = await startReceiver();
  factura = createFacturaClient({ baseUrl: e.apiUrl, apiKey: s.key });
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

async function rejection(p: Promise<unknown>): Promise<FacturaApiError> {
  const err = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(err).toBeInstanceOf(FacturaApiError);
  return err as FacturaApiError;
}

describe('the typed client against the running service', () => {
  it('creates a client and an invoice, waits for acceptance, paginates, and verifies the webhook', async () => {
    // A webhook endpoint for every event; its secret is shown once, in this answer.
    const endpoint = await factura.post('/api/v1/webhook_endpoints', {
      body: { url: receiver.url, events: ['*'] },
    });
    expect(endpoint.secret).toMatch(/^whsec_/);

    // A client, created once under an Idempotency-Key: the retry answers the same client.
    const body = {
      cedula: '3-101-654321',
      identification_type: '02' as const,
      name: 'Comercializadora del Valle S.A.',
      email: 'facturas@valle.example',
      addresses: [{ provincia: '1', canton: '01', distrito: '01', otras_senas: 'Avenida 2, calle 5' }],
    };
    const client = await factura.post('/api/v1/clients', { body, idempotencyKey: 'client-valle-1' });
    expect(client).toMatchObject({ object: 'client', name: body.name, cedula: '3101654321' });
    const again = await factura.post('/api/v1/clients', { body, idempotencyKey: 'client-valle-1' });
    expect(again.id).toBe(client.id);

    // Invalid input is a typed error with the stable code and the field at fault.
    const invalid = await rejection(factura.post('/api/v1/clients', { body: { cedula: '1', name: 'x' } }));
    expect(invalid.status).toBe(422);
    expect(invalid.code).toBe('validation_failed');
    expect(invalid.field('/name')).toMatchObject({ path: '/name', code: expect.any(String) });
    expect(invalid.requestId).toMatch(/^req_/);

    // An invoice, waited for with Prefer: wait (enviada or final), then read until Hacienda answers.
    const created = await factura.post('/api/v1/invoices', {
      body: { client_id: client.id, lines: [{ service_id: formatId('service', s.laptop.id), qty: 1 }] },
      idempotencyKey: 'order-1001',
      wait: 20,
    });
    expect(['enviada', 'aceptada']).toContain(created.status);
    expect(created.consecutivo).toMatch(/^\d{20}$/);
    const accepted: Invoice = await factura.waitForInvoice(created.id, {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    expect(accepted.status).toBe('aceptada');
    expect(accepted.total).toBe('508500.00');
    expect(accepted.totals.total_comprobante).toBe('508500.00000');
    expect(accepted.hacienda.accepted_at).not.toBeNull();

    // A retried create under the same key is the same invoice, not a second one.
    const replay = await factura.post('/api/v1/invoices', {
      body: { client_id: client.id, lines: [{ service_id: formatId('service', s.laptop.id), qty: 1 }] },
      idempotencyKey: 'order-1001',
    });
    expect(replay.id).toBe(created.id);

    // Four drafts more, then the list page by page (2 a page): every invoice once, newest first.
    const drafts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const d = await factura.post('/api/v1/invoices', {
        body: {
          client_id: client.id,
          send: false,
          lines: [{ service_id: formatId('service', s.consulting.id), qty: i + 1 }],
        },
      });
      expect(d.status).toBe('borrador');
      drafts.push(d.id);
    }
    const pages: number[] = [];
    const seen: string[] = [];
    const raw = factura.raw;
    raw.use({
      onResponse({ request }) {
        if (new URL(request.url).pathname === '/api/v1/invoices' && request.method === 'GET') pages.push(1);
      },
    });
    for await (const invoice of factura.paginate('/api/v1/invoices', { params: { query: { limit: 2 } } })) {
      seen.push(invoice.id);
    }
    expect(seen).toEqual([...drafts.reverse(), created.id]);
    expect(pages.length).toBe(3);
    const drafted: string[] = [];
    for await (const invoice of factura.paginate('/api/v1/invoices', {
      params: { query: { status: 'borrador', limit: 3 } },
    })) {
      expect(invoice.status).toBe('borrador');
      drafted.push(invoice.id);
    }
    expect(drafted).toHaveLength(4);

    // Not found: a typed 404.
    const missing = await rejection(
      factura.get('/api/v1/invoices/{id}', { params: { path: { id: 'inv_000000999999' } } }),
    );
    expect(missing.status).toBe(404);
    expect(missing.code).toBe('resource_not_found');

    // The invoice.accepted webhook, verified with the client's verifier and the endpoint's secret.
    await waitFor(
      () => receiver.ofKind('invoice.accepted').some((r) => r.body.data.id === created.id),
      30_000,
      100,
      'invoice.accepted delivered',
    );
    const delivery = receiver.ofKind('invoice.accepted').find((r) => r.body.data.id === created.id)!;
    const header = delivery.headers['service-signature'] as string;
    const event = await constructWebhookEvent(delivery.raw, header, endpoint.secret);
    expect(event.event).toBe('invoice.accepted');
    if (event.event !== 'invoice.accepted') throw new Error('unreachable');
    expect(event.data.id).toBe(created.id);
    expect(event.data.status).toBe('aceptada');

    // A tampered body, another secret, an old delivery and no header are all refused.
    const tampered = delivery.raw.replace('"aceptada"', '"rechazada"');
    expect(tampered).not.toBe(delivery.raw);
    await expect(constructWebhookEvent(tampered, header, endpoint.secret)).rejects.toMatchObject({
      reason: 'no_matching_signature',
    });
    expect(await verifyWebhookSignature(delivery.raw, header, 'whsec_not-the-secret')).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    const later = Date.now() + 10 * 60_000;
    expect(await verifyWebhookSignature(delivery.raw, header, endpoint.secret, { now: later })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    await expect(constructWebhookEvent(delivery.raw, undefined, endpoint.secret)).rejects.toBeInstanceOf(
      WebhookSignatureError,
    );

    // client.created was delivered too, and verifies with the same secret.
    const clientEvent = receiver.ofKind('client.created').find((r) => r.body.data.id === client.id);
    expect(clientEvent).toBeDefined();
    const verified = await constructWebhookEvent(
      clientEvent!.raw,
      clientEvent!.headers['service-signature'] as string,
      endpoint.secret,
    );
    expect(verified.event === 'client.created' && verified.data.cedula).toBe('3101654321');
  }, 120_000);
});
