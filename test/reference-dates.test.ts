// Dates a request carries into the XML besides the exoneration's: the FechaEmision of a document
// a credit note names by its clave (POST /api/v1/credit_notes) and of the supplier's document a
// factura electrónica de compra references (supplier.document.issue_date). Each is refused at
// intake (422 invalid_date, the field) when it names no real day, has a year the XML cannot write
// (1000-9999, Costa Rica time) or lies after the document being issued; no number is spent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClave, buildConsecutivo } from '../domain/clave.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let client: string;
let service: string;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  client = `cli_${String(s.client.id).padStart(12, '0')}`;
  service = `srv_${String(s.consulting.id).padStart(12, '0')}`;
}, 60_000);
afterAll(async () => {
  await e?.close();
});

async function counts() {
  const numbers = await e.db('numbering_series').sum('last_number as n').first();
  const invoices = await e.db('invoices').count('* as n').first();
  return { invoices: Number(invoices?.n), numbers: Number(numbers?.n ?? 0) };
}

async function accepted(id: string) {
  let inv: any;
  await waitFor(
    async () => {
      inv = (await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json;
      return inv.status === 'aceptada' || inv.status === 'rechazada';
    },
    30_000,
    100,
    'Hacienda to answer',
  );
  expect(inv.status, JSON.stringify(inv.rejection_reason)).toBe('aceptada');
}

const numberOf = (r: { json: { consecutivo: string } }) => Number(r.json.consecutivo.slice(10));
const lines = () => [{ service_id: service, qty: 1 }];
const past = () => new Date(Date.now() - 30 * 86_400_000);
/** Two days ahead: after any document numbered now. */
const later = () => new Date(Date.now() + 2 * 86_400_000).toISOString();

/** A credit note of a factura issued before the company used the service, dated `issueDate`. */
function externalNote(issueDate: string) {
  const consecutivo = buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number: 77 });
  const clave = buildClave({
    date: past(),
    emisorId: '3101123456',
    consecutivo,
    situacion: '1',
    securityCode: '12345678',
  });
  return {
    reference: { clave, issue_date: issueDate },
    reason: 'Devolución de un documento anterior',
    client_id: client,
    lines: lines(),
  };
}

/** A factura electrónica de compra whose supplier's document is dated `issueDate`. */
function purchase(issueDate: string) {
  return {
    document_type: '08',
    supplier: {
      name: 'Cloud Tools LLC',
      identification: 'US4455667788',
      identification_type: '05',
      foreign_address: '500 Market St, San Francisco, CA, USA',
      document: { number: 'INV-2026-0042', issue_date: issueDate },
    },
    lines: lines(),
  };
}

/** Dates no document can reference: a year before 1000 (also in Costa Rica time), after the document. */
const BAD_DATES: [string, () => string][] = [
  ['a year before 1000', () => '0999-05-01T10:00:00-06:00'],
  ['a year before 1000 in Costa Rica time', () => '1000-01-01T03:00:00Z'],
  ['a date after the document', later],
];

const ROUTES = [
  ['credit note of an outside document', '/api/v1/credit_notes', externalNote, '/reference/issue_date'],
  ['factura de compra', '/api/v1/invoices', purchase, '/supplier/document/issue_date'],
] as const;

describe('reference dates: 422 invalid_date with the field, no number spent', () => {
  it.each(ROUTES)(
    '%s: refused at intake, the next accepted document takes the number',
    async (_name, route, body, path) => {
      const first = await api(e, 'POST', route, s.key, body(past().toISOString()));
      expect(first.status, first.text).toBe(201);
      await accepted(first.json.id);
      const before = await counts();
      for (const [what, date] of BAD_DATES) {
        const res = await api(e, 'POST', route, s.key, body(date()));
        expect(res.status, `${what}: ${res.text}`).toBe(422);
        expect(res.headers.get('content-type')).toMatch(/problem\+json/);
        expect(res.json.errors, what).toEqual([expect.objectContaining({ path, code: 'invalid_date' })]);
      }
      expect(await counts()).toEqual(before);
      const next = await api(e, 'POST', route, s.key, body(past().toISOString()));
      expect(next.status, next.text).toBe(201);
      expect(next.json.consecutivo.slice(0, 10)).toBe(first.json.consecutivo.slice(0, 10));
      expect(numberOf(next)).toBe(numberOf(first) + 1);
      await accepted(next.json.id);
    },
  );

  it('a batch purchase with a year before 1000 is refused before any number is taken', async () => {
    const before = await counts();
    const res = await api(e, 'POST', '/api/v1/invoices/batch', s.key, {
      invoices: [{ ...purchase('0999-05-01T10:00:00-06:00'), idempotency_key: 'fec-0999' }],
    });
    expect(res.status, res.text).toBe(202);
    let batch: any;
    await waitFor(
      async () => {
        batch = (await api(e, 'GET', `/api/v1/batches/${res.json.id}`, s.key)).json;
        return batch.status === 'completed';
      },
      30_000,
      100,
      'the batch to complete',
    );
    expect(batch.counts).toMatchObject({ failed: 1, created: 0 });
    expect(batch.items[0].error.errors).toEqual([
      expect.objectContaining({ path: '/supplier/document/issue_date', code: 'invalid_date' }),
    ]);
    expect(await counts()).toEqual(before);
  });
});
