// An issued document keeps the parties it was signed with. Once signed, the company and the client
// may be edited, but the reception request sent to Hacienda, the PDF (from the API, the email and
// the month's archive) and the email's recipient and sender name stay those of the signed XML
// (invoice_documents.parties). Edits before the signature take effect. A document signed before the
// parties were kept (parties null) reads the rows as they are, as it always did.
// Hacienda is the simulator, reached through a recording proxy (the reception requests are read
// back); the mail catcher is a real SMTP server; the signing or the sending is held by pausing
// that step's queue.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEmailDelivery } from '../db/queries/companies.ts';
import { QUEUES } from '../jobs/invoice-flow/queues.ts';
import {
  api,
  seedIssuer,
  startE2E,
  storedSignedXml,
  waitForDocumentStatus,
  type E2E,
} from './helpers/e2e.ts';
import { startCatcherProcess, type CatcherProcess } from './helpers/mail-catcher.ts';
import { pdfText } from './helpers/pdf-tools.ts';
import { waitFor } from './helpers/wait.ts';

interface Reception {
  clave: string;
  emisor: { tipoIdentificacion: string; numeroIdentificacion: string };
  receptor?: { tipoIdentificacion: string; numeroIdentificacion: string };
  comprobanteXml: string;
}

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let catcher: CatcherProcess;
let proxy: Server;
let target = '';
const receptions: Reception[] = [];
const pad = (n: number) => String(n).padStart(12, '0');
const SIGNED_COMPANY = 'Servicios Ejemplo Sociedad Anonima';

/** Hacienda's reception API behind a proxy that keeps every POSTed document's request. */
async function startReceptionProxy(): Promise<string> {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && /\/recepcion$/.test(req.url ?? ''))
        receptions.push(JSON.parse(body.toString('utf8')) as Reception);
      const headers: Record<string, string> = {};
      for (const h of ['authorization', 'content-type'])
        if (req.headers[h]) headers[h] = String(req.headers[h]);
      fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        ...(body.length ? { body } : {}),
      })
        .then(async (up) => {
          const out: Record<string, string> = {};
          up.headers.forEach((v, k) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))
              out[k] = v;
          });
          res.writeHead(up.status, out).end(Buffer.from(await up.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  catcher = await startCatcherProcess();
  const proxyUrl = await startReceptionProxy();
  e = await startE2E({
    env: {
      SMTP_URL: catcher.smtpUrl,
      SMTP_SANDBOX_URL: catcher.smtpUrl,
      HACIENDA_SANDBOX_API_URL: `${proxyUrl}/recepcion-sandbox/v1`,
    },
  });
  target = e.simUrl;
  s = await seedIssuer(e.db, e.config);
  await e.db('companies').where({ id: s.company.id }).update({ phone: '22223333', phoneCountry: '506' });
  await setEmailDelivery(e.db, s.company.id, { enabled: true, replyTo: null, bcc: [] });
}, 60_000);
afterAll(async () => {
  await e?.close();
  await catcher?.stop();
  await new Promise((resolve) => proxy?.close(resolve));
});

async function newClient(cedula: string, name: string, email: string): Promise<string> {
  const res = await api(e, 'POST', '/api/v1/clients', s.key, {
    cedula,
    name,
    email,
    addresses: [{ provincia: '1', canton: '01', distrito: '08', otras_senas: '200 m norte de la iglesia' }],
  });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

async function issue(clientId: string): Promise<{ id: string; clave: string }> {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: clientId,
    lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 3 }],
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; clave: string };
}

/** The client renamed, re-identified and given another address, through the API. */
async function editClient(clientId: string, cedula: string, name: string, email: string): Promise<void> {
  const res = await api(e, 'PATCH', `/api/v1/clients/${clientId}`, s.key, { cedula, name, email });
  expect(res.status, res.text).toBe(200);
  expect(res.json).toMatchObject({ name, email });
}

/**
 * The company renamed with another phone. Written on its row: this branch's PATCH /api/v1/company
 * changes the activity code only (the emisor's other fields come to it separately).
 */
async function editCompany(legalName: string, phone: string): Promise<void> {
  await e.db('companies').where({ id: s.company.id }).update({ legalName, name: legalName, phone });
}

