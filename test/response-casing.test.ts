// One casing in everything the API says: every property of every response schema in /openapi.json
// (and every key of the documented response examples) is snake_case, and so are the keys of real
// answers (an invoice issued in request shape B, its preview, timeline and month's report, a credit
// note, the events API) and of the webhook payloads a receiver gets, including an event recorded
// before the invoice's `totals` were shown in snake_case (its data is shown in today's names).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatId, parseId } from '../domain/ids.ts';
import { recordEvents } from '../db/queries/events.ts';
import { api, seedIssuer, startE2E, waitForDocumentStatus, type E2E } from './helpers/e2e.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

type Json = Record<string, any>;

/** snake_case: lower-case letters and digits, words joined by one underscore. */
const SNAKE = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

/**
 * Response properties allowed another casing, each with its reason. None: a name added here must
 * be documented where the response schema describes it.
 */
const EXCEPTIONS = new Set<string>();

/** Keys whose values are the caller's own data (metadata they gave), not names of the API. */
const CALLER_MAPS = new Set(['metadata']);

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let receiver: Receiver;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

/** Every key of `value` (nested objects and arrays) that is not snake_case, with its path. */
function badKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => badKeys(v, `${path}/${i}`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value as Json).flatMap(([k, v]) => [
    ...(SNAKE.test(k) || EXCEPTIONS.has(k) ? [] : [`${path}/${k}`]),
    ...(CALLER_MAPS.has(k) ? [] : badKeys(v, `${path}/${k}`)),
  ]);
}

/**
 * The property names of a JSON schema that are not snake_case, following $refs into the
 * document's components (each component once), with where they were found.
 */
function badProperties(doc: Json, schema: unknown, where: string, seen: Set<string>): string[] {
  if (Array.isArray(schema)) return schema.flatMap((x) => badProperties(doc, x, where, seen));
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Json;
  if (typeof node.$ref === 'string') {
    if (seen.has(node.$ref)) return [];
    seen.add(node.$ref);
    const [, , kind, name] = node.$ref.split('/');
    return badProperties(doc, doc.components[kind!][name!], `#/components/${kind}/${name}`, seen);
  }
  const own = Object.keys((node.properties as Json | undefined) ?? {})
    .filter((k) => !SNAKE.test(k) && !EXCEPTIONS.has(k))
    .map((k) => `${where}: ${k}`);
  const nested = Object.entries(node)
    .filter(([k]) => !['example', 'examples', 'default', 'const', 'enum', 'description'].includes(k))
    .flatMap(([k, v]) =>
      k === 'properties'
        ? Object.entries(v as Json).flatMap(([p, x]) => badProperties(doc, x, `${where}.${p}`, seen))
        : badProperties(doc, v, where, seen),
    );
  return [...own, ...nested];
}

/** The documented response examples (whole bodies) of an operation's answers. */
function responseExamples(doc: Json, response: Json): unknown[] {
  const r =
    typeof response.$ref === 'string' ? doc.components.responses[response.$ref.split('/').pop()!] : response;
  return Object.values((r?.content as Json | undefined) ?? {}).flatMap((media: Json) => [
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values((media.examples as Json | undefined) ?? {}).map((x: Json) => x.value),
    ...(Array.isArray(media.schema?.examples) ? media.schema.examples : []),
  ]);
}

describe('the OpenAPI document', () => {
  it('names every property of every response schema, and every key of their examples, in snake_case', async () => {
    const doc = (await (await fetch(`${e.apiUrl}/openapi.json`)).json()) as Json;
    const bad: string[] = [];
    let schemas = 0;
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(item as Json))
        for (const [status, response] of Object.entries(((op as Json).responses as Json) ?? {})) {
          const where = `${method.toUpperCase()} ${path} ${status}`;
          schemas += 1;
          bad.push(...badProperties(doc, response, where, new Set()));
          for (const example of responseExamples(doc, response as Json))
            bad.push(...badKeys(example).map((k) => `${where} example: ${k}`));
        }
    expect(schemas).toBeGreaterThan(100);
    expect(bad).toEqual([]);
  });

  it('the walk finds a camelCase property where there is one', () => {
    const doc = {
      components: { schemas: { Summary: { type: 'object', properties: { totalVenta: {} } } } },
    };
    const schema = {
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Summary' } } },
    };
    expect(badProperties(doc, schema, 'GET /x 200', new Set())).toEqual([
      '#/components/schemas/Summary: totalVenta',
    ]);
    expect(badKeys({ totals: [{ ivaRateCode: '08' }], metadata: { pedidoId: '1' } })).toEqual([
      '/totals/0/ivaRateCode',
    ]);
  });
});

