// GET /api/v1/invoices answers a page whose rows have not changed from the invoice objects it
// kept rendered (api/rendered-invoices.ts): one light statement, the same bytes; any change to a
// row (through the API or straight in the database, updated_at untouched) is shown at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listJson, RenderedInvoices } from '../api/rendered-invoices.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
const ids: string[] = [];

beforeAll(async () => {
  e = await startE2E({ workers: false });
  s = await seedIssuer(e.db, e.config);
  for (let i = 0; i < 5; i++) {
    const r = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${pad(s.client.id)}`,
      lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: i + 1 }],
      metadata: { n: String(i) },
    });
    expect(r.status, r.text).toBe(201);
    ids.push(r.json.id);
  }
});
afterAll(async () => {
  await e.close();
});

/** The statements the API runs on its connection while `f` runs. */
async function statementsOf<T>(f: () => Promise<T>): Promise<{ value: T; sql: string[] }> {
  const sql: string[] = [];
  const record = (q: { sql: string }) => {
    if (/invoices/.test(q.sql)) sql.push(q.sql);
  };
  e.db.on('query', record);
  try {
    return { value: await f(), sql };
  } finally {
    e.db.off('query', record);
  }
}

const list = (query = 'limit=3', headers: Record<string, string> = {}) =>
  api(e, 'GET', `/api/v1/invoices?${query}`, s.key, undefined, headers);

describe('the invoice list kept rendered', () => {
  it('answers an unchanged page again with the same bytes from one light statement', async () => {
    const first = await statementsOf(() => list('limit=3&status=pendiente'));
    expect(first.value.status).toBe(200);
    expect(first.value.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.value.json.data.map((x: { id: string }) => x.id)).toEqual(ids.slice(2).reverse());
    expect(first.value.json.has_more).toBe(true);
    // Cold: the versions, then the page whole.
    expect(first.sql).toHaveLength(2);
    expect(first.sql[1]).toMatch(/"lines"/);

    const again = await statementsOf(() => list('limit=3&status=pendiente'));
    expect(again.value.text).toBe(first.value.text);
    expect(again.sql).toHaveLength(1);
    expect(again.sql[0]).toMatch(/^select "id", xmin::text as version from "invoices"/);
  });

  it('each item is the invoice object GET /api/v1/invoices/{id} answers', async () => {
    const page = await list('limit=5');
    expect(page.json.data).toHaveLength(5);
    for (const item of page.json.data) {
      const one = await api(e, 'GET', `/api/v1/invoices/${item.id}`, s.key);
      expect(item).toEqual(one.json);
    }
  });

  it('shows a change made through the API at once', async () => {
    const draft = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${pad(s.client.id)}`,
      lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
      send: false,
    });
    expect(draft.status, draft.text).toBe(201);
    const before = await list('limit=1');
    expect(before.json.data[0]).toMatchObject({ id: draft.json.id, status: 'borrador', consecutivo: null });
    expect((await list('limit=1')).text).toBe(before.text);
    const sent = await api(e, 'POST', `/api/v1/invoices/${draft.json.id}/send`, s.key);
    expect(sent.status, sent.text).toBe(200);
    const after = await list('limit=1');
    expect(after.json.data[0]).toMatchObject({ id: draft.json.id, status: 'pendiente' });
    expect(after.json.data[0].consecutivo).toBe(sent.json.consecutivo);
  });

  it('shows a change made straight in the database, updated_at untouched, at once', async () => {
    const target = ids[1]!;
    const before = await list('limit=10');
    const was = before.json.data.find((x: { id: string }) => x.id === target);
    await e.db.raw(`update invoices set external_id = 'cambiado-en-la-base' where id = ?`, [
      Number(target.slice(4)),
    ]);
    const after = await list('limit=10');
    const item = after.json.data.find((x: { id: string }) => x.id === target);
    expect(item.external_id).toBe('cambiado-en-la-base');
    expect(item.updated_at).toBe(was.updated_at);
  });

  it('keeps each language apart (the rejection reason is written in both)', async () => {
    const target = Number(ids[0]!.slice(4));
    await e
      .db('invoices')
      .where({ id: target })
      .update({
        status: 'rechazada',
        rejectionReason: {
          summary: { es: 'La clave no corresponde', en: 'The clave does not match' },
          items: [],
          raw: 'x',
        },
      });
    const es = await list('limit=5&status=rechazada', { 'accept-language': 'es-CR' });
    const en = await list('limit=5&status=rechazada', { 'accept-language': 'en' });
    const esAgain = await list('limit=5&status=rechazada', { 'accept-language': 'es-CR' });
    expect(es.json.data[0].rejection_reason.message).toBe('La clave no corresponde');
    expect(en.json.data[0].rejection_reason.message).toBe('The clave does not match');
    expect(esAgain.text).toBe(es.text);
  });

  it('an empty page and a page past the end are answered as lists, from one statement', async () => {
    const { value: none, sql } = await statementsOf(() => list('limit=5&status=aceptada'));
    expect(sql).toHaveLength(1);
    expect(none.json).toEqual({ object: 'list', data: [], has_more: false });
    const past = await list(`limit=5&starting_after=${ids[0]}`);
    expect(past.json).toEqual({ object: 'list', data: [], has_more: false });
  });
});

