// A document type added through its descriptor alone: a test-only type, code 99, cloned from the
// factura electrónica under a name of its own, registered here and nowhere else. It is issued
// through the real API → worker → Hacienda simulator like any other type: its own consecutivo
// series, its XML valid against the schema of its root, signed, accepted by the simulator (which
// checks it as it checks the others: clave, rules, totals), booked under its name, printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { registerDocumentType, documentTypes } from '../domain/document-types/index.ts';
import { FACTURA } from '../domain/document-types/factura.ts';
import type * as E2EHelpers from './helpers/e2e.ts';
import type { E2E } from './helpers/e2e.ts';

const TEST_TYPE = {
  ...FACTURA,
  code: '99',
  name: { es: 'Factura de prueba', en: 'Test invoice' },
};

// Registered before the service's modules are loaded (below, in beforeAll): the API's schemas
// list the types registered when they are built, as a process does with its own types at boot.
const unregister = registerDocumentType(TEST_TYPE);

let h: typeof E2EHelpers;
let e: E2E;
let s: Awaited<ReturnType<typeof E2EHelpers.seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');

// Loading the whole service on first import, then starting it, takes long on a busy machine.
beforeAll(async () => {
  h = await import('./helpers/e2e.ts');
  e = await h.startE2E();
  s = await h.seedIssuer(e.db, e.config);
}, 180_000);
afterAll(async () => {
  await e?.close();
  unregister();
});

describe('a document type registered through its descriptor', () => {
  it('is issued through the API, signed, accepted by the simulator, booked under its name and printed', async () => {
    const res = await h.api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '99',
      client_id: `cli_${pad(s.client.id)}`,
      lines: [{ service_id: `srv_${pad(s.laptop.id)}`, qty: 1 }],
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ document_type: '99', total: '508500.00' });
    // Its own series: tipo 99 in positions 9-10 of the consecutivo, number 1 of that series.
    expect(res.json.consecutivo).toMatch(/^\d{8}99\d{10}$/);
    expect(res.json.consecutivo.slice(10)).toBe('0000000001');
    expect(res.json.clave.slice(29, 31)).toBe('99');
    const done = await h.waitForDocumentStatus(e, s.key, res.json.id, ['aceptada', 'rechazada']);
    expect(done.status).toBe('aceptada');

    // Written as its descriptor says (the factura's layout), valid against that root's schema.
    const xml = await h.storedSignedXml(e.db, res.json.id);
    expect(xml).toContain('<FacturaElectronica xmlns="https://cdn.comprobanteselectronicos.go.cr/');
    expect(xml).toContain(`<NumeroConsecutivo>${res.json.consecutivo}</NumeroConsecutivo>`);
    const { validateXml } = await import('./helpers/xsd.ts');
    expect(await validateXml('FacturaElectronica', xml)).toEqual({ valid: true, errors: [] });

    // The simulator reads the type from its descriptor: a wrong total is refused (-111) as for any other.
    const { inspectDocument } = await import('../simulator/checks/inspect.ts');
    const { DEFAULT_KNOBS } = await import('../simulator/knobs.ts');
    const inspect = (text: string) =>
      inspectDocument({
        xml: Buffer.from(text),
        request: {
          clave: res.json.clave,
          emisor: { tipoIdentificacion: '02', numeroIdentificacion: s.company.idNumber },
        },
        duplicateConsecutivo: false,
        forceRejection: false,
        now: Date.now(),
        knobs: { ...DEFAULT_KNOBS, checkSignature: false },
        schema: null,
        cabys: null,
        trustedCas: [],
      });
    expect((await inspect(xml)).state).toBe('aceptado');
    const wrongTotal = xml.replace(/<TotalComprobante>[^<]+</, '<TotalComprobante>1.00000<');
    const refused = await inspect(wrongTotal);
    expect(refused.state).toBe('rechazado');
    expect(refused.rows.map((r) => r.code)).toContain(-55); // Hacienda's TotalComprobante check

    // Booked as a sale (its descriptor's booking), under its name; every entry balances.
    await h.waitForDocumentStatus(e, s.key, res.json.id, ['aceptada']);
    const lines = await e
      .db('journal_entries as j')
      .join('journal_lines as l', 'l.entry_id', 'j.id')
      .where('j.invoice_id', Number(res.json.id.slice(4)))
      .select('j.id', 'j.kind', 'j.description', 'l.debit', 'l.credit');
    const issue = lines.filter((l: any) => l.kind === 'invoice');
    expect(issue.length).toBeGreaterThan(0);
    expect(new Set(issue.map((l: any) => l.description))).toEqual(
      new Set([`Factura de prueba ${res.json.consecutivo}`]),
    );
    const byEntry = new Map<number, Decimal>();
    for (const l of lines)
      byEntry.set(l.id, (byEntry.get(l.id) ?? new Decimal(0)).plus(l.debit).minus(l.credit));
    expect([...byEntry.values()].every((d) => d.isZero())).toBe(true);

    const pdf = await h.api(e, 'GET', `/api/v1/invoices/${res.json.id}/pdf`, s.key);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toContain('application/pdf');
    const list = await h.api(e, 'GET', '/api/v1/invoices?document_type=99', s.key);
    expect(list.json.data.map((x: any) => x.id)).toEqual([res.json.id]);
  }, 120_000);

  it('removes nothing else: the other types are still registered, and a code nobody registered is refused', async () => {
    expect(documentTypes().map((d) => d.code)).toEqual([
      '01',
      '02',
      '03',
      '04',
      '05',
      '06',
      '07',
      '08',
      '09',
      '10',
      '99',
    ]);
    const res = await h.api(e, 'POST', '/api/v1/invoices', s.key, {
      document_type: '98',
      client_id: `cli_${pad(s.client.id)}`,
      lines: [{ service_id: `srv_${pad(s.laptop.id)}`, qty: 1 }],
    });
    expect(res.status).toBe(422);
  });
});