describe('real answers and webhook payloads', () => {
  it('an invoice (request shape B), its preview, a credit note and their events are snake_case throughout', async () => {
    const endpoint = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, {
      url: receiver.url,
      events: ['invoice.created', 'invoice.accepted', 'credit_note.created'],
    });
    expect(endpoint.status).toBe(201);
    receiver.secrets.push(endpoint.json.secret);

    // Shape B (camelCase input) is accepted as before; the answer is snake_case.
    const body = {
      clientId: s.client.uuid,
      exchangeRate: '1',
      paymentMethod: 'tarjeta',
      otherCharges: [{ code: '06' }],
      metadata: { pedidoInterno: 'A-7' },
      lines: [
        { serviceId: s.laptop.uuid, qty: 1, price: '450000.00', discount: { amount: '5000' } },
        { serviceId: s.exempt.uuid, qty: 2 },
      ],
    };
    const preview = await api(e, 'POST', '/api/v1/invoices/preview', s.key, body);
    expect(preview.status).toBe(200);
    expect(badKeys(preview.json)).toEqual([]);

    const created = await api(e, 'POST', '/api/v1/invoices', s.key, body);
    expect(created.status).toBe(201);
    expect(badKeys(created.json)).toEqual([]);
    expect(created.json.metadata).toEqual({ pedidoInterno: 'A-7' });
    const totals = created.json.totals;
    expect(totals).toMatchObject({
      currency: 'CRC',
      exchange_rate: '1.00000',
      total_merc_exonerada: null,
      total_descuentos: '5000.00000',
      total_desglose_impuesto: expect.arrayContaining([
        { code: '01', iva_rate_code: '08', amount: '57850.00000' },
      ]),
    });
    expect(totals.total_comprobante).toBe(`${created.json.total}000`);
    expect(Number(totals.total_otros_cargos)).toBeGreaterThan(0);
    expect(totals).not.toHaveProperty('medio_pago');
    expect(preview.json.totals).toEqual(totals);

    const read = await waitForDocumentStatus(e, s.key, created.json.id, ['aceptada']);
    expect(badKeys(read)).toEqual([]);
    expect(read.totals).toEqual(totals);
    const list = await api(e, 'GET', '/api/v1/invoices?limit=5', s.key);
    expect(badKeys(list.json)).toEqual([]);
    const timeline = await api(e, 'GET', `/api/v1/invoices/${created.json.id}/timeline`, s.key);
    expect(timeline.json.data.length).toBeGreaterThanOrEqual(4);
    expect(badKeys(timeline.json)).toEqual([]);
    // The month in Costa Rica time (UTC-6), the report's own.
    const month = new Date(Date.parse(read.issue_date) - 6 * 3600_000).toISOString().slice(0, 7);
    const report = await api(e, 'GET', `/api/v1/reports/monthly?month=${month}`, s.key);
    expect(report.status).toBe(200);
    expect(badKeys(report.json)).toEqual([]);

    const note = await api(e, 'POST', `/api/v1/invoices/${created.json.id}/credit_notes`, s.key, {
      reason: 'Devolución de una unidad',
      lines: [{ line: 2, qty: 1 }],
    });
    expect(note.status).toBe(201);
    expect(badKeys(note.json)).toEqual([]);
    expect(note.json.totals.total_comprobante).toMatch(/^\d+\.\d{5}$/);

    await waitFor(
      () =>
        ['invoice.created', 'invoice.accepted', 'credit_note.created'].every(
          (kind) => receiver.ofKind(kind).length > 0,
        ),
      20_000,
      100,
      'the three webhook deliveries',
    );
    for (const r of receiver.received) {
      expect(r.verified.ok).toBe(true);
      expect(badKeys(JSON.parse(r.raw)), r.body.event).toEqual([]);
    }
    const accepted = receiver.ofKind('invoice.accepted')[0]!.body.data;
    expect(accepted.totals).toEqual(totals);

    const events = await api(e, 'GET', '/api/v1/events?limit=100', s.key);
    expect(events.json.data.length).toBeGreaterThanOrEqual(3);
    expect(badKeys(events.json)).toEqual([]);
  });

  it('an event recorded with the summary under its domain names is shown and delivered in snake_case', async () => {
    const inv = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: formatId('client', s.client.id),
      lines: [{ service_id: formatId('service', s.consulting.id), qty: 3 }],
      send: false,
    });
    expect(inv.status).toBe(201);
    // The invoice object as an earlier version wrote it into the event: totals = the stored summary.
    const row = await e
      .db('invoices')
      .where({ id: parseId('invoice', inv.json.id) })
      .first('summary');
    const legacy = { ...inv.json, totals: row.summary.summary };
    expect(legacy.totals.totalComprobante).toBe(inv.json.totals.total_comprobante);
    const [eventId] = await e.db.transaction((trx) =>
      recordEvents(trx, [
        { companyId: s.company.id, livemode: false, type: 'invoice.created', data: legacy },
      ]),
    );
    const evt = formatId('event', eventId!);

    const shown = await api(e, 'GET', `/api/v1/events/${evt}`, s.key);
    expect(shown.status).toBe(200);
    expect(badKeys(shown.json)).toEqual([]);
    expect(shown.json.data.totals).toEqual(inv.json.totals);

    await waitFor(
      () => receiver.received.some((r) => r.body.id === evt),
      20_000,
      100,
      'the delivery of the earlier event',
    );
    const delivered = receiver.received.find((r) => r.body.id === evt)!;
    expect(badKeys(JSON.parse(delivered.raw))).toEqual([]);
    expect(delivered.body.data.totals).toEqual(inv.json.totals);
  });
});