describe('RenderedInvoices', () => {
  it('answers a page only when every row of it is kept, at the version asked', () => {
    const r = new RenderedInvoices();
    r.keep({ id: 1, version: '10' }, 'es', '{"id":1}');
    r.keep({ id: 2, version: '11' }, 'es', '{"id":2}');
    const both = [
      { id: 2, version: '11' },
      { id: 1, version: '10' },
    ];
    expect(r.page(both, 'es')?.map(String)).toEqual(['{"id":2}', '{"id":1}']);
    expect(r.page([{ id: 1, version: '12' }], 'es')).toBeNull();
    expect(r.page([{ id: 1, version: '10' }], 'en')).toBeNull();
    expect(
      r.page(
        [
          { id: 1, version: '10' },
          { id: 3, version: '1' },
        ],
        'es',
      ),
    ).toBeNull();
    expect(r.page([], 'es')).toEqual([]);
  });

  it('keeps each JSON in a buffer of its own size, not a slice of a shared pool', () => {
    const r = new RenderedInvoices();
    const json = JSON.stringify({ description: 'Consultoría en sistemas ₡' });
    const kept = r.keep({ id: 1, version: '1' }, 'es', json);
    expect(String(kept)).toBe(json);
    expect(kept.byteOffset).toBe(0);
    expect(kept.buffer.byteLength).toBe(Buffer.byteLength(json));
  });

  it('holds at most its size, the least recently used leaving first', () => {
    const r = new RenderedInvoices(100);
    const json = 'x'.repeat(40);
    r.keep({ id: 1, version: '1' }, 'es', json);
    r.keep({ id: 2, version: '1' }, 'es', json);
    expect(r.page([{ id: 1, version: '1' }], 'es')).not.toBeNull();
    r.keep({ id: 3, version: '1' }, 'es', json);
    expect(r.size).toBe(2);
    expect(r.page([{ id: 2, version: '1' }], 'es')).toBeNull();
    expect(r.page([{ id: 1, version: '1' }], 'es')).not.toBeNull();
  });

  it('writes a list in the order of the list schema', () => {
    const item = (json: string) => Buffer.from(json);
    expect(JSON.parse(String(listJson([item('{"id":1}'), item('{"id":2}')], true)))).toEqual({
      object: 'list',
      data: [{ id: 1 }, { id: 2 }],
      has_more: true,
    });
    expect(String(listJson([], false))).toBe('{"object":"list","data":[],"has_more":false}');
    expect(String(listJson([item('{"n":"ñ ₡"}')], false))).toBe(
      '{"object":"list","data":[{"n":"ñ ₡"}],"has_more":false}',
    );
  });
});
