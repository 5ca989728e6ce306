// GET /api/v1/invoices/{id}/pdf over HTTP, with the workers and the Hacienda simulator: a PDF
// rendered for the invoice's state and cached (X-Cache), rendered again once Hacienda's state
// changes; drafts 409, unknown and foreign ids 404, problem+json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { pdfText } from './helpers/pdf-tools.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');

beforeAll(async () => {
  e = await startE2E({ workers: false });
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e?.close();
});

async function getPdf(id: string) {
  const res = await fetch(`${e.apiUrl}/api/v1/invoices/${id}/pdf`, {
    headers: { authorization: `Bearer ${s.key}` },
  });
  const body = Buffer.from(await res.arrayBuffer());
  return { res, body };
}

describe('GET /api/v1/invoices/{id}/pdf', () => {
  it('renders for the current state, caches, and renders again when Hacienda answers', async () => {
    const created = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${pad(s.client.id)}`,
      lines: [
        { service_id: `srv_${pad(s.laptop.id)}`, qty: 1, description: 'Computadora portátil con garantía' },
      ],
    });
    expect(created.status).toBe(201);
    const inv = created.json;

    // No workers yet: recorded, not sent.
    const first = await getPdf(inv.id);
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get('content-type')).toBe('application/pdf');
    expect(first.res.headers.get('content-disposition')).toBe(`inline; filename="${inv.clave}.pdf"`);
    expect(first.res.headers.get('x-cache')).toBe('miss');
    const pending = pdfText(first.body);
    expect(pending).toContain(inv.clave);
    expect(pending).toContain('Pendiente de envío a Hacienda');
    expect(pending).toContain('Juana Pérez Mora');
    expect(pending).toContain('Computadora portátil');
    expect(pending).toContain('garantía');
    expect(pending.replace(/\u00a0/g, ' ')).toContain('₡508 500,00'); // 450 000 + 13 %

    const again = await getPdf(inv.id);
    expect(again.res.headers.get('x-cache')).toBe('hit');
    expect(again.body.equals(first.body)).toBe(true);

    await e.startWorkers();
    await waitFor(
      async () => (await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key)).json.status === 'aceptada',
      30_000,
      100,
      'acceptance',
    );
    const accepted = await getPdf(inv.id);
    expect(accepted.res.status).toBe(200);
    expect(accepted.res.headers.get('x-cache')).toBe('miss');
    const text = pdfText(accepted.body);
    expect(text).toContain('Aceptado por el Ministerio de Hacienda');
    expect(text).not.toContain('Pendiente de envío');
    expect((await getPdf(inv.id)).res.headers.get('x-cache')).toBe('hit');
    const rows = await e.db('invoice_pdfs').where({ invoiceId: Number(inv.id.slice(4)) });
    expect(rows).toHaveLength(1);
    expect(rows[0].stateKey).toBe('v1:aceptada:aceptado');
  });

  it('answers 409 for a draft and 404 for an unknown id, as problem+json', async () => {
    const draft = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${pad(s.client.id)}`,
      send: false,
      lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
    });
    const d = await api(e, 'GET', `/api/v1/invoices/${draft.json.id}/pdf`, s.key);
    expect(d.status).toBe(409);
    expect(d.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(d.json.code).toBe('invalid_state');
    const n = await api(e, 'GET', '/api/v1/invoices/inv_000000999999/pdf', s.key);
    expect(n.status).toBe(404);
    expect(n.json.code).toBe('resource_not_found');
    expect(await e.db('invoice_pdfs').where({ invoiceId: Number(draft.json.id.slice(4)) })).toHaveLength(0);
  });
});
