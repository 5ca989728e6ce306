// How the pipeline recovers when Hacienda's side of a submission goes wrong, through real worker
// processes and the simulator:
// - a worker killed with SIGKILL while its POST is in flight (Hacienda has stored the document,
//   the answer never came): the next attempt finds the unfinished attempt, asks Hacienda for the
//   clave first and sends nothing; Hacienda received the document once;
// - Hacienda answers 202 and then 404 for the clave (it lost the document): the same signed bytes
//   are sent again after HACIENDA_MISSING_RESEND_MS, and when Hacienda keeps losing it, the
//   invoice gets a processing error and an `invoice.processing_failed` event after
//   HACIENDA_MISSING_FAIL_MS (both shortened here).
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { api, flowJobId, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { startWorkerProcess, stopProcess } from './helpers/processes.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

const pad = (n: number) => String(n).padStart(12, '0');

function workerEnv(e: E2E, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: e.database.url,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: e.config.queuePrefix,
    SECRETS_KEY: TEST_SECRETS_KEY,
    PUBLIC_URL: e.apiUrl,
    HACIENDA_SANDBOX_IDP_URL: e.config.hacienda.sandbox.idpUrl,
    HACIENDA_SANDBOX_API_URL: e.config.hacienda.sandbox.apiUrl,
    STATUS_POLL_BASE_MS: '200',
    STATUS_POLL_MAX_MS: '500',
    RECONCILE_EVERY_MS: '60000',
    ...extra,
  };
}

async function createInvoice(e: E2E, s: Awaited<ReturnType<typeof seedIssuer>>): Promise<number> {
  const r = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: `cli_${pad(s.client.id)}`,
    lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
  });
  expect(r.status).toBe(201);
  return Number(String(r.json.id).slice(4));
}

const statusOf = async (e: E2E, id: number) =>
  ((await e.db('invoices').where({ id }).first('status')) as { status: string }).status;

const submissions = (e: E2E, id: number) =>
  e
    .db('hacienda_submissions')
    .where({ invoiceId: id })
    .orderBy('id')
    .select('outcome', 'reason', 'detail', 'finished_at');

/** Issue entries of the invoice (a cash sale's payment at issue has its own). */
const journalEntries = async (e: E2E, id: number) =>
  Number((await e.db('journal_entries').where({ invoiceId: id, kind: 'invoice' }).count('* as n'))[0]!.n);

const eventTypes = (e: E2E, id: number) =>
  e
    .db('events')
    .whereRaw(`data->>'id' = ?`, [`inv_${pad(id)}`])
    .orderBy('id')
    .pluck('type');

describe('a worker killed with SIGKILL while its POST to Hacienda is in flight', () => {
  let e: E2E;
  let worker: ChildProcess | null = null;
  beforeAll(async () => {
    e = await startE2E({ workers: false, simulator: { processingDelayMs: 50 } });
  });
  afterAll(async () => {
    if (worker) await stopProcess(worker, 'SIGKILL');
    await e.close();
  });

  it('the next attempt asks Hacienda first and sends nothing: the document is received once', async () => {
    const s = await seedIssuer(e.db, e.config);
    // Hacienda stores the document and then holds the answer (a slow gateway): the POST is in
    // flight, with the document already received, when the worker dies.
    e.sim.simulator.configure({ timeoutRate: 1, storeOnFailureRate: 1, timeoutHangMs: 120_000 });
    const env = workerEnv(e, { WORKER_LOCK_MS: '2000', HACIENDA_POST_TIMEOUT_MS: '120000' });
    worker = startWorkerProcess(env);
    const id = await createInvoice(e, s);
    await waitFor(
      () => e.sim.simulator.counters().received === 1 && e.sim.simulator.counters().injectedTimeouts >= 1,
      60_000,
      20,
      'the POST to hang with its document stored',
    );
    await stopProcess(worker, 'SIGKILL');
    e.sim.simulator.configure({ timeoutRate: 0 });
    expect(await statusOf(e, id)).toBe('pendiente');

    // A new worker takes the stalled submit job over once its lock expires.
    worker = startWorkerProcess(env);
    await waitFor(async () => (await statusOf(e, id)) === 'aceptada', 90_000, 100, 'the invoice accepted');

    // Hacienda got the document once: no second POST reached it (a repeat would be a duplicate).
    expect(e.sim.simulator.counters()).toMatchObject({ received: 1, duplicates: 0, accepted: 1 });
    // The killed attempt stays unfinished; the next one settled it with a status check.
    const rows = await submissions(e, id);
    expect(rows).toMatchObject([
      { outcome: 'sending', reason: 'submit', finishedAt: null },
      { outcome: 'received', reason: 'submit', detail: 'status' },
    ]);
    expect(rows[1]!.finishedAt).not.toBeNull();
    expect(await journalEntries(e, id)).toBe(1);
    expect(await eventTypes(e, id)).toEqual(['invoice.created', 'invoice.sent', 'invoice.accepted']);
  }, 180_000);
});