/** The invoice's PDF rendered now (its cached copy dropped first), as text. */
async function freshPdfText(id: string): Promise<string> {
  await e
    .db('invoice_pdfs')
    .where({ invoiceId: Number(id.slice(4)) })
    .del();
  const res = await fetch(`${e.apiUrl}/api/v1/invoices/${id}/pdf`, {
    headers: { authorization: `Bearer ${s.key}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-cache')).toBe('miss');
  return pdfText(Buffer.from(await res.arrayBuffer()));
}

async function emailOf(clave: string, count: number) {
  let all: Awaited<ReturnType<CatcherProcess['messages']>> = [];
  await waitFor(
    async () => {
      all = (await catcher.messages()).filter((m) => m.headers['x-factura-clave'] === clave);
      return all.length >= count;
    },
    45_000,
    100,
    `email ${count} of ${clave}`,
  );
  return all[count - 1]!;
}

async function pausing<T>(step: 'sign' | 'submit', run: (resume: () => Promise<void>) => Promise<T>) {
  const queue = new Queue(QUEUES[step], { connection: e.connection, prefix: e.config.queuePrefix });
  await queue.pause();
  try {
    return await run(() => queue.resume());
  } finally {
    await queue.resume();
    await queue.close();
  }
}

const receptionOf = (clave: string) => receptions.filter((r) => r.clave === clave);
const crMonth = () =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Costa_Rica', year: 'numeric', month: '2-digit' })
    .format(new Date())
    .slice(0, 7);

describe('an accepted document after its parties are edited', () => {
  let inv: { id: string; clave: string };
  let clientId: string;
  let xmlBefore: string;

  beforeAll(async () => {
    clientId = await newClient('1-0555-0666', 'Ana Firmada Rojas', 'ana@firmada.example');
    inv = await issue(clientId);
    expect((await waitForDocumentStatus(e, s.key, inv.id, ['aceptada'])).status).toBe('aceptada');
    await emailOf(inv.clave, 1);
    xmlBefore = await storedSignedXml(e.db, inv.id);
    await editClient(clientId, '2-0777-0888', 'Beatriz Cambiada Solano', 'nueva@cambiada.example');
    await editCompany('Empresa Renombrada Limitada', '88887777');
  }, 90_000);

  it('keeps its stored XML byte for byte, with the parties it was signed with', async () => {
    const xml = await storedSignedXml(e.db, inv.id);
    expect(xml).toBe(xmlBefore);
    expect(xml).toContain('<Nombre>Ana Firmada Rojas</Nombre>');
    expect(xml).toContain('<Numero>105550666</Numero>');
    expect(xml).toContain(`<Nombre>${SIGNED_COMPANY}</Nombre>`);
    expect(xml).not.toContain('Cambiada');
    // The parties kept with the signature are the XML's.
    const row = await e
      .db('invoice_documents')
      .where({ invoiceId: Number(inv.id.slice(4)) })
      .first('parties');
    expect(row.parties.client).toMatchObject({ name: 'Ana Firmada Rojas', idNumber: '105550666' });
    expect(row.parties.company).toMatchObject({ legalName: SIGNED_COMPANY, phone: '22223333' });
  });

  it('renders its PDF with the signed names, identification and phone', async () => {
    const text = await freshPdfText(inv.id);
    expect(text).toContain('Ana Firmada Rojas');
    expect(text).toContain('105550666');
    expect(text).toContain('ana@firmada.example');
    expect(text).toContain(SIGNED_COMPANY);
    expect(text).toContain('22223333');
    for (const edited of ['Beatriz', 'Cambiada', '207770888', 'nueva@cambiada', 'Renombrada', '88887777'])
      expect(text).not.toContain(edited);
  });

  it('emails it again to the signed receptor, under the signed name, with the signed PDF', async () => {
    const res = await api(e, 'POST', `/api/v1/invoices/${inv.id}/email`, s.key, {});
    expect(res.status, res.text).toBe(202);
    expect(res.json.recipients).toEqual(['ana@firmada.example']);
    const m = await emailOf(inv.clave, 2);
    expect(m.to).toEqual(['ana@firmada.example']);
    expect(m.subject).toContain(`de ${SIGNED_COMPANY}`);
    expect(m.text).toContain(`${SIGNED_COMPANY} le envía`);
    expect(JSON.stringify(m)).not.toContain('Renombrada');
    const pdf = pdfText(await catcher.attachment(m.id, 0));
    expect(pdf).toContain('Ana Firmada Rojas');
    expect(pdf).not.toContain('Cambiada');
    expect((await catcher.attachment(m.id, 1)).toString('utf8')).toBe(xmlBefore);
  });

  it('puts the signed PDF in the month’s archive', async () => {
    await e
      .db('invoice_pdfs')
      .where({ invoiceId: Number(inv.id.slice(4)) })
      .del();
    const res = await fetch(`${e.apiUrl}/api/v1/reports/monthly/archive?month=${crMonth()}`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(res.status).toBe(200);
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const text = pdfText(await zip.file(`emitidos/${inv.clave}.pdf`)!.async('nodebuffer'));
    expect(text).toContain('Ana Firmada Rojas');
    expect(text).toContain(SIGNED_COMPANY);
    expect(text).not.toContain('Cambiada');
    expect(text).not.toContain('Renombrada');
  });

  it('a document signed before the parties were kept still shows the rows as they are', async () => {
    await e
      .db('invoice_documents')
      .where({ invoiceId: Number(inv.id.slice(4)) })
      .update({ parties: null });
    try {
      const text = await freshPdfText(inv.id);
      expect(text).toContain('Beatriz Cambiada Solano');
      expect(text).toContain('Empresa Renombrada Limitada');
    } finally {
      await e
        .db('invoice_pdfs')
        .where({ invoiceId: Number(inv.id.slice(4)) })
        .del();
    }
  });

  afterAll(async () => {
    await editCompany(SIGNED_COMPANY, '22223333');
  });
});

describe('a document signed and not yet sent', () => {
  it('is sent to Hacienda with the receptor it was signed with after the client changes, and accepted', async () => {
    const clientId = await newClient('1-0444-0555', 'Carlos Original Mora', 'carlos@original.example');
    const inv = await pausing('submit', async (resume) => {
      const issued = await issue(clientId);
      const id = Number(issued.id.slice(4));
      await waitFor(
        async () => Boolean((await e.db('invoices').where({ id }).first('signed_at')).signedAt),
        30_000,
        100,
        'the document signed',
      );
      await editClient(clientId, '2-0999-0111', 'Daniel Editado Vargas', 'daniel@editado.example');
      expect(receptionOf(issued.clave)).toHaveLength(0);
      await resume();
      return issued;
    });
    expect((await waitForDocumentStatus(e, s.key, inv.id, ['aceptada', 'rechazada'])).status).toBe(
      'aceptada',
    );
    const [sent, ...again] = receptionOf(inv.clave);
    expect(again).toHaveLength(0);
    expect(sent!.receptor).toEqual({ tipoIdentificacion: '01', numeroIdentificacion: '104440555' });
    expect(sent!.emisor).toEqual({ tipoIdentificacion: '02', numeroIdentificacion: s.company.idNumber });
    const xml = Buffer.from(sent!.comprobanteXml, 'base64').toString('utf8');
    expect(xml).toBe(await storedSignedXml(e.db, inv.id));
    expect(xml).toContain('<Numero>104440555</Numero>');
    expect(xml).toContain('<Nombre>Carlos Original Mora</Nombre>');
    const m = await emailOf(inv.clave, 1);
    expect(m.to).toEqual(['carlos@original.example']);
  }, 90_000);
});

/** The invoice's PDF through the API (its cache as it is), as text, and whether it was cached. */
async function pdfNow(id: string): Promise<{ text: string; cache: string | null }> {
  const res = await fetch(`${e.apiUrl}/api/v1/invoices/${id}/pdf`, {
    headers: { authorization: `Bearer ${s.key}` },
  });
  expect(res.status).toBe(200);
  return { text: pdfText(Buffer.from(await res.arrayBuffer())), cache: res.headers.get('x-cache') };
}

describe('an edit before the signature', () => {
  it('takes effect: the document is signed, shown and sent with the client as it is then', async () => {
    const clientId = await newClient('1-0321-0654', 'Elena Antes Quesada', 'elena@antes.example');
    const inv = await pausing('submit', (resumeSubmit) =>
      pausing('sign', async (resumeSign) => {
        const issued = await issue(clientId);
        const id = Number(issued.id.slice(4));
        // A PDF made before the signature shows the client as it was then, and is cached.
        expect((await pdfNow(issued.id)).text).toContain('Elena Antes Quesada');
        expect((await pdfNow(issued.id)).cache).toBe('hit');
        await editClient(clientId, '1-0321-0654', 'Elena Después Quesada', 'elena@despues.example');
        await resumeSign();
        await waitFor(
          async () => Boolean((await e.db('invoices').where({ id }).first('signed_at')).signedAt),
          30_000,
          100,
          'the document signed',
        );
        // Still pendiente, now signed: that cached copy is not served, the signed one is rendered.
        const signed = await pdfNow(issued.id);
        expect(signed.cache).toBe('miss');
        expect(signed.text).toContain('Elena Después Quesada');
        expect(signed.text).not.toContain('Elena Antes');
        await resumeSubmit();
        return issued;
      }),
    );
    expect((await waitForDocumentStatus(e, s.key, inv.id, ['aceptada', 'rechazada'])).status).toBe(
      'aceptada',
    );
    const xml = await storedSignedXml(e.db, inv.id);
    expect(xml).toContain('<Nombre>Elena Después Quesada</Nombre>');
    expect(xml).not.toContain('Elena Antes');
    expect((await emailOf(inv.clave, 1)).to).toEqual(['elena@despues.example']);
  }, 90_000);
});
