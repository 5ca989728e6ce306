// The floor: the CPU one accepted invoice cannot avoid in this design, measured in the same run
// with raw programs beside the service, in CPU ms per invoice, at the sizes of a real accepted
// invoice of the run (read from the scratch database after end to end):
//
//   sign   one RSA-2048 signature and the SHA-256 digests of a XAdES-EPES signature (floor-sign.ts)
//   http   create, reception POST, status GET and webhook POST over loopback (floor-http.ts)
//   rows   the invoice's rows and state changes as batched raw SQL (floor-rows.ts)
//
// The floor is the sum of the three; the service's CPU per accepted invoice is judged against it.
import { randomBytes } from 'node:crypto';
import { callbackQuery } from '../../jobs/invoice-flow/callback-token.ts';
import type { BenchContext } from './context.ts';
import { measureHttpFloor, type Exchange, type HttpFloor } from './floor-http.ts';
import { measureRowsFloor, type RowsFloor } from './floor-rows.ts';
import { measureSignFloor, measureSignFloorPaced, signParts, type SignFloor } from './floor-sign.ts';
import { round } from './http-load.ts';
import { EMISOR_ID } from './issuer.ts';

type Parts = { sign: number; http: number; rows: number };

/** The floor's programs one invoice at a time, `rate` a second (floor-paced.ts). */
export interface LightFloor {
  rate: number;
  invoices: number;
  cpu_ms_per_invoice: number;
  parts: Parts;
  /** cpu_ms_per_invoice ÷ the floor's (back to back). */
  times_the_floor: number;
}

export interface Floor {
  cpu_ms_per_invoice: number;
  parts: Parts;
  light: LightFloor | null;
  sample_invoice_id: number;
  sign: SignFloor;
  http: HttpFloor;
  rows: RowsFloor;
  note: string;
}

export const FLOOR_NOTE =
  'floor = sign (this process) + http (client and server processes) + rows (client, Postgres backend, and the server-wide WAL writer, checkpointer and background writer)';

interface Document {
  id: number;
  clave: string;
  signedXml: Buffer;
  responseXml: string;
}

async function acceptedDocument(ctx: BenchContext): Promise<Document> {
  const row = await ctx
    .db('invoices as i')
    .join('invoice_documents as d', 'd.invoice_id', 'i.id')
    .where({ 'i.status': 'aceptada', 'i.company_id': ctx.issuer.companyId })
    .whereNotNull('d.response_xml')
    .orderBy('i.id', 'desc')
    .first('i.id', 'i.clave', 'd.signed_xml', 'd.response_xml');
  if (!row) throw new Error('the floor needs an accepted invoice of this run');
  return { id: Number(row.id), clave: row.clave, signedXml: row.signedXml, responseXml: row.responseXml };
}

/** The four exchanges of one invoice, at this run's sizes. */
function exchanges(
  ctx: BenchContext,
  doc: Document,
  create: { request: number; response: number },
): Exchange[] {
  const reception = JSON.stringify({
    clave: doc.clave,
    fecha: '2026-11-27T10:00:00-06:00',
    emisor: { tipoIdentificacion: '02', numeroIdentificacion: EMISOR_ID },
    receptor: { tipoIdentificacion: '01', numeroIdentificacion: '109870654' },
    callbackUrl: `${ctx.service.apiUrl}/hacienda/callback?${callbackQuery(randomBytes(32), doc.clave)}`,
    comprobanteXml: doc.signedXml.toString('base64'),
  });
  const status = JSON.stringify({
    clave: doc.clave,
    fecha: '2026-11-27T10:00:00-06:00',
    'ind-estado': 'aceptado',
    'respuesta-xml': Buffer.from(doc.responseXml, 'utf8').toString('base64'),
  });
  const bytes = (s: string) => Buffer.byteLength(s);
  return [
    {
      name: 'create',
      method: 'POST',
      requestBytes: create.request,
      status: 201,
      responseBytes: create.response,
    },
    { name: 'reception', method: 'POST', requestBytes: bytes(reception), status: 202, responseBytes: 0 },
    { name: 'status', method: 'GET', requestBytes: 0, status: 200, responseBytes: bytes(status) },
    {
      name: 'webhook',
      method: 'POST',
      requestBytes: ctx.receiver.acceptedBodyBytes,
      status: 200,
      responseBytes: 2,
    },
  ];
}