describe('a document Hacienda loses after answering 202', () => {
  let e: E2E;
  let s: Awaited<ReturnType<typeof seedIssuer>>;
  let worker: ChildProcess | null = null;
  let receiver: Receiver;
  let statusQueue: Queue;
  beforeAll(async () => {
    e = await startE2E({ workers: false, simulator: { processingDelayMs: 50 } });
    s = await seedIssuer(e.db, e.config);
    receiver = await startReceiver();
    const ep = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, {
      url: receiver.url,
      events: ['invoice.processing_failed'],
    });
    expect(ep.status).toBe(201);
    receiver.secrets.push(ep.json.secret);
    worker = startWorkerProcess(
      workerEnv(e, { HACIENDA_MISSING_RESEND_MS: '1500', HACIENDA_MISSING_FAIL_MS: '6000' }),
    );
    statusQueue = new Queue('invoice-status', { connection: e.connection, prefix: e.config.queuePrefix });
  });
  afterAll(async () => {
    await statusQueue.close();
    if (worker) await stopProcess(worker, 'SIGKILL');
    await receiver.close();
    await e.close();
  });

  it('is sent again, the same bytes under the same clave, once the resend bound has passed', async () => {
    e.sim.simulator.configure({ lostDocumentRate: 1 });
    const before = e.sim.simulator.counters();
    const id = await createInvoice(e, s);
    await waitFor(async () => (await statusOf(e, id)) === 'enviada', 60_000, 20, 'enviada');
    expect(e.sim.simulator.counters().lost).toBe(before.lost + 1);
    // Hacienda keeps what it gets from now on.
    e.sim.simulator.configure({ lostDocumentRate: 0 });
    await waitFor(async () => (await statusOf(e, id)) === 'aceptada', 60_000, 100, 'aceptada');

    const rows = await submissions(e, id);
    expect(rows[0]).toMatchObject({ outcome: 'received', reason: 'submit' });
    expect(rows.slice(1).every((r) => r.reason === 'lost')).toBe(true);
    expect(rows.at(-1)).toMatchObject({ outcome: 'received', reason: 'lost' });
    const after = e.sim.simulator.counters();
    expect(after.received - before.received).toBe(1);
    expect(after.accepted - before.accepted).toBe(1);
    expect(after.duplicates).toBe(before.duplicates);
    const inv = await e.db('invoices').where({ id }).first('hacienda_missing_since', 'processing_error');
    expect(inv).toEqual({ haciendaMissingSince: null, processingError: null });
    expect(await eventTypes(e, id)).toEqual(['invoice.created', 'invoice.sent', 'invoice.accepted']);
    expect(await journalEntries(e, id)).toBe(1);
  }, 120_000);

  it('when Hacienda keeps losing it: a processing error and one invoice.processing_failed event', async () => {
    e.sim.simulator.configure({ lostDocumentRate: 1 });
    const id = await createInvoice(e, s);
    await waitFor(
      () => receiver.ofKind('invoice.processing_failed').some((r) => r.body.data.id === `inv_${pad(id)}`),
      60_000,
      100,
      'the invoice.processing_failed webhook',
    );
    const hook = receiver
      .ofKind('invoice.processing_failed')
      .find((r) => r.body.data.id === `inv_${pad(id)}`)!;
    expect(hook.verified.ok).toBe(true);
    expect(hook.body.data).toMatchObject({
      status: 'enviada',
      processing_error: { step: 'status', code: 'hacienda_document_lost', permanent: true },
    });
    expect(hook.body.data.processing_error.message).toMatch(/404/);

    // The status job ended (failed, kept for operators); the invoice says why through the API.
    await waitFor(
      async () => {
        const jobId = await flowJobId(e.db, id, 'status');
        return Boolean(jobId && (await (await statusQueue.getJob(jobId))?.isFailed()));
      },
      20_000,
      50,
      'the status job to end',
    );
    const read = await api(e, 'GET', `/api/v1/invoices/inv_${pad(id)}`, s.key);
    expect(read.json).toMatchObject({
      status: 'enviada',
      processing_error: { code: 'hacienda_document_lost', permanent: true },
    });
    const listed = await api(e, 'GET', '/api/v1/events?type=invoice.processing_failed', s.key);
    expect(listed.json.data.filter((ev: any) => ev.data.id === `inv_${pad(id)}`)).toHaveLength(1);
    // Sent again at least twice before giving up (6 s of 404s, a re-send every 1.5 s), never
    // accepted, and one event only.
    const rows = await submissions(e, id);
    expect(rows.filter((r) => r.reason === 'lost').length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.outcome === 'received')).toBe(true);
    expect(await eventTypes(e, id)).toEqual(['invoice.created', 'invoice.sent', 'invoice.processing_failed']);
  }, 120_000);
});
