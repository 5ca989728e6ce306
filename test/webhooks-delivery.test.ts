// Webhook delivery end to end: API → events → outbox relay → `webhooks` queue → a real HTTP
// receiver (node:http on 127.0.0.1) that verifies every signature and timestamp with the
// exported helper. Every event kind with its documented payload; retries with growing backoff
// (schedule shortened through config); secret rotation; 410 Gone; timeouts; redelivery; a job
// that runs twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatId } from '../domain/ids.ts';
import { EVENT_KINDS } from '../domain/webhook-events.ts';
import { webhookJobId, WEBHOOK_JOB } from '../jobs/webhooks/deliver.ts';
import { postWebhook } from '../jobs/webhooks/http.ts';
import { createApiKey } from '../db/queries/api-keys.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { startReceiver, type Received, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  e = await startE2E({
    env: {
      WEBHOOK_BACKOFF_BASE_MS: '400',
      // Long enough that a receiver on a loaded CI machine is never cut off by accident.
      WEBHOOK_TIMEOUT_MS: '3000',
      // A document Hacienda loses turns into invoice.processing_failed within seconds.
      HACIENDA_MISSING_RESEND_MS: '300',
      HACIENDA_MISSING_FAIL_MS: '1500',
    },
  });
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await e.close();
});

async function receiver(events: readonly string[]): Promise<{ r: Receiver; endpoint: any }> {
  const r = await startReceiver();
  receivers.push(r);
  const res = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, { url: r.url, events });
  expect(res.status).toBe(201);
  r.secrets.push(res.json.secret);
  return { r, endpoint: res.json };
}

let clientSeq = 0;
async function createClient(): Promise<any> {
  clientSeq += 1;
  const res = await api(e, 'POST', '/api/v1/clients', s.key, {
    cedula: `2-0${clientSeq}00-0${clientSeq}00`,
    name: `Cliente Webhook ${clientSeq}`,
  });
  expect(res.status).toBe(201);
  return res.json;
}

async function invoiceReaching(status: string): Promise<any> {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: formatId('client', s.client.id),
    // On credit: paid below through the payments API (a cash sale is paid at issue).
    condition: 'credito_30',
    lines: [{ service_id: formatId('service', s.consulting.id), qty: 3 }],
  });
  expect(res.status).toBe(201);
  let last: any;
  await waitFor(
    async () => {
      last = (await api(e, 'GET', `/api/v1/invoices/${res.json.id}`, s.key)).json;
      return last.status === status;
    },
    20_000,
    100,
    `invoice to reach ${status}`,
  );
  return last;
}

const deliveries = async (endpointId: string) =>
  (await api(e, 'GET', `/api/v1/webhook_endpoints/${endpointId}/deliveries`, s.key)).json.data as any[];

// Every kind this flow produces (notes and an annulment included): all of them but the
// receptor-email events, which need a company with email delivery on and an SMTP server
// (test/invoice-email.test.ts delivers those), and invoice.retried, which needs a flow stopped
// before Hacienda (test/invoice-retry.test.ts), and received_document.*, which need a supplier's
// signed document (test/received-documents.test.ts delivers those), and webhook_endpoint.test, sent
// only on request to one endpoint (test/webhooks-api.test.ts).
const PRODUCED = EVENT_KINDS.filter(
  (k) =>
    k !== 'webhook_endpoint.test' &&
    k !== 'invoice.emailed' &&
    k !== 'email.failed' &&
    k !== 'invoice.retried' &&
    !k.startsWith('received_document.'),
);

