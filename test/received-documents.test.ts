// Received documents end to end: a supplier's factura (built by the project's own builder, signed
// under the supplier's own sandbox certificate, sent by the supplier to the simulator and accepted
// there) is posted to the company, verified and stored; refused when tampered with, signed by
// someone else, malformed or addressed to another receptor (nothing stored); answered with each
// MensajeReceptor (1/2/3 → tipos 05/06/07) through the worker to the simulator's acceptance, the
// message valid against its XSD and its signature verified by xmlsec1; answered once; isolated
// by company.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../db/queries/api-keys.ts';
import { createCompany } from '../db/queries/companies.ts';
import { SCOPES } from '../domain/scopes.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { clientFor, pollUntilTerminal, replaceElementText, submission } from './helpers/hacienda-fixtures.ts';
import {
  POLICY_V41,
  POLICY_V44,
  SUPPLIER,
  supplierInvoice as supplierInvoiceTo,
  xadesjsSupplierInvoice,
  type Party,
} from './helpers/supplier-documents.ts';
import { waitFor } from './helpers/wait.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { verifyWithXmlsec } from './helpers/xmlsec.ts';
import { validateXml } from './helpers/xsd.ts';

const STRANGER = { idType: '01', idNumber: '205550777', name: 'Persona Ajena Al Proveedor' } as const;

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let otherKey: string;
let hooks: Receiver;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  const other = await createCompany(e.db, {
    name: 'Otra Empresa',
    plan: 'business',
    legalName: 'Otra Empresa Sociedad Anonima',
    idType: '02',
    idNumber: '3101654321',
    activityCode: '620100',
    provincia: '1',
    canton: '01',
    distrito: '01',
    otrasSenas: 'Avenida 2, calle 4',
    emails: ['otra@example.com'],
    rateLimitPerSecond: 100_000,
  });
  hooks = await startReceiver();
  const endpoint = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, {
    url: hooks.url,
    events: ['received_document.created', 'received_document.answered'],
  });
  expect(endpoint.status).toBe(201);
  hooks.secrets.push(endpoint.json.secret);
  otherKey = (
    await createApiKey(e.db, { companyId: other.id, livemode: false, name: 'other', scopes: [...SCOPES] })
  ).secret;
});
afterAll(async () => {
  await hooks?.close();
  await e?.close();
});

/** A supplier's factura to the company (or to `receptor`), signed by `signedBy`. */
function supplierInvoice(number: number, receptor?: Party, signedBy: Party = SUPPLIER) {
  return supplierInvoiceTo(
    number,
    receptor ?? { idType: '02', idNumber: s.company.idNumber, name: s.company.legalName! },
    signedBy,
  );
}

