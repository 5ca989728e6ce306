// POST /api/v1/invoices/{id}/retry end to end: the company's certificate expires between intake
// and signing, so the flow stops before Hacienda (a permanent processing error, nothing sent);
// the retry is refused while the certificate is still expired, accepted once a current one is
// saved, and the same invoice — same consecutivo and clave — is signed, received once, booked once
// and accepted. Concurrent retries do one thing; an accepted invoice cannot be retried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseId } from '../domain/ids.ts';
import { chunkName } from '../jobs/invoice-flow/queues.ts';
import { makeChunks } from '../jobs/invoice-flow/flow.ts';
import { api, saveCompanyCertificate, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e.close();
});

const saveCertificate = (from: Date, to: Date) => saveCompanyCertificate(e.db, e.config, s.company, from, to);

const clientId = () => `cli_${String(s.client.id).padStart(12, '0')}`;
const serviceId = () => `srv_${String(s.consulting.id).padStart(12, '0')}`;

async function getInvoice(id: string) {
  return (await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json;
}

async function waitForInvoice(id: string, pred: (inv: any) => boolean, what: string, timeoutMs = 20_000) {
  let last: any;
  await waitFor(
    async () => {
      last = await getInvoice(id);
      return pred(last);
    },
    timeoutMs,
    100,
    what,
  );
  return last;
}

const events = async (type: string, invoiceId: string) =>
  (await e.db('events').where({ type }).select('data')).filter(
    (r: { data: { id: string } }) => r.data.id === invoiceId,
  );

describe('an invoice whose certificate expired between intake and signing', () => {
  let first: any;
  let second: any;

  beforeAll(async () => {
    // The certificate runs out after the invoices are recorded and before they are signed.
    await saveCertificate(new Date(Date.now() - 700 * DAY), new Date(Date.now() - DAY));
    const create = async () =>
      api(e, 'POST', '/api/v1/invoices', s.key, {
        client_id: clientId(),
        condition: 'credito_30',
        lines: [{ service_id: serviceId(), qty: 3 }],
      });
    const [a, b] = await Promise.all([create(), create()]);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    first = a.json;
    second = b.json;
    for (const inv of [first, second])
      await waitForInvoice(
        inv.id,
        (x) => x.processing_error?.permanent === true,
        `invoice ${inv.id} to fail signing for good`,
      );
  });

  it('stops before Hacienda: pendiente, certificate_expired, nothing signed, sent or booked', async () => {
    const inv = await getInvoice(first.id);
    expect(inv).toMatchObject({
      status: 'pendiente',
      consecutivo: first.consecutivo,
      clave: first.clave,
      processing_error: { step: 'sign', code: 'certificate_expired', permanent: true },
    });
    expect(e.sim.simulator.counters().received).toBe(0);
    const id = parseId('invoice', first.id)!;
    expect(await e.db('invoice_documents').where({ invoiceId: id }).whereNotNull('signed_xml')).toHaveLength(
      0,
    );
    expect(await e.db('journal_entries').where({ invoiceId: id })).toHaveLength(0);
    expect(await events('invoice.processing_failed', first.id)).toHaveLength(1);
  });

  it('is refused while the certificate is still expired (409 retry_cause_persists), nothing changed', async () => {
    const res = await api(e, 'POST', `/api/v1/invoices/${first.id}/retry`, s.key);
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.json).toMatchObject({
      code: 'retry_cause_persists',
      invoice_status: 'pendiente',
      processing_error: { code: 'certificate_expired' },
    });
    expect(res.json.detail).toMatch(/expired/);
    expect((await getInvoice(first.id)).processing_error).toMatchObject({ permanent: true });
    expect(await events('invoice.retried', first.id)).toHaveLength(0);
  });

  it('once a current certificate is saved, two concurrent retries do one thing and the same invoice is accepted', async () => {
    await saveCertificate(new Date(Date.now() - DAY), new Date(Date.now() + 700 * DAY));
    const retry = () =>
      api(e, 'POST', `/api/v1/invoices/${first.id}/retry`, s.key, undefined, {
        'content-type': 'application/json',
      });
    const answers = await Promise.all([retry(), retry()]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 409]);
    const ok = answers.find((a) => a.status === 202)!.json;
    expect(ok).toMatchObject({ id: first.id, status: 'pendiente', processing_error: null });
    expect(answers.find((a) => a.status === 409)!.json).toMatchObject({ code: 'invoice_not_retryable' });

    const done = await waitForInvoice(
      first.id,
      (x) => x.status === 'aceptada',
      'the retried invoice accepted',
    );
    expect(done).toMatchObject({
      consecutivo: first.consecutivo,
      clave: first.clave,
      processing_error: null,
    });
    const id = parseId('invoice', first.id)!;
    // It travelled in a chunk of retries: none of the stopped flow's kept jobs stood in its way.
    const { flowChunk } = await e.db('invoices').where({ id }).first('flow_chunk');
    expect(flowChunk).toMatch(/r\d+$/);
    const entries = await e.db('journal_entries').where({ invoiceId: id, kind: 'invoice' });
    expect(entries).toHaveLength(1);
    const attempts = await e.db('hacienda_submissions').where({ invoiceId: id });
    expect(attempts.filter((a: { outcome: string }) => a.outcome === 'received')).toHaveLength(1);
    expect(await events('invoice.retried', first.id)).toHaveLength(1);
    expect(await events('invoice.sent', first.id)).toHaveLength(1);
    // The number series did not move: no other document took a number.
    expect(await e.db('invoices').whereNotNull('consecutivo')).toHaveLength(2);
  });

  it('replays a retry under its Idempotency-Key instead of refusing the repeat', async () => {
    const headers = { 'idempotency-key': `retry-${second.id}` };
    const a = await api(e, 'POST', `/api/v1/invoices/${second.id}/retry`, s.key, undefined, headers);
    expect(a.status).toBe(202);
    const b = await api(e, 'POST', `/api/v1/invoices/${second.id}/retry`, s.key, undefined, headers);
    expect(b.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.json).toEqual(a.json);
    const done = await waitForInvoice(
      second.id,
      (x) => x.status === 'aceptada',
      'the second invoice accepted',
    );
    expect(done).toMatchObject({ consecutivo: second.consecutivo, clave: second.clave });
    expect(await events('invoice.retried', second.id)).toHaveLength(1);
    // Hacienda received each document once.
    expect(e.sim.simulator.counters()).toMatchObject({ received: 2, duplicates: 0 });
  });

  it('is refused for an accepted invoice (409 invoice_not_retryable) and for an unknown one (404)', async () => {
    const res = await api(e, 'POST', `/api/v1/invoices/${first.id}/retry`, s.key);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'invoice_not_retryable', invoice_status: 'aceptada' });
    const missing = await api(e, 'POST', `/api/v1/invoices/inv_000099999999/retry`, s.key);
    expect(missing.status).toBe(404);
  });

  it('refuses an invoice still in flight', async () => {
    await e.stopWorkers();
    try {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
        client_id: clientId(),
        condition: 'credito_30',
        lines: [{ service_id: serviceId(), qty: 1 }],
      });
      expect(res.status).toBe(201);
      const retry = await api(e, 'POST', `/api/v1/invoices/${res.json.id}/retry`, s.key);
      expect(retry.status).toBe(409);
      expect(retry.json).toMatchObject({ code: 'invoice_not_retryable', invoice_status: 'pendiente' });
    } finally {
      await e.startWorkers();
    }
  });
});

describe('chunks of retried invoices', () => {
  it('are named apart from any chunk the same invoices made before, and never mixed with fresh ones', () => {
    const chunks = makeChunks(
      [
        { invoiceId: 7, companyId: 1, livemode: false },
        { invoiceId: 5, companyId: 1, livemode: false, retryOf: 42 },
        { invoiceId: 6, companyId: 1, livemode: false, retryOf: 40 },
      ],
      50,
    );
    expect(chunks).toEqual([
      { name: chunkName([7]), invoiceIds: [7], companyId: 1, livemode: false },
      { name: `${chunkName([5, 6])}r40`, invoiceIds: [5, 6], companyId: 1, livemode: false },
    ]);
  });
});