describe('a receiver subscribed to every event kind', () => {
  let all: Receiver;
  let client: any;
  let accepted: any;
  let rejected: any;
  let lost: any;

  beforeAll(async () => {
    ({ r: all } = await receiver(EVENT_KINDS));
    client = await createClient();
    accepted = await invoiceReaching('aceptada');
    const pay = await api(e, 'POST', `/api/v1/invoices/${accepted.id}/payments`, s.key, {
      amount: '113.00',
      method: 'sinpe_movil',
      reference: 'SINPE 88776655',
    });
    expect(pay.status).toBe(201);
    // A debit note, then a whole credit note that annuls the invoice.
    const debit = await api(e, 'POST', `/api/v1/invoices/${accepted.id}/debit_notes`, s.key, {
      reason: 'Intereses por pago tardío',
      lines: [{ line: 1, amount: '10.00' }],
    });
    expect(debit.status).toBe(201);
    const credit = await api(e, 'POST', `/api/v1/invoices/${accepted.id}/credit_notes`, s.key, {
      reason: 'Anulación de la factura',
    });
    expect(credit.status).toBe(201);
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    try {
      rejected = await invoiceReaching('rechazada');
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
    e.sim.simulator.configure({ lostDocumentRate: 1 });
    try {
      lost = await invoiceReaching('enviada');
      await waitFor(
        () => all.ofKind('invoice.processing_failed').some((x) => x.body.data.id === lost.id),
        20_000,
        50,
        'the lost document to become invoice.processing_failed',
      );
    } finally {
      e.sim.simulator.configure({ lostDocumentRate: 0 });
    }
    await waitFor(() => PRODUCED.every((k) => all.ofKind(k).length > 0), 15_000, 50, 'every event kind');
    await waitFor(() => all.ofKind('invoice.rejected').some((x) => x.body.data.id === rejected.id), 15_000);
  });

  it('verifies every request: signature, timestamp, headers and envelope', () => {
    expect(all.received.length).toBeGreaterThanOrEqual(PRODUCED.length);
    for (const got of all.received) {
      expect(got.verified, got.raw).toMatchObject({ ok: true });
      expect(got.headers['service-signature']).toMatch(/^t=\d+, v1=[0-9a-f]{64}$/);
      expect(
        Math.abs(Number(/t=(\d+)/.exec(got.headers['service-signature'] as string)![1]) - got.at / 1000),
      ).toBeLessThan(5);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toMatch(/^factura-cr-webhooks\//);
      expect(got.headers['service-event-id']).toBe(got.body.id);
      expect(Object.keys(got.body).sort()).toEqual(['created_at', 'data', 'event', 'id', 'sequence']);
      expect(got.body.id).toMatch(/^evt_\d{12}$/);
      expect(got.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  it("numbers a document's events 1, 2, 3… and delivers them in that order; an event about no document has none", async () => {
    const about = (x: Received) => x.body.data.id === accepted.id || x.body.data.invoice_id === accepted.id;
    const got = all.received.filter(about);
    const kinds = got.map((x) => x.body.event);
    for (const k of [
      'invoice.created',
      'invoice.sent',
      'invoice.accepted',
      'payment.created',
      'invoice.paid',
    ])
      expect(kinds).toContain(k);
    // Arrival order is the order they happened: 1, 2, 3… with no gap.
    expect(got.map((x) => x.body.sequence)).toEqual(got.map((_, i) => i + 1));
    expect(kinds.slice(0, 3)).toEqual(['invoice.created', 'invoice.sent', 'invoice.accepted']);
    expect(kinds.indexOf('payment.created')).toBeLessThan(kinds.indexOf('invoice.paid'));
    const [c] = all.ofKind('client.created').filter((x) => x.body.data.id === client.id);
    expect(c!.body.sequence).toBeNull();
    // The API shows the same numbers.
    const listed = (await api(e, 'GET', '/api/v1/events?limit=100', s.key)).json.data as any[];
    for (const x of got) expect(listed.find((l) => l.id === x.body.id)?.sequence).toBe(x.body.sequence);
  });

  it('client.created carries the client object', () => {
    const [got] = all.ofKind('client.created').filter((x) => x.body.data.id === client.id);
    expect(got!.body.data).toEqual(client);
  });

  it('invoice.created, invoice.sent, invoice.accepted carry the invoice object in that state', () => {
    const of = (k: string) => all.ofKind(k).find((x) => x.body.data.id === accepted.id)!.body.data;
    expect(of('invoice.created')).toMatchObject({ object: 'invoice', status: 'pendiente', total: '113.00' });
    expect(of('invoice.sent')).toMatchObject({ object: 'invoice', status: 'enviada', clave: accepted.clave });
    expect(of('invoice.accepted')).toMatchObject({
      object: 'invoice',
      status: 'aceptada',
      consecutivo: accepted.consecutivo,
      hacienda: { status: 'aceptado' },
    });
  });

  it('invoice.rejected carries the readable reason', () => {
    const data = all.ofKind('invoice.rejected').find((x) => x.body.data.id === rejected.id)!.body.data;
    expect(data).toMatchObject({ object: 'invoice', status: 'rechazada', balance_due: '0.00' });
    expect(data.rejection_reason.message.length).toBeGreaterThan(10);
    expect(data.rejection_reason.items.length).toBeGreaterThan(0);
  });

  it('invoice.processing_failed carries the processing error, the invoice still enviada', () => {
    const data = all.ofKind('invoice.processing_failed').find((x) => x.body.data.id === lost.id)!.body.data;
    expect(data).toMatchObject({
      object: 'invoice',
      status: 'enviada',
      processing_error: { step: 'status', code: 'hacienda_document_lost', permanent: true },
    });
    expect(all.ofKind('invoice.processing_failed').filter((x) => x.body.data.id === lost.id)).toHaveLength(1);
  });

  it('payment.created carries the payment; invoice.paid exactly the reference payload (plus additive fields)', () => {
    const payment = all.ofKind('payment.created')[0]!.body.data;
    expect(payment).toMatchObject({
      object: 'payment',
      invoice_id: accepted.id,
      amount: '113.00',
      method: 'sinpe_movil',
      method_code: '06',
      reference: 'SINPE 88776655',
      invoice_balance_due: '0.00',
      invoice_payment_status: 'paid',
    });
    expect(payment.id).toMatch(/^pay_\d{12}$/);
    const paid = all.ofKind('invoice.paid');
    expect(paid).toHaveLength(1);
    expect(paid[0]!.body.data).toMatchObject({
      invoice_id: accepted.id,
      amount: '113.00',
      method: 'sinpe_movil',
    });
    expect(paid[0]!.body.data.amount).toMatch(/^\d+\.\d{2}$/);
  });

  it('GET /api/v1/events shows the same envelopes the receiver got', async () => {
    const got = all.ofKind('invoice.paid')[0]!.body;
    const ev = (await api(e, 'GET', `/api/v1/events/${got.id}`, s.key)).json;
    expect({
      id: ev.id,
      event: ev.event,
      created_at: ev.created_at,
      sequence: ev.sequence,
      data: ev.data,
    }).toEqual(got);
    const listed = (await api(e, 'GET', '/api/v1/events?type=invoice.paid', s.key)).json;
    expect(listed.data.map((x: any) => x.id)).toEqual([got.id]);
  });

  it('a redelivery sends the same event (same id and body) again, now', async () => {
    const original = all.ofKind('client.created').find((x) => x.body.data.id === client.id)!;
    const endpoints = (await api(e, 'GET', '/api/v1/webhook_endpoints', s.key)).json.data;
    const mine = endpoints.find((x: any) => x.url === all.url);
    const res = await api(e, 'POST', `/api/v1/events/${original.body.id}/redeliver`, s.key, {
      endpoint_id: mine.id,
    });
    expect(res.status).toBe(202);
    expect(res.json.endpoint_ids).toEqual([mine.id]);
    await waitFor(() => all.received.filter((x) => x.body.id === original.body.id).length === 2, 10_000);
    const again = all.received.filter((x) => x.body.id === original.body.id)[1]!;
    expect(again.raw).toBe(original.raw);
    expect(again.verified.ok).toBe(true);
    await waitFor(async () => {
      const d = (await deliveries(mine.id)).find((x) => x.event_id === original.body.id);
      return d?.status === 'delivered' && d.redeliveries === 1;
    }, 10_000);
    const d = (await deliveries(mine.id)).find((x) => x.event_id === original.body.id);
    expect(d.attempts.map((a: any) => [a.round, a.status_code])).toEqual([
      [0, 200],
      [1, 200],
    ]);
  });

  it('a delivery job that runs again sends nothing more', async () => {
    const original = all.ofKind('invoice.paid')[0]!;
    const endpoint = (await e.db('webhook_endpoints').where({ url: all.url }).first()) as { id: number };
    const data = {
      v: 1 as const,
      eventId: Number(original.body.id.slice(4)),
      endpointId: endpoint.id,
      round: 0,
    };
    // The first run's job is kept as completed (for Bull Board); an add under its id would be
    // ignored, so it goes first and the same job runs a second time.
    await e.runtime!.work.webhooks.queue.remove(webhookJobId(data));
    const job = await e.runtime!.work.webhooks.queue.add(WEBHOOK_JOB, data, { jobId: webhookJobId(data) });
    await waitFor(async () => (await job.getState()) === 'completed', 10_000, 50, 'the repeated job');
    const done = await e.runtime!.work.webhooks.queue.getJob(job.id!);
    expect(done?.returnvalue).toBe('already delivered');
    expect(all.received.filter((x) => x.body.id === original.body.id)).toHaveLength(1);
  });
});

describe('retries', () => {
  it('a receiver failing its first 3 attempts gets the event a 4th time, same id; attempts are listed and spaced further apart each time', async () => {
    const { r, endpoint } = await receiver(['client.created']);
    r.respond = (n) => (n < 3 ? 500 : 200);
    await createClient();
    await waitFor(
      async () => (await deliveries(endpoint.id))[0]?.status === 'delivered',
      15_000,
      50,
      'delivered',
    );
    expect(r.received).toHaveLength(4);
    expect(new Set(r.received.map((x) => x.body.id)).size).toBe(1);
    expect(new Set(r.received.map((x) => x.raw)).size).toBe(1);
    expect(r.received.every((x) => x.verified.ok)).toBe(true);
    const gaps = r.received.slice(1).map((x, i) => x.at - r.received[i]!.at);
    // Base 400 ms, −20% jitter at most: wide enough that a wake-up a few hundred ms late on a busy
    // machine cannot make one gap look longer than the next.
    expect(gaps[0]).toBeGreaterThanOrEqual(320);
    expect(gaps[1]).toBeGreaterThan(gaps[0]!);
    expect(gaps[2]).toBeGreaterThan(gaps[1]!);

    const [d] = await deliveries(endpoint.id);
    expect(d).toMatchObject({
      status: 'delivered',
      attempt_count: 4,
      last_status_code: 200,
      next_attempt_at: null,
    });
    expect(d.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(d.attempts.map((a: any) => a.status_code)).toEqual([500, 500, 500, 200]);
    expect(d.attempts[0].response_excerpt).toBe('nope 500');
    for (const a of d.attempts) expect(a.duration_ms).toBeGreaterThanOrEqual(0);
    expect(r.received.map((x) => x.headers['service-delivery-attempt'])).toEqual(['1', '2', '3', '4']);
    // Nothing left to retry.
    const counts = await e.runtime!.work.webhooks.queue.getJobCounts('waiting', 'delayed', 'active');
    expect(counts).toEqual({ waiting: 0, delayed: 0, active: 0 });
  });

  it('a receiver slower than the timeout is a failed attempt, retried', async () => {
    const { r, endpoint } = await receiver(['client.created']);
    r.delay = (n) => (n === 0 ? 4000 : 0);
    await createClient();
    await waitFor(
      async () => (await deliveries(endpoint.id))[0]?.status === 'delivered',
      15_000,
      50,
      'delivered',
    );
    const [d] = await deliveries(endpoint.id);
    expect(d.attempts[0]).toMatchObject({ status_code: null, error: 'timed out after 3000 ms' });
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(2990);
    expect(d.attempts[1]).toMatchObject({ status_code: 200, error: null });
  });

  it('410 Gone disables the endpoint and stops retrying', async () => {
    const { r, endpoint } = await receiver(['client.created']);
    r.respond = () => 410;
    await createClient();
    await waitFor(
      async () =>
        (await api(e, 'GET', `/api/v1/webhook_endpoints/${endpoint.id}`, s.key)).json.status === 'disabled',
      10_000,
    );
    const ep = (await api(e, 'GET', `/api/v1/webhook_endpoints/${endpoint.id}`, s.key)).json;
    expect(ep.disabled_reason).toMatch(/410/);
    const [d] = await deliveries(endpoint.id);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 1, last_status_code: 410 });
    // Later events do not go to a disabled endpoint.
    const { r: witness } = await receiver(['client.created']);
    const later = await createClient();
    await waitFor(() => witness.received.some((x) => x.body.data.id === later.id), 10_000);
    expect(r.received).toHaveLength(1);
    expect(await deliveries(endpoint.id)).toHaveLength(1);
  });
});

describe('the events of one document', () => {
  it('reach an endpoint in order: a later one waits while an earlier one is retried, and goes once it is delivered', async () => {
    const { r, endpoint } = await receiver(['invoice.created', 'invoice.sent', 'invoice.accepted']);
    // invoice.created fails twice (retried after 400 ms, then about 800 ms); the document is
    // accepted by Hacienda well before that.
    let failed = 0;
    r.respond = (_n, got) => (got.body.event === 'invoice.created' && failed++ < 2 ? 500 : 200);
    const invoice = await invoiceReaching('aceptada');
    await waitFor(
      () =>
        r.received.filter((x) => x.body.data.id === invoice.id && x.body.event === 'invoice.accepted')
          .length > 0,
      20_000,
      50,
      'invoice.accepted delivered',
    );
    const got = r.received.filter((x) => x.body.data.id === invoice.id);
    expect(got.map((x) => [x.body.event, x.body.sequence])).toEqual([
      ['invoice.created', 1],
      ['invoice.created', 1],
      ['invoice.created', 1],
      ['invoice.sent', 2],
      ['invoice.accepted', 3],
    ]);
    // invoice.sent waited for the third attempt of invoice.created, and went soon after it.
    expect(got[3]!.at - got[2]!.at).toBeLessThan(3000);
    await waitFor(
      async () => (await deliveries(endpoint.id)).every((d) => d.status === 'delivered'),
      10_000,
      50,
      'every outcome recorded',
    );
    const ds = await deliveries(endpoint.id);
    expect(ds.filter((d) => d.status === 'delivered')).toHaveLength(3);
    // Waiting used none of the later deliveries' attempts.
    expect(ds.map((d) => d.attempt_count).sort()).toEqual([1, 1, 3]);
  });

  it('a later event waits while an earlier one keeps failing, and goes once that one is given up', async () => {
    // Giving up takes 12 attempts on this schedule: the earlier delivery is marked failed in the
    // database instead, as its last attempt would; the waiting one finds it so when it looks again.
    const { r, endpoint } = await receiver(['invoice.created', 'invoice.sent']);
    r.respond = (_n, got) => (got.body.event === 'invoice.created' ? 500 : 200);
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: formatId('client', s.client.id),
      condition: 'credito_30',
      lines: [{ service_id: formatId('service', s.consulting.id), qty: 1 }],
    });
    expect(res.status).toBe(201);
    const id = res.json.id as string;
    await waitFor(
      async () => (await deliveries(endpoint.id)).some((d) => d.event === 'invoice.sent'),
      20_000,
      50,
      'invoice.sent fanned out',
    );
    await new Promise((r2) => setTimeout(r2, 1000)); // invoice.sent's chance to (wrongly) go first
    expect(r.received.filter((x) => x.body.data.id === id).map((x) => x.body.event)).not.toContain(
      'invoice.sent',
    );
    // invoice.created given up. An attempt in flight when it is marked writes its own outcome
    // (pending, next try) after its POST, as only the job itself gives a delivery up: the mark is
    // made again until the later event has gone.
    const giveUpCreated = () =>
      e
        .db('webhook_deliveries')
        .where({ endpointId: Number(endpoint.id.slice(3)), status: 'pending' })
        .whereIn('eventId', e.db('events').where({ document: id, type: 'invoice.created' }).select('id'))
        .update({ status: 'failed', nextAttemptAt: null });
    await waitFor(
      async () => {
        await giveUpCreated();
        return r.received.some((x) => x.body.data.id === id && x.body.event === 'invoice.sent');
      },
      35_000,
      100,
      'invoice.sent delivered after invoice.created was given up',
    );
  }, 60_000);
});

describe('secret rotation', () => {
  it('during the overlap a receiver holding either secret verifies; after it, only the new one', async () => {
    const { r, endpoint } = await receiver(['client.created']);
    const oldSecret = endpoint.secret;
    const rot = await api(e, 'POST', `/api/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, s.key);
    expect(rot.status).toBe(200);
    const newSecret = rot.json.secret;
    r.secrets.splice(0, r.secrets.length, oldSecret, newSecret);

    const during = await createClient();
    await waitFor(() => r.received.some((x) => x.body.data.id === during.id), 10_000);
    const a = r.received.find((x) => x.body.data.id === during.id)!;
    expect(a.headers['service-signature']).toMatch(/^t=\d+, v1=[0-9a-f]{64}, v1=[0-9a-f]{64}$/);
    expect(a.perSecret.map((v) => v.ok)).toEqual([true, true]);

    // The overlap ends (24 h later, simulated): only the new secret signs.
    await e
      .db('webhook_endpoints')
      .where({ id: Number(endpoint.id.slice(3)) })
      .update({ previousSecretExpiresAt: e.db.raw(`now() - interval '1 second'`) });
    const after = await createClient();
    await waitFor(() => r.received.some((x) => x.body.data.id === after.id), 10_000);
    const b = r.received.find((x) => x.body.data.id === after.id)!;
    expect(b.headers['service-signature']).toMatch(/^t=\d+, v1=[0-9a-f]{64}$/);
    expect(b.perSecret).toEqual([
      { ok: false, reason: 'no_matching_signature' },
      { ok: true, timestamp: expect.any(Number) },
    ]);
    expect(
      (await api(e, 'GET', `/api/v1/webhook_endpoints/${endpoint.id}`, s.key)).json
        .previous_secret_expires_at,
    ).toBeNull();
  });
});

describe('the webhook reconciler', () => {
  it('enqueues again a pending delivery whose job Redis lost, and leaves fresh ones alone', async () => {
    const { r, endpoint } = await receiver(['client.created']);
    const endpointId = Number(endpoint.id.slice(3));
    // An event whose delivery was recorded but whose job never reached Redis (or was lost there).
    const [ev] = await e
      .db('events')
      .insert({
        companyId: s.company.id,
        livemode: false,
        type: 'client.created',
        data: { object: 'client', lost: true },
      })
      .returning(['id']);
    await e.db('webhook_deliveries').insert({
      eventId: ev.id,
      endpointId,
      companyId: s.company.id,
      livemode: false,
      createdAt: e.db.raw(`now() - interval '10 minutes'`),
    });
    const [fresh] = await e
      .db('events')
      .insert({
        companyId: s.company.id,
        livemode: false,
        type: 'client.created',
        data: { object: 'client', fresh: true },
      })
      .returning(['id']);
    await e
      .db('webhook_deliveries')
      .insert({ eventId: fresh.id, endpointId, companyId: s.company.id, livemode: false });

    const reconcileWebhooksOnce = async () =>
      (await e.runtime!.reconcileNow({ staleMs: 60_000, only: ['webhooks'] })).recreated.webhooks;
    expect(await reconcileWebhooksOnce()).toBe(1);
    await waitFor(() => r.received.some((x) => x.body.id === formatId('event', ev.id)), 10_000);
    expect(r.received.find((x) => x.body.id === formatId('event', ev.id))!.verified.ok).toBe(true);
    await waitFor(
      async () =>
        (await deliveries(endpoint.id)).some(
          (d) => d.event_id === formatId('event', ev.id) && d.status === 'delivered',
        ),
      10_000,
    );
    expect(await reconcileWebhooksOnce()).toBe(0);
    expect(r.received.some((x) => x.body.id === formatId('event', fresh.id))).toBe(false);
  });
});

describe('live endpoints at delivery time', () => {
  it('never connect to a private address, even when the name resolves there after registration', async () => {
    const r = await startReceiver();
    receivers.push(r);
    // The connection-level guard: a loopback literal and a name resolving to loopback.
    for (const url of [r.url, r.url.replace('127.0.0.1', 'localhost')]) {
      const res = await postWebhook({ url, body: '{}', headers: {}, timeoutMs: 1000, publicOnly: true });
      expect(res.statusCode).toBeNull();
      expect(res.error).toMatch(/not a public address/);
    }
    expect(r.received).toHaveLength(0);

    // End to end: a live endpoint registered on a public address whose URL now points home.
    const { secret: live } = await createApiKey(e.db, {
      companyId: s.company.id,
      livemode: true,
      name: 'live',
      scopes: ['manage:webhooks', 'write:clients'],
    });
    const ep = await api(e, 'POST', '/api/v1/webhook_endpoints', live, {
      url: 'https://93.184.216.34/hooks',
      events: ['client.created'],
    });
    expect(ep.status).toBe(201);
    await e
      .db('webhook_endpoints')
      .where({ id: Number(ep.json.id.slice(3)) })
      .update({ url: r.url.replace('127.0.0.1', 'localhost') });
    const c = await api(e, 'POST', '/api/v1/clients', live, {
      cedula: '1-0900-0900',
      name: 'Cliente En Vivo',
    });
    expect(c.status).toBe(201);
    await waitFor(async () => {
      const [d] = (await api(e, 'GET', `/api/v1/webhook_endpoints/${ep.json.id}/deliveries`, live)).json.data;
      return d?.attempts.length >= 1;
    }, 10_000);
    const [d] = (await api(e, 'GET', `/api/v1/webhook_endpoints/${ep.json.id}/deliveries`, live)).json.data;
    expect(d.attempts[0]).toMatchObject({ status_code: null });
    expect(d.attempts[0].error).toMatch(/not a public address/);
    expect(r.received).toHaveLength(0);
  });
});