/** The supplier sends its own factura to Hacienda (the simulator), which accepts it. */
async function supplierSends(f: { clave: string; issuedAt: Date; xml: string }) {
  const { client } = clientFor({
    app: e.sim,
    origin: e.simUrl,
    sandbox: {
      idpUrl: `${e.simUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
      apiUrl: `${e.simUrl}/recepcion-sandbox/v1`,
      clientId: 'api-stag',
    },
  });
  await client.submit(
    submission(f, f.xml, {
      emisor: { tipoIdentificacion: SUPPLIER.idType, numeroIdentificacion: SUPPLIER.idNumber },
      receptor: { tipoIdentificacion: '02', numeroIdentificacion: s.company.idNumber },
    }),
  );
  const verdict = await pollUntilTerminal(client, f.clave);
  expect(verdict.state).toBe('aceptado');
}

async function postXml(xml: string, key = s.key) {
  const res = await fetch(`${e.apiUrl}/api/v1/received_documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml' },
    body: xml,
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

async function written() {
  const [docs, events] = await Promise.all([
    e.db('received_documents').count('* as n').first(),
    e.db('events').count('* as n').first(),
  ]);
  return [Number(docs!.n), Number(events!.n)];
}

describe('received documents', () => {
  const stored: Record<string, any> = {};
  const invoices: Record<string, Awaited<ReturnType<typeof supplierInvoice>>> = {};

  it("stores a supplier's signed factura once, verified, with its emisor and totals", async () => {
    for (const [n, name] of [
      [1, 'accepted'],
      [2, 'partially_accepted'],
      [3, 'rejected'],
    ] as const) {
      invoices[name] = await supplierInvoice(n);
      await supplierSends(invoices[name]);
    }
    const raw = await postXml(invoices.accepted!.xml);
    expect(raw.status).toBe(201);
    expect(raw.json).toMatchObject({
      object: 'received_document',
      clave: invoices.accepted!.clave,
      document_type: '01',
      emisor: { identification_type: '01', cedula: SUPPLIER.idNumber, name: SUPPLIER.name },
      receptor: { identification_type: '02', cedula: s.company.idNumber },
      currency: 'CRC',
      total_tax: '26000.00000',
      total: '236000.00000',
      answer: null,
    });
    expect(raw.json.id).toMatch(/^rcv_\d{12}$/);
    expect(raw.headers.get('location')).toBe(`/api/v1/received_documents/${raw.json.id}`);
    stored.accepted = raw.json;
    // The stored bytes are the supplier's, exactly.
    const row = await e.db('received_documents').where({ clave: invoices.accepted!.clave }).first();
    expect((row.signedXml as Buffer).toString('utf8')).toBe(invoices.accepted!.xml);
    const created = await e.db('events').where({ type: 'received_document.created' });
    expect(created.map((ev: any) => ev.data.id)).toEqual([raw.json.id]);

    // The same bytes again: the same document, nothing written.
    const before = await written();
    const again = await postXml(invoices.accepted!.xml);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.id).toBe(raw.json.id);
    expect(await written()).toEqual(before);

    // JSON with base64 works the same way.
    for (const name of ['partially_accepted', 'rejected'] as const) {
      const res = await api(e, 'POST', '/api/v1/received_documents', s.key, {
        xml_base64: Buffer.from(invoices[name]!.xml, 'utf8').toString('base64'),
      });
      expect(res.status).toBe(201);
      stored[name] = res.json;
    }
  });

  it('refuses tampered, foreign-signed, malformed and misaddressed documents, storing nothing', async () => {
    const before = await written();
    const mine = await supplierInvoice(10);
    const tampered = replaceElementText(mine.xml, 'TotalComprobante', '1.00000');
    const r1 = await postXml(tampered);
    expect(r1.status).toBe(422);
    expect(r1.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r1.json.code).toBe('signature_invalid');

    const byStranger = await supplierInvoice(11, undefined, STRANGER);
    const r2 = await postXml(byStranger.xml);
    expect(r2.status).toBe(422);
    expect(r2.json.code).toBe('signature_invalid');
    expect(r2.json.detail).toMatch(/certificate of its emisor/);

    const toOther = await supplierInvoice(12, {
      idType: '02',
      idNumber: '3101654321',
      name: 'Otra Empresa S.A.',
    });
    const r3 = await postXml(toOther.xml);
    expect(r3.status).toBe(422);
    expect(r3.json.code).toBe('receptor_mismatch');
    // …which its real receptor may store (the one document that company has).
    const theirs = await postXml(toOther.xml, otherKey);
    expect(theirs.status).toBe(201);
    stored.theirs = theirs.json;
    before[0]! += 1;
    before[1]! += 1;

    const r4 = await postXml('<FacturaElectronica><Clave>1');
    expect(r4.status).toBe(422);
    expect(r4.json.code).toBe('invalid_xml');
    const r5 = await api(e, 'POST', '/api/v1/received_documents', s.key, { xml_base64: '***' });
    expect(r5.status).toBe(422);
    expect(r5.json.errors[0].path).toBe('/xml_base64');
    const badClave = await postXml(replaceElementText(mine.xml, 'Clave', '5'.repeat(50)));
    expect(badClave.status).toBe(422);
    expect(badClave.json.code).toBe('invalid_xml');

    // Other bytes under a clave already stored: a clear conflict.
    const r6 = await postXml(invoices.accepted!.xml.replace('<?xml version="1.0" encoding="utf-8"?>\n', ''));
    expect(r6.status).toBe(409);
    expect(r6.json.code).toBe('received_document_exists');
    expect(r6.json.existing_received_document_id).toBe(stored.accepted.id);
    expect(await written()).toEqual(before);
  });

  it('refuses invalid answers and changes nothing', async () => {
    const id = stored.rejected.id;
    const cases: [string, unknown, number, string, string?][] = [
      [id, {}, 422, 'validation_failed'],
      [id, { result: 'maybe' }, 422, 'validation_failed'],
      [id, { result: 'rejected' }, 422, 'validation_failed', '/reason'],
      [id, { result: 'rejected', reason: 'x'.repeat(161) }, 422, 'validation_failed'],
      [id, { result: 'rejected', reason: 'No', iva_credit: '1.00' }, 422, 'validation_failed', '/iva_credit'],
      [id, { result: 'accepted', iva_credit: '26000.01' }, 422, 'validation_failed', '/iva_credit'],
      [id, { result: 'accepted', expense: '236000.01' }, 422, 'validation_failed', '/expense'],
      [id, { result: 'partially_accepted', reason: 'Parcial' }, 422, 'validation_failed', '/iva_credit'],
      [
        id,
        { result: 'accepted', tax_condition: '04', iva_credit: '5' },
        422,
        'validation_failed',
        '/iva_credit',
      ],
      ['rcv_000000999999', { result: 'accepted' }, 404, 'resource_not_found'],
    ];
    for (const [target, body, status, code, path] of cases) {
      const res = await api(e, 'POST', `/api/v1/received_documents/${target}/answer`, s.key, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json.code).toBe(code);
      if (path) expect(res.json.errors.map((x: any) => x.path)).toContain(path);
    }
    const row = await e
      .db('received_documents')
      .where({ id: Number(id.slice(4)) })
      .first();
    expect(row.answerResult).toBeNull();
    expect(await e.db('outbox').where({ kind: 'received.answer' })).toHaveLength(0);
  });

  it('answers each document once with its MensajeReceptor, accepted by Hacienda', async () => {
    const bodies = {
      accepted: { result: 'accepted' },
      partially_accepted: {
        result: 'partially_accepted',
        reason: 'Un monitor llegó dañado',
        iva_credit: '13000',
        activity_code: '620100',
      },
      rejected: { result: 'rejected', reason: 'Mercadería no solicitada' },
    } as const;
    for (const [name, body] of Object.entries(bodies)) {
      const res = await api(e, 'POST', `/api/v1/received_documents/${stored[name].id}/answer`, s.key, body);
      expect(res.status, name).toBe(202);
      expect(res.json.answer).toMatchObject({ result: name, status: 'pendiente' });
    }
    // A second answer is refused, whatever it says.
    const twice = await api(e, 'POST', `/api/v1/received_documents/${stored.accepted.id}/answer`, s.key, {
      result: 'rejected',
      reason: 'Cambio de opinión',
    });
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe('already_answered');

    const expected = {
      accepted: {
        mensaje: '1',
        tipo: '05',
        condicion: '01',
        acreditar: '26000.00000',
        gasto: '210000.00000',
      },
      partially_accepted: {
        mensaje: '2',
        tipo: '06',
        condicion: '02',
        acreditar: '13000.00000',
        gasto: '223000.00000',
      },
      rejected: { mensaje: '3', tipo: '07', condicion: null, acreditar: null, gasto: null },
    } as const;
    for (const [name, want] of Object.entries(expected)) {
      let last: any;
      await waitFor(
        async () => {
          last = (await api(e, 'GET', `/api/v1/received_documents/${stored[name].id}`, s.key)).json;
          return ['aceptada', 'rechazada', 'failed'].includes(last.answer.status);
        },
        20_000,
        100,
        `the answer to ${name}`,
      );
      expect(last.answer, JSON.stringify(last.answer)).toMatchObject({
        result: name,
        status: 'aceptada',
        hacienda_status: 'aceptado',
        tax_condition: want.condicion,
        iva_credit: want.acreditar,
        expense: want.gasto,
        warnings: [], // accepted without observations
      });
      expect(last.answer.consecutivo).toMatch(new RegExp(`^00100001${want.tipo}0000000001$`));

      const row = await e
        .db('received_documents')
        .where({ id: Number(stored[name].id.slice(4)) })
        .first();
      const xml = (row.answerSignedXml as Buffer).toString('utf8');
      expect(xml).toContain(`<Clave>${invoices[name]!.clave}</Clave>`);
      expect(xml).toContain(`<Mensaje>${want.mensaje}</Mensaje>`);
      expect(xml).toContain(`<NumeroCedulaReceptor>${s.company.idNumber}</NumeroCedulaReceptor>`);
      expect(xml).toContain('<TotalFactura>236000.00000</TotalFactura>');
      expect(xml).toContain('<MontoTotalImpuesto>26000.00000</MontoTotalImpuesto>');
      const schema = await validateXml('MensajeReceptor', xml);
      expect(schema.errors).toEqual([]);
      expect(schema.valid).toBe(true);
      const sig = await verifyWithXmlsec(xml);
      expect(sig.valid, sig.output).toBe(true);
      expect(row.answerResponseXml).not.toBeNull();
    }
    const answered = await e.db('events').where({ type: 'received_document.answered' });
    expect(answered.map((ev: any) => ev.data.answer.status).sort()).toEqual([
      'aceptada',
      'aceptada',
      'aceptada',
    ]);
    // Both kinds reach a subscribed endpoint, signed.
    await waitFor(() => hooks.ofKind('received_document.answered').length >= 3, 10_000, 50, 'webhooks');
    expect(hooks.ofKind('received_document.created').length).toBeGreaterThanOrEqual(3);
    for (const r of hooks.received) expect(r.verified.ok).toBe(true);
    expect(
      hooks
        .ofKind('received_document.answered')
        .map((r) => r.body.data.answer.result)
        .sort(),
    ).toEqual(['accepted', 'partially_accepted', 'rejected']);
    const series = await e.db('numbering_series').whereIn('docType', ['05', '06', '07']).orderBy('docType');
    expect(series.map((r: any) => [r.docType, Number(r.lastNumber)])).toEqual([
      ['05', 1],
      ['06', 1],
      ['07', 1],
    ]);
  });

  it("rejects at Hacienda's simulator a message whose amounts disagree with the document", async () => {
    // The simulator's own rules: a MensajeReceptor signed by the receptor but repeating the wrong total.
    const f = await supplierInvoice(20);
    await supplierSends(f);
    const res = await postXml(f.xml);
    expect(res.status).toBe(201);
    await e
      .db('received_documents')
      .where({ id: Number(res.json.id.slice(4)) })
      .update({ total: '1000.00000' });
    const answer = await api(e, 'POST', `/api/v1/received_documents/${res.json.id}/answer`, s.key, {
      result: 'rejected',
      reason: 'Total distinto',
    });
    expect(answer.status).toBe(202);
    let last: any;
    await waitFor(
      async () => {
        last = (await api(e, 'GET', `/api/v1/received_documents/${res.json.id}`, s.key)).json;
        return ['aceptada', 'rechazada', 'failed'].includes(last.answer.status);
      },
      20_000,
      100,
      'the answer with a wrong total',
    );
    expect(last.answer.status).toBe('rechazada');
    expect(last.answer.rejection_reason.es).toMatch(/TotalFactura no corresponde/);
  });

  it('lists by page and keeps each company to its own documents', async () => {
    const page = await api(e, 'GET', '/api/v1/received_documents?limit=2', s.key);
    expect(page.status).toBe(200);
    expect(page.json.data).toHaveLength(2);
    expect(page.json.has_more).toBe(true);
    const next = await api(
      e,
      'GET',
      `/api/v1/received_documents?limit=2&starting_after=${page.json.data[1].id}`,
      s.key,
    );
    const ids = [...page.json.data, ...next.json.data].map((d: any) => d.id);
    expect(new Set(ids).size).toBe(4);
    const pending = await api(e, 'GET', '/api/v1/received_documents?answer_status=aceptada', s.key);
    expect(pending.json.data.map((d: any) => d.id).sort()).toEqual(
      [stored.accepted.id, stored.partially_accepted.id, stored.rejected.id].sort(),
    );

    const theirs = await api(e, 'GET', '/api/v1/received_documents', otherKey);
    expect(theirs.json.data.map((d: any) => d.id)).toEqual([stored.theirs.id]);
    expect((await api(e, 'GET', `/api/v1/received_documents/${stored.theirs.id}`, s.key)).status).toBe(404);
    expect((await api(e, 'GET', `/api/v1/received_documents/${stored.accepted.id}`, otherKey)).status).toBe(
      404,
    );
    const answer = await api(e, 'POST', `/api/v1/received_documents/${stored.accepted.id}/answer`, otherKey, {
      result: 'accepted',
    });
    expect(answer.status).toBe(404);
  });
});

describe('signatures of other signers and their policy', () => {
  const toCompany = () => ({ idType: '02', idNumber: s.company.idNumber, name: s.company.legalName! });

  it('stores a factura signed by xadesjs with its own Signature Id (QualifyingProperties target the Id xadesjs generated first)', async () => {
    const f = await xadesjsSupplierInvoice(30, toCompany(), POLICY_V44, 'Emisor');
    const signatureId = /<ds:Signature Id="(xmldsig-[0-9a-f]{16})"/.exec(f.xml)?.[1];
    const target = /<xades:QualifyingProperties[^>]* Target="#(id-[0-9a-f]{12})"/.exec(f.xml)?.[1];
    // The shape xadesjs-based signers write: the Target names no element of the document.
    expect(signatureId).toBeDefined();
    expect(target).toBeDefined();
    expect(f.xml).not.toContain(`Id="${target}"`);
    expect(await verifyWithXmlsec(f.xml)).toMatchObject({ valid: true });
    await supplierSends(f);
    const res = await postXml(f.xml);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({ clave: f.clave, emisor: { cedula: SUPPLIER.idNumber } });
  });

  it('refuses QualifyingProperties that target another element of the document', async () => {
    const before = await written();
    const f = await xadesjsSupplierInvoice(31, toCompany());
    const referenceId = /<ds:Reference Id="(r-[0-9a-f]{16})"/.exec(f.xml)![1]!;
    const elsewhere = f.xml.replace(/ Target="#id-[0-9a-f]{12}"/, ` Target="#${referenceId}"`);
    const res = await postXml(elsewhere);
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('signature_invalid');
    expect(res.json.detail).toMatch(/target another element/);
    expect(await written()).toEqual(before);
  });

  it.each([
    ['no SignaturePolicyIdentifier', null, /no tiene el Policy Id/, /has no Policy Id/],
    [
      "the v4.1 policy with a SHA-1 digest (the SDK's)",
      POLICY_V41,
      /sigue otra política.*DGT-R-48-2016/,
      /follows another policy/,
    ],
    [
      'the v4.4 policy with another digest',
      { ...POLICY_V44, digest: 'DWxin1xWOel8OuWQXazh4VjLWAaCLAA954em7DMh0h8=' },
      /SigPolicyHash.*se esperaba SHA-256 DWxin1xWOeI8/,
      /digest/,
    ],
    [
      'the v4.4 policy with a SHA-1 digest',
      { ...POLICY_V44, hash: 'SHA-1' as const, digest: 'Ohixl6upD6av8N7pEvDABhEL6hM=' },
      /se recibió SHA-1 Ohixl6upD6av8N7pEvDABhEL6hM=/,
      /got SHA-1/,
    ],
  ] as const)(
    'refuses a signature with %s, with its reason in Spanish (English on request), storing nothing',
    async (_l, policy, es, en) => {
      const before = await written();
      const signed = await xadesjsSupplierInvoice(40 + Math.floor(Math.random() * 1000), toCompany(), policy);
      // Target set to the Signature's Id (it is not signed): a signature right but for its policy.
      const signatureId = /<ds:Signature Id="([^"]+)"/.exec(signed.xml)![1]!;
      const f = { ...signed, xml: signed.xml.replace(/ Target="#[^"]+"/, ` Target="#${signatureId}"`) };
      expect(f.xml).toContain(`Target="#${signatureId}"`);
      const res = await postXml(f.xml);
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.json.code).toBe('signature_policy_invalid');
      expect(res.json.detail).toMatch(es);
      expect(res.json.errors).toEqual([
        { path: '/xml_base64', code: 'signature_policy_invalid', message: res.json.detail },
      ]);
      const english = await fetch(`${e.apiUrl}/api/v1/received_documents`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${s.key}`,
          'content-type': 'application/xml',
          'accept-language': 'en',
        },
        body: f.xml,
      });
      expect(english.status).toBe(422);
      expect(((await english.json()) as any).detail).toMatch(en);
      expect(await written()).toEqual(before);
    },
  );
});