/** The three parts again, one invoice at a time at the latency stage's rate. */
async function measureLightFloor(
  ctx: BenchContext,
  doc: Document,
  x: Exchange[],
  floor: number,
): Promise<LightFloor> {
  const { latencyRate: rate, lightFloorInvoices: n } = ctx.params;
  const key = ctx.issuer.material.privateKeyPkcs8;
  const parts = {
    sign: await measureSignFloorPaced(signParts(doc.signedXml.toString('utf8')), key, n, rate),
    http: (await measureHttpFloor(x, n, 1, rate)).cpu_ms_per_invoice,
    rows: (await measureRowsFloor(ctx.databaseUrl, doc.id, n, 1, rate)).cpu_ms_per_invoice,
  };
  const total = round(parts.sign + parts.http + parts.rows, 3);
  return { rate, invoices: n, cpu_ms_per_invoice: total, parts, times_the_floor: round(total / floor, 2) };
}

/** Measures the three parts one after the other, with the service idle. */
export async function measureFloor(
  ctx: BenchContext,
  create: { request: number; response: number },
): Promise<Floor> {
  const p = ctx.params;
  const doc = await acceptedDocument(ctx);
  const sign = measureSignFloor(
    signParts(doc.signedXml.toString('utf8')),
    ctx.issuer.material.privateKeyPkcs8,
    p.rsaSeconds,
  );
  const x = exchanges(ctx, doc, create);
  const http = await measureHttpFloor(x, p.floorInvoices);
  const rows = await measureRowsFloor(ctx.databaseUrl, doc.id, p.floorInvoices);
  const parts = {
    sign: sign.cpu_ms_per_invoice,
    http: http.cpu_ms_per_invoice,
    rows: rows.cpu_ms_per_invoice,
  };
  const total = round(parts.sign + parts.http + parts.rows, 3);
  return {
    cpu_ms_per_invoice: total,
    parts,
    light: p.lightFloorInvoices > 0 ? await measureLightFloor(ctx, doc, x, total) : null,
    sample_invoice_id: doc.id,
    sign,
    http,
    rows,
    note: FLOOR_NOTE,
  };
}

/** The floor and its parts, for the console. */
export function renderFloor(f: Floor): string {
  const x = f.http.exchanges
    .map((e) => `${e.name} ${e.method} ${e.requestBytes} B → ${e.status} ${e.responseBytes} B`)
    .join('; ');
  const b = f.sign.bytes;
  const r = f.rows;
  return [
    `Floor: ${f.cpu_ms_per_invoice} CPU ms per accepted invoice (${FLOOR_NOTE})`,
    `  sign  ${f.parts.sign} ms: one RSA-2048 signature of the SignedInfo (${b.signedInfo} B) and SHA-256 of the document (${b.document} B), KeyInfo (${b.keyInfo} B), SignedProperties (${b.signedProperties} B), certificate (${b.certificate} B)`,
    `  http  ${f.parts.http} ms (client ${f.http.client_cpu_ms_per_invoice}, server ${f.http.server_cpu_ms_per_invoice}; ${f.http.connections} keep-alive connections): ${x}`,
    `  rows  ${f.parts.rows} ms (client ${r.client_cpu_ms_per_invoice}, backend ${r.backend_cpu_ms_per_invoice}, WAL writer/checkpointer/bgwriter ${r.server_processes_cpu_ms_per_invoice}; ${r.invoices_per_transaction} invoices per transaction, ${r.transactions_per_batch} transactions per batch): rows ${JSON.stringify(r.rows_per_invoice)}, bytes ${JSON.stringify(r.bytes_per_invoice)}, updates ${JSON.stringify(r.updates_per_invoice)}`,
    ...(f.light
      ? [
          `  at ${f.light.rate} invoices/s, one at a time (${f.light.invoices} invoices each): ${f.light.cpu_ms_per_invoice} ms = ${f.light.times_the_floor} × the floor (sign ${f.light.parts.sign}, http ${f.light.parts.http}, rows ${f.light.parts.rows}: one invoice's rows to a transaction)`,
        ]
      : []),
  ].join('\n');
}
