// End to end through real HTTP: the production client submits signed Facturas to the simulator,
// which checks them as Hacienda does and answers with a signed MensajeHacienda. Each rejection kind
// is checked down to Hacienda's code/text and the readable reason the service would show.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMensajeHacienda } from '../hacienda/mensaje-hacienda.ts';
import { explainMensajeHacienda } from '../hacienda/rejection-reasons.ts';
import { HACIENDA_IDENTITY } from '../simulator/app.ts';
import { certificateBelongsTo } from '../hacienda/signing-key.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { validateXml } from './helpers/xsd.ts';
import {
  buildFactura,
  clientFor,
  EMISOR,
  OTHER_TAXPAYER,
  pollUntilTerminal,
  replaceElementText,
  signerFor,
  startSimulator,
  submission,
  XSD_DIR,
} from './helpers/hacienda-fixtures.ts';
import type { BuiltFactura, ClientSetup, RunningSimulator } from './helpers/hacienda-fixtures.ts';
import { waitFor } from './helpers/wait.ts';

let sim: RunningSimulator;
let c: ClientSetup;
let nextNumber = 1;

beforeAll(async () => {
  sim = await startSimulator({ schemaDir: XSD_DIR });
  c = clientFor(sim);
});
afterAll(async () => {
  await sim.app.close();
});
beforeEach(() => {
  sim.app.simulator.configure({
    processingDelayMs: 0,
    forcedRejectionRate: 0,
    errorStateRate: 0,
    lostDocumentRate: 0,
  });
});

const factura = (opts: Partial<Parameters<typeof buildFactura>[0]> = {}) =>
  buildFactura({ number: nextNumber++, ...opts });

type Taxpayer = { idType: string; idNumber: string; name: string };

async function sendSigned(built: BuiltFactura, xml = built.xml, signer: Taxpayer = EMISOR) {
  const signed = await (await signerFor(signer)).sign(xml);
  await c.client.submit(submission(built, signed));
  return pollUntilTerminal(c.client, built.clave);
}

async function rejection(built: BuiltFactura, xml?: string, signer?: Taxpayer) {
  const s = await sendSigned(built, xml, signer);
  expect(s.found && s.state).toBe('rechazado');
  const responseXml = s.found ? (s.responseXml ?? '') : '';
  // Rejections carry quotes, brackets and accents in DetalleMensaje: still a valid MensajeHacienda.
  expect((await validateXml('MensajeHacienda', responseXml, { schemaDir: XSD_DIR })).errors).toEqual([]);
  return { mensaje: parseMensajeHacienda(responseXml), reason: explainMensajeHacienda(responseXml) };
}

