// What a new integrator trips over, each through the real API (a listening server, the workers
// and the Hacienda simulator): empty bodies, replays under Prefer: wait, rate formats, ledger
// centavos, request shapes, client idempotency, webhook wildcards, cash-condition invoices.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { Queue, Worker } from 'bullmq';
import { DEFAULT_JOB_OPTIONS, KEEP_COMPLETED, setCompletedRetention } from '../jobs/job-options.ts';
import { QUEUES } from '../jobs/invoice-flow/queues.ts';
import { recordEvents } from '../db/queries/events.ts';
import type { EventKind } from '../domain/webhook-events.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';
import { startReceiver } from './helpers/webhook-receiver.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const pad = (n: number) => String(n).padStart(12, '0');
let cli: string;
let srv: string;

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  cli = `cli_${pad(s.client.id)}`;
  srv = `srv_${pad(s.consulting.id)}`;
});
afterAll(async () => {
  await e.close();
});

/** A raw request: the body exactly as given (possibly empty), with the headers given. */
async function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${e.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.key}`, ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

describe('an empty body where none is required', () => {
  it('POST …/send with Content-Type: application/json and no body issues the draft', async () => {
    const draft = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli,
      send: false,
      lines: [{ service_id: srv, qty: 1 }],
    });
    expect(draft.status).toBe(201);
    const sent = await raw(
      'POST',
      `/api/v1/invoices/${draft.json.id}/send`,
      { 'content-type': 'application/json' },
      '',
    );
    expect(sent.status).toBe(200);
    expect(sent.json.status).toBe('pendiente');
    expect(sent.json.consecutivo).toMatch(/^\d{20}$/);
  });

  it('an empty JSON body is still refused where a body is required', async () => {
    const res = await raw('POST', '/api/v1/invoices', { 'content-type': 'application/json' }, '');
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('validation_failed');
  });

  it('malformed JSON is still 400 invalid_json', async () => {
    const res = await raw('POST', '/api/v1/invoices', { 'content-type': 'application/json' }, '{');
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_json');
  });
});

describe('tax rates', () => {
  it('tax_breakdown[].rate and lines[].taxes[].rate share one format (two decimals)', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli,
      send: false,
      lines: [
        { service_id: srv, qty: 1 },
        { service_id: `srv_${pad(s.exempt.id)}`, qty: 1 },
      ],
    });
    expect(res.status).toBe(201);
    const lineRates = res.json.lines.flatMap((l: any) => l.taxes.map((t: any) => t.rate));
    const breakdownRates = res.json.tax_breakdown.map((t: any) => t.rate);
    expect(lineRates).toEqual(['13.00', '0.00']);
    expect(breakdownRates).toEqual(['13.00', '0.00']);
    const read = await api(e, 'GET', `/api/v1/invoices/${res.json.id}`, s.key);
    expect(read.json.tax_breakdown.map((t: any) => t.rate)).toEqual(['13.00', '0.00']);
  });
});

describe('webhook endpoints subscribed to every event', () => {
  it('accepts events: ["*"], shows it as such, and delivers every kind, even one added later', async () => {
    const r = await startReceiver();
    try {
      const created = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, {
        url: r.url,
        events: ['*'],
      });
      expect(created.status).toBe(201);
      expect(created.json.events).toEqual(['*']);
      r.secrets.push(created.json.secret);
      const read = await api(e, 'GET', `/api/v1/webhook_endpoints/${created.json.id}`, s.key);
      expect(read.json.events).toEqual(['*']);

      const client = await api(e, 'POST', '/api/v1/clients', s.key, {
        cedula: '2-0900-0900',
        name: 'Cliente Comodín',
      });
      expect(client.status).toBe(201);
      // An event kind this build does not know yet, recorded the way every event is.
      await e.db.transaction((trx) =>
        recordEvents(trx, [
          {
            companyId: s.company.id,
            livemode: false,
            type: 'kind.added_later' as EventKind,
            data: { ok: true },
          },
        ]),
      );
      await waitFor(
        () => r.ofKind('client.created').length === 1 && r.ofKind('kind.added_later').length === 1,
        15_000,
        50,
        'both deliveries',
      );
      expect(r.received.every((x) => x.verified.ok)).toBe(true);
    } finally {
      await r.close();
    }
  });

  it('"*" stands alone, and unknown kinds are still refused', async () => {
    for (const events of [['*', 'invoice.paid'], ['invoice.nope']]) {
      const res = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, {
        url: 'http://127.0.0.1:4999/hook',
        events,
      });
      expect(res.status).toBe(422);
      expect(res.json.errors[0].path).toMatch(/^\/events/);
    }
  });
});

describe('client creation under an Idempotency-Key', () => {
  const client = (extra: Record<string, unknown> = {}) => ({
    cedula: '1-0555-0666',
    name: 'Cliente Reintentado',
    email: 'reintento@example.com',
    ...extra,
  });
  const clientCount = async () => Number((await e.db('clients').count('* as n'))[0]!.n);

  it('a retried create replays the first answer instead of 409 duplicate_client', async () => {
    const before = await clientCount();
    const first = await api(e, 'POST', '/api/v1/clients', s.key, client(), { 'idempotency-key': 'cli-1' });
    expect(first.status).toBe(201);
    const again = await api(e, 'POST', '/api/v1/clients', s.key, client(), { 'idempotency-key': 'cli-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    expect((await clientCount()) - before).toBe(1);
    const created = await e
      .db('events')
      .where({ type: 'client.created' })
      .whereRaw(`data->>'id' = ?`, [first.json.id]);
    expect(created).toHaveLength(1);
  });

  it('another body under the key is 422 idempotency_key_reused and creates nothing', async () => {
    await api(e, 'POST', '/api/v1/clients', s.key, client({ cedula: '1-0555-0777' }), {
      'idempotency-key': 'cli-2',
    });
    const before = await clientCount();
    const other = await api(e, 'POST', '/api/v1/clients', s.key, client({ cedula: '1-0555-0888' }), {
      'idempotency-key': 'cli-2',
    });
    expect(other.status).toBe(422);
    expect(other.json.code).toBe('idempotency_key_reused');
    expect(await clientCount()).toBe(before);
  });

  it('concurrent requests with one key create one client; the others are 409 in use or replays', async () => {
    const before = await clientCount();
    const body = client({ cedula: '1-0555-0999', name: 'Cliente Concurrente' });
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        api(e, 'POST', '/api/v1/clients', s.key, body, { 'idempotency-key': 'cli-3' }),
      ),
    );
    for (const r of results) {
      if (r.status === 409) expect(r.json.code).toBe('idempotency_key_in_use');
      else expect(r.status).toBe(201);
    }
    const ok = results.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((r) => r.json.id)).size).toBe(1);
    expect((await clientCount()) - before).toBe(1);
  });

  it('without a key a repeated create is still 409 duplicate_client', async () => {
    const body = client({ cedula: '1-0555-0444' });
    expect((await api(e, 'POST', '/api/v1/clients', s.key, body)).status).toBe(201);
    const dup = await api(e, 'POST', '/api/v1/clients', s.key, body);
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe('duplicate_client');
  });
});

describe('shape B with the snake_case names README documents', () => {
  const uuidBody = (extra: Record<string, unknown>) => ({
    clientId: s.client.uuid,
    lines: [{ serviceId: s.consulting.uuid, qty: 1, price: '1000.00' }],
    send: false,
    ...extra,
  });

  it('accepts external_id, exchange_rate, payment_method and credit_days in shape B', async () => {
    const res = await api(
      e,
      'POST',
      '/api/v1/invoices',
      s.key,
      uuidBody({
        external_id: 'shape-b-snake-1',
        currency: 'USD',
        exchange_rate: '505.25',
        payment_method: 'transferencia',
        condition: 'credito',
        credit_days: 15,
      }),
    );
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      external_id: 'shape-b-snake-1',
      currency: 'USD',
      exchange_rate: '505.25',
      payment_methods: ['transferencia'],
      credit_days: 15,
    });
  });

  it('accepts the camelCase names in shape A too', async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli,
      lines: [{ service_id: srv, qty: 1 }],
      send: false,
      externalId: 'shape-a-camel-1',
    });
    expect(res.status).toBe(201);
    expect(res.json.external_id).toBe('shape-a-camel-1');
  });

  it('both spellings of one field are refused, naming the field', async () => {
    const res = await api(
      e,
      'POST',
      '/api/v1/invoices',
      s.key,
      uuidBody({ external_id: 'x-1', externalId: 'x-2' }),
    );
    expect(res.status).toBe(422);
    expect(res.json.errors).toContainEqual(
      expect.objectContaining({ path: '/externalId', code: 'conflicting_fields' }),
    );
  });
});

describe('a replayed create under Prefer: wait', () => {
  it('answers the invoice as it is now, waiting like the first request', async () => {
    const body = { client_id: cli, lines: [{ service_id: srv, qty: 2 }], external_id: 'replay-wait-1' };
    const headers = { 'idempotency-key': 'replay-wait-1', prefer: 'wait=10' };
    const first = await api(e, 'POST', '/api/v1/invoices', s.key, body, headers);
    expect(first.status).toBe(201);
    expect(['enviada', 'aceptada']).toContain(first.json.status);

    const replay = await api(e, 'POST', '/api/v1/invoices', s.key, body, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('preference-applied')).toBe('wait=10');
    expect(replay.headers.get('location')).toBe(`/api/v1/invoices/${first.json.id}`);
    expect(replay.json.id).toBe(first.json.id);
    expect(['enviada', 'aceptada']).toContain(replay.json.status);
    expect(replay.json.hacienda.submitted_at).not.toBeNull();

    await waitFor(
      async () =>
        (await api(e, 'GET', `/api/v1/invoices/${first.json.id}`, s.key)).json.status === 'aceptada',
      15_000,
      100,
      'aceptada',
    );
    const later = await api(e, 'POST', '/api/v1/invoices', s.key, body, {
      'idempotency-key': 'replay-wait-1',
    });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.headers.get('preference-applied')).toBeNull();
    expect(later.json.status).toBe('aceptada');
    expect(later.json.hacienda.accepted_at).not.toBeNull();
    expect(later.json.consecutivo).toBe(first.json.consecutivo);
  });
});

describe('the ledger in centavos', () => {
  async function journalOf(invoiceId: string) {
    return e
      .db('journal_entries as j')
      .join('journal_lines as l', 'l.entry_id', 'j.id')
      .join('accounts as a', 'a.id', 'l.account_id')
      .where('j.invoice_id', Number(invoiceId.slice(4)))
      .select('j.id as entry', 'j.kind', 'a.role', 'l.debit', 'l.credit');
  }
  const centavos = (v: string) => new Decimal(v).times(100).isInteger();

  it('books an invoice of 112.99999 and its payment of 113.00 as 113.00, balanced, balances in centavos', async () => {
    const client = await api(e, 'POST', '/api/v1/clients', s.key, {
      cedula: '1-0777-0777',
      name: 'Cliente Centavos',
    });
    expect(client.status).toBe(201);
    // 3 × 33.33333 = 99.99999 + 13 % IVA = 112.99999 (TotalComprobante); the API shows 113.00.
    const inv = await api(
      e,
      'POST',
      '/api/v1/invoices',
      s.key,
      { client_id: client.json.id, condition: 'credito_30', lines: [{ service_id: srv, qty: 3 }] },
      { prefer: 'wait=10' },
    );
    expect(inv.status).toBe(201);
    expect(inv.json.totals.total_comprobante).toBe('112.99999');
    expect(inv.json.total).toBe('113.00');
    await waitFor(async () => (await journalOf(inv.json.id)).some((r) => r.kind === 'invoice'), 15_000);
    const issued = await journalOf(inv.json.id);
    expect(issued.every((r) => centavos(r.debit) && centavos(r.credit))).toBe(true);
    expect(issued.find((r) => r.role === 'receivables')!.debit).toBe('113.00000');
    const clientRow = async () =>
      (await e
        .db('clients')
        .where({ id: Number(client.json.id.slice(4)) })
        .first())!;
    expect((await clientRow()).balance).toBe('113.00000');
    expect((await api(e, 'GET', `/api/v1/clients/${client.json.id}`, s.key)).json.balance).toBe('113.00');

    const paid = await api(e, 'POST', `/api/v1/invoices/${inv.json.id}/payments`, s.key, {
      amount: '113.00',
      method: 'efectivo',
    });
    expect(paid.status).toBe(201);
    expect(paid.json.amount_crc).toBe('113.00');
    const all = await journalOf(inv.json.id);
    expect(all.every((r) => centavos(r.debit) && centavos(r.credit))).toBe(true);
    expect(all.find((r) => r.role === 'cash')!.debit).toBe('113.00000');
    for (const entry of new Set(all.map((r) => r.entry))) {
      const lines = all.filter((r) => r.entry === entry);
      const d = lines.reduce((a, r) => a.plus(r.debit), new Decimal(0));
      const c = lines.reduce((a, r) => a.plus(r.credit), new Decimal(0));
      expect(d.eq(c)).toBe(true);
    }
    expect((await clientRow()).balance).toBe('0.00000');
  });

  it('the database refuses a journal line finer than a centavo', async () => {
    const entry = await e.db('journal_entries').first('id');
    const account = await e.db('accounts').where({ companyId: s.company.id, role: 'cash' }).first('id');
    await expect(
      e
        .db('journal_lines')
        .insert({ entryId: entry!.id, accountId: account!.id, debit: '1.00001', credit: 0 }),
    ).rejects.toThrow(/journal_lines_centavos_check/);
  });
});

describe('completed jobs kept for Bull Board', () => {
  it('each invoice queue keeps its completed jobs, bounded by the configured age and count', async () => {
    const done = await api(
      e,
      'POST',
      '/api/v1/invoices',
      s.key,
      { client_id: cli, lines: [{ service_id: srv, qty: 1 }] },
      { prefer: 'wait=10' },
    );
    expect(['enviada', 'aceptada']).toContain(done.json.status);
    const sign = new Queue(QUEUES.sign, { connection: e.connection, prefix: e.config.queuePrefix });
    try {
      const completed = await sign.getJobs(['completed']);
      expect(completed.length).toBeGreaterThan(0);
      expect(completed[0]!.opts.removeOnComplete).toEqual({ age: 3600, count: 1000 });
    } finally {
      await sign.close();
    }
  });

  it('past the count the oldest completed jobs go', async () => {
    const name = `keep-${Date.now()}`;
    const prefix = e.config.queuePrefix;
    const q = new Queue(name, { connection: e.connection, prefix });
    const saved = { ...KEEP_COMPLETED };
    setCompletedRetention({ age: 3600, count: 2 });
    const w = new Worker(name, async () => 'ok', { connection: e.connection, prefix });
    try {
      for (let i = 0; i < 5; i += 1) await q.add('x', { i }, { ...DEFAULT_JOB_OPTIONS, jobId: `j${i}` });
      await waitFor(async () => (await q.getJobCounts('waiting', 'active')).waiting === 0, 10_000);
      await waitFor(async () => (await q.getJobCounts('active')).active === 0, 10_000);
      const kept = await q.getJobs(['completed']);
      expect(kept.map((j) => j.id).sort()).toEqual(['j3', 'j4']);
    } finally {
      setCompletedRetention(saved);
      await w.close();
      await q.obliterate({ force: true });
      await q.close();
    }
  });
});