describe('acceptance', () => {
  it('accepts a valid signed Factura and answers with a signed, schema-valid MensajeHacienda', async () => {
    const built = factura();
    const s = await sendSigned(built);
    expect(s).toMatchObject({ found: true, state: 'aceptado', terminal: true, clave: built.clave });
    const xml = s.found ? (s.responseXml ?? '') : '';
    const m = parseMensajeHacienda(xml);
    expect(m).toMatchObject({
      clave: built.clave,
      accepted: true,
      mensaje: 1,
      estadoMensaje: 'Aceptado',
      nombreEmisor: EMISOR.name,
      numeroCedulaEmisor: EMISOR.idNumber,
      numeroCedulaReceptor: '109870654',
      signed: true,
    });
    expect(m.detalle.sandbox).toBe(true);
    expect(m.detalle.rows).toEqual([]);
    expect(m.totalFactura).toMatch(/^\d+\.\d{5}$/);

    const schema = await validateXml('MensajeHacienda', xml, { schemaDir: XSD_DIR });
    expect(schema.errors).toEqual([]);
    const signature = await verifyXadesSignature(xml);
    expect(signature.errors).toEqual([]);
    expect(certificateBelongsTo(signature.signingCertificate!, HACIENDA_IDENTITY)).toBe(true);
  });

  it('moves recibido → procesando → aceptado over the processing delay', async () => {
    sim.app.simulator.configure({ processingDelayMs: 600 });
    const built = factura();
    const signed = await (await signerFor(EMISOR)).sign(built.xml);
    const res = await c.client.submit(submission(built, signed));
    expect(res).toMatchObject({ outcome: 'received', duplicate: false, status: 202 });
    expect(res.location).toBe(`${sim.sandbox.apiUrl}/recepcion/${built.clave}`);
    const seen = new Set<string>();
    await waitFor(
      async () => {
        const s = await c.client.status(built.clave);
        if (s.found) seen.add(s.state);
        return s.found && s.terminal;
      },
      5_000,
      20,
      'a terminal state',
    );
    expect([...seen]).toEqual(['recibido', 'procesando', 'aceptado']);
  });

  it('treats a repeated submission as received, and keeps one accepted document', async () => {
    const built = factura();
    const signed = await (await signerFor(EMISOR)).sign(built.xml);
    const before = sim.app.simulator.counters();
    const first = await c.client.submit(submission(built, signed));
    const second = await c.client.submit(submission(built, signed));
    expect(first.duplicate).toBe(false);
    expect(second).toMatchObject({ outcome: 'received', duplicate: true, status: 400 });
    expect(second.errorCause).toBe(`El comprobante [${built.clave}] ya fue recibido anteriormente`);
    const s = await pollUntilTerminal(c.client, built.clave);
    expect(s.found && s.state).toBe('aceptado');
    const after = sim.app.simulator.counters();
    expect(after.received - before.received).toBe(1);
    expect(after.duplicates - before.duplicates).toBe(1);
    expect(after.accepted - before.accepted).toBe(1);
  });

  it('POSTs the GET body to the callback URL when the document is done', async () => {
    const bodies: unknown[] = [];
    const receiver = createServer((req, res) => {
      let data = '';
      req.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      req.on('end', () => {
        bodies.push(JSON.parse(data));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hacienda/callback/tok`;
      const built = factura();
      const signed = await (await signerFor(EMISOR)).sign(built.xml);
      await c.client.submit(submission(built, signed, { callbackUrl }));
      await waitFor(() => bodies.length === 1, 10_000, 20, 'the callback');
      const s = await pollUntilTerminal(c.client, built.clave);
      const body = bodies[0] as Record<string, string>;
      expect(body).toMatchObject({ clave: built.clave, 'ind-estado': 'aceptado', callbackUrl });
      expect(Buffer.from(body['respuesta-xml'] ?? '', 'base64').toString('utf8')).toBe(
        s.found ? s.responseXml : '',
      );
      expect(sim.app.simulator.document(built.clave)?.callback).toBe('delivered');
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });
});

describe('rejections, with Hacienda codes and readable reasons', () => {
  it('a document changed after signing', async () => {
    const built = factura();
    const signed = await (await signerFor(EMISOR)).sign(built.xml);
    const tampered = replaceElementText(signed, 'Detalle', 'Consultoría en redes');
    await c.client.submit(submission(built, tampered));
    const s = await pollUntilTerminal(c.client, built.clave);
    const xml = s.found ? (s.responseXml ?? '') : '';
    const m = parseMensajeHacienda(xml);
    expect(m.mensaje).toBe(3);
    expect(m.detalle.hasTable).toBe(false);
    expect(m.detalle.rows.map((r) => r.message)).toEqual([
      'La firma del comprobante electrónico no es válida (El XML fue modificado luego de haber sido firmado).',
    ]);
    const r = explainMensajeHacienda(xml);
    expect(r.items[0]?.kind).toBe('signature-modified');
    expect(r.summary.en).toMatch(/changed after it was signed/);
  });

  it('a broken signature value', async () => {
    const built = factura();
    const signed = await (await signerFor(EMISOR)).sign(built.xml);
    const broken = signed.replace(
      /(<ds:SignatureValue[^>]*>)(.)/,
      (_m, tag: string, ch: string) => tag + (ch === 'A' ? 'B' : 'A'),
    );
    await c.client.submit(submission(built, broken));
    const s = await pollUntilTerminal(c.client, built.clave);
    const r = explainMensajeHacienda(s.found ? (s.responseXml ?? '') : '');
    expect(r.items.map((i) => [i.code, i.message, i.kind])).toEqual([
      [null, 'La firma del comprobante electrónico no es válida', 'signature-invalid'],
    ]);
  });

  it('a signer who is not the emisor', async () => {
    const { mensaje, reason } = await rejection(factura(), undefined, OTHER_TAXPAYER);
    expect(mensaje.detalle.rows.map((r) => r.message)).toEqual([
      'El contribuyente que firma la factura electronica no es el emisor',
    ]);
    expect(reason.items[0]?.kind).toBe('signer-not-emisor');
    expect(reason.items[0]?.fix.en).toMatch(/emisor's own cryptographic key/);
  });

  it('a clave that does not match its consecutivo', async () => {
    const built = factura();
    const other = buildFactura({ number: 999_999, issuedAt: built.issuedAt });
    // The clave of another consecutivo, in the XML and in the request alike.
    const xml = replaceElementText(built.xml, 'Clave', other.clave);
    const { mensaje, reason } = await rejection({ ...built, clave: other.clave }, xml);
    expect(mensaje.detalle.rows).toEqual([
      {
        code: -1,
        message: 'La clave del comprobante no corresponde con el número consecutivo del comprobante.',
        line: 0,
        column: 0,
      },
    ]);
    expect(reason.items[0]?.kind).toBe('clave-mismatch');
  });

  it('a document type that is not the one in the consecutivo', async () => {
    const built = factura();
    const teConsecutivo = built.consecutivo.slice(0, 8) + '04' + built.consecutivo.slice(10);
    const clave = built.clave.slice(0, 21) + teConsecutivo + built.clave.slice(41);
    const xml = replaceElementText(
      replaceElementText(built.xml, 'NumeroConsecutivo', teConsecutivo),
      'Clave',
      clave,
    );
    const { mensaje, reason } = await rejection({ ...built, clave }, xml);
    expect(mensaje.detalle.rows.map((r) => [r.code, r.message])).toEqual([
      [-1, 'El tipo de documento no corresponde.'],
    ]);
    expect(reason.items[0]?.kind).toBe('tipo-documento');
  });

  it('wrong totals: a line amount and the goods/services split', async () => {
    const built = factura();
    let xml = replaceElementText(built.xml, 'MontoTotal', '100000.00001');
    // Move the services total into the goods bucket.
    const serv = /<TotalServGravados>([^<]*)</.exec(xml)?.[1] ?? '';
    const merc = /<TotalMercanciasGravadas>([^<]*)</.exec(xml)?.[1] ?? '';
    xml = replaceElementText(
      replaceElementText(xml, 'TotalServGravados', merc),
      'TotalMercanciasGravadas',
      serv,
    );
    const { mensaje, reason } = await rejection(built, xml);
    const rows = mensaje.detalle.rows;
    // Hacienda's codes per total: -44 a line's SubTotal, -111 the goods/services totals, -51 TotalVenta;
    // MontoTotal = Cantidad × PrecioUnitario has no code we know (-1).
    expect(rows.map((r) => r.code)).toEqual([-1, -44, -111, -111, -51]);
    expect(rows.map((r) => r.message)).toEqual(
      expect.arrayContaining([
        'El campo MontoTotal de la línea 1 no coincide con Cantidad × PrecioUnitario: se esperaba 100000.00000 y se recibió 100000.00001.',
        expect.stringMatching(
          /^La suma de los totales de servicios .* no coincide con el total de las líneas de servicios/,
        ),
        expect.stringMatching(/^La suma de los totales de mercancías .* no coincide/),
      ]),
    );
    expect(reason.items.map((i) => i.kind)).toEqual([
      'totales-campo',
      'linea-subtotal',
      'totals',
      'totals',
      'total-venta',
    ]);
    expect(reason.items.map((i) => i.field)).toEqual([
      'MontoTotal',
      'SubTotal',
      'TotalServGravados',
      'TotalMercanciasGravadas',
      'TotalVenta',
    ]);
    expect(reason.items.find((i) => /servicios/.test(i.message))?.fix.en).toMatch(/service or goods/);
  });

  it('a consecutivo already used by another document of the emisor', async () => {
    const first = factura();
    const s1 = await sendSigned(first);
    expect(s1.found && s1.state).toBe('aceptado');
    const again = buildFactura({ number: Number(first.consecutivo.slice(10)), securityCode: '87654321' });
    expect(again.clave).not.toBe(first.clave);
    const { mensaje, reason } = await rejection(again);
    expect(mensaje.detalle.rows).toEqual([
      {
        code: -99,
        message:
          'La numeración consecutiva del comprobante que se esta utilizando para este archivo XML ya existe en nuestras bases de datos.',
        line: 0,
        column: 0,
      },
    ]);
    expect(reason.items[0]?.kind).toBe('duplicate-consecutivo');
  });

  it('a schema error, with fila and columna', async () => {
    const built = factura();
    // CodigoActividadEmisor moved after NumeroConsecutivo: out of XSD order.
    const act = /<CodigoActividadEmisor>[^<]*<\/CodigoActividadEmisor>\n?/.exec(built.xml)?.[0] ?? '';
    const xml = built.xml
      .replace(act, '')
      .replace(/(<NumeroConsecutivo>[^<]*<\/NumeroConsecutivo>\n?)/, `$1${act}`);
    const { mensaje, reason } = await rejection(built, xml);
    const row = mensaje.detalle.rows[0];
    expect(row?.code).toBe(-1);
    expect(row?.message).toMatch(
      /^cvc-complex-type\.2\.4\.a: Invalid content was found starting with element '.*NumeroConsecutivo/,
    );
    expect(row?.line).toBeGreaterThan(1);
    expect(row?.column).toBeGreaterThan(0);
    expect(reason.items[0]?.kind).toBe('xsd-order');
    expect(reason.items[0]?.readable.en).toMatch(
      /^Element NumeroConsecutivo is out of order .*expected CodigoActividadEmisor/,
    );
  });

  it('forced rejections are chosen by clave, the same on every run', async () => {
    sim.app.simulator.configure({ forcedRejectionRate: 0.5 });
    const built = Array.from({ length: 8 }, () => factura());
    const states = await Promise.all(
      built.map(async (b) => ((await sendSigned(b)) as { state: string }).state),
    );
    const again = await Promise.all(
      built.map(async (b) => ((await c.client.status(b.clave)) as { state: string }).state),
    );
    expect(again).toEqual(states);
    expect(states).toContain('rechazado');
    const rejected = built.find((_, i) => states[i] === 'rechazado')!;
    const s = await c.client.status(rejected.clave);
    expect(explainMensajeHacienda(s.found ? (s.responseXml ?? '') : '').items[0]?.kind).toBe('ubicacion');
  });

  it('loses a received document when told to: 202, then 404; the same document sent again is new', async () => {
    sim.app.simulator.configure({ lostDocumentRate: 1 });
    const built = factura();
    const doc = submission(built, await (await signerFor(EMISOR)).sign(built.xml));
    const before = sim.app.simulator.counters();
    expect(await c.client.submit(doc)).toMatchObject({ status: 202, duplicate: false });
    expect(await c.client.status(built.clave)).toMatchObject({ found: false });
    expect(sim.app.simulator.counters()).toMatchObject({
      lost: before.lost + 1,
      received: before.received,
    });
    sim.app.simulator.configure({ lostDocumentRate: 0 });
    expect(await c.client.submit(doc)).toMatchObject({ status: 202, duplicate: false });
    expect(await pollUntilTerminal(c.client, built.clave)).toMatchObject({ found: true, state: 'aceptado' });
    expect(sim.app.simulator.counters()).toMatchObject({
      received: before.received + 1,
      duplicates: before.duplicates,
    });
  });

  it('ends in "error" without respuesta-xml when told to', async () => {
    sim.app.simulator.configure({ errorStateRate: 1 });
    const s = await sendSigned(factura());
    expect(s).toMatchObject({ found: true, state: 'error', terminal: true });
    expect(s.found && s.responseXml).toBeUndefined();
  });
});
