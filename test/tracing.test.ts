// Tracing across processes: with a tracer provider registered (telemetry/tracing.ts), an invoice's
// way from the API request through every job of its flow to Hacienda's calls and its webhook
// delivery is one trace, continuing the caller's `traceparent`.
// - In one process (API, workers and simulator in-process), spans collected by an in-memory
//   exporter: the request's server span, each step's BullMQ job, the Hacienda calls and the
//   webhook POST all carry the caller's trace id.
// - Across processes: a worker process exporting over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT) to a
//   collector the test runs; its spans for the invoice carry the trace id the API's request had.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enableTracing } from '../platform/tracing.ts';
import { WEBHOOK_QUEUE } from '../jobs/webhooks/deliver.ts';
import { startTracing, type Tracing } from '../telemetry/tracing.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { startWorkerProcess, stopProcess } from './helpers/processes.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { waitFor } from './helpers/wait.ts';

const pad = (n: number) => String(n).padStart(12, '0');
const exporter = new InMemorySpanExporter();
let tracing: Tracing | null;

beforeAll(() => {
  tracing = startTracing({ serviceName: 'factura-test', tracesUrl: null, exporter });
  enableTracing();
});
afterAll(async () => {
  await tracing?.shutdown();
});

/** A caller's W3C context: a fresh trace id and parent span id. */
function callerContext(): { traceId: string; header: string } {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, header: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
}

async function issue(e: E2E, s: Awaited<ReturnType<typeof seedIssuer>>, traceparent: string) {
  const r = await api(
    e,
    'POST',
    '/api/v1/invoices',
    s.key,
    {
      client_id: `cli_${pad(s.client.id)}`,
      lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
    },
    { traceparent },
  );
  expect(r.status).toBe(201);
  return Number(String(r.json.id).slice(4));
}

const statusOf = async (e: E2E, id: number) =>
  ((await e.db('invoices').where({ id }).first('status')) as { status: string }).status;

describe('one invoice, one trace, in one process', () => {
  let e: E2E;
  let s: Awaited<ReturnType<typeof seedIssuer>>;
  let receiver: Receiver;
  beforeAll(async () => {
    e = await startE2E({ simulator: { processingDelayMs: 0 } });
    s = await seedIssuer(e.db, e.config);
    receiver = await startReceiver();
    const ep = await api(e, 'POST', '/api/v1/webhook_endpoints', s.key, {
      url: receiver.url,
      events: ['invoice.accepted'],
    });
    expect(ep.status).toBe(201);
    receiver.secrets.push(ep.json.secret);
  });
  afterAll(async () => {
    await receiver.close();
    await e.close();
  });

  it('follows the request through sign, submit, accounting, status, Hacienda and the webhook', async () => {
    const caller = callerContext();
    const id = await issue(e, s, caller.header);
    await waitFor(async () => (await statusOf(e, id)) === 'aceptada', 60_000, 50, 'aceptada');
    await waitFor(async () => receiver.ofKind('invoice.accepted').length > 0, 30_000, 50, 'webhook');

    const stored = (await e.db('invoices').where({ id }).first('trace_context', 'clave')) as {
      traceContext: string;
      clave: string;
    };
    expect(JSON.parse(stored.traceContext).traceparent).toMatch(new RegExp(`^00-${caller.traceId}-`));

    // Spans end after the work they time: the webhook job's once its POST is answered and recorded.
    let spans: ReadableSpan[] = [];
    await waitFor(
      async () => {
        spans = exporter.getFinishedSpans().filter((sp) => sp.spanContext().traceId === caller.traceId);
        return spans.some((sp) => sp.name.startsWith('process') && sp.name.includes(WEBHOOK_QUEUE));
      },
      10_000,
      50,
      'the webhook span',
    );
    const names = spans.map((sp) => sp.name);
    expect(names).toContain('POST /api/v1/invoices');
    for (const queue of ['invoice-sign', 'invoice-submit', 'invoice-accounting', 'invoice-status'])
      expect(names.some((n) => n.startsWith('process') && n.includes(queue))).toBe(true);
    const submit = spans.find((sp) => sp.name === 'hacienda submit');
    expect(submit?.attributes['hacienda.clave']).toBe(stored.clave);
    expect(submit?.attributes['hacienda.outcome']).toBe('received');
    expect(spans.some((sp) => sp.name === 'hacienda status')).toBe(true);
    const hook = spans.find((sp) => sp.name === 'webhook POST');
    expect(hook?.attributes['http.response.status_code']).toBe(200);

    // The server span is the caller's child, and every other span hangs below it.
    const server = spans.find((sp) => sp.name === 'POST /api/v1/invoices')!;
    expect(server.attributes['http.response.status_code']).toBe(201);
    const byId = new Map(spans.map((sp) => [sp.spanContext().spanId, sp]));
    const parentOf = (sp: ReadableSpan) => sp.parentSpanContext?.spanId;
    for (const sp of spans) {
      let at: ReadableSpan | undefined = sp;
      while (at && at !== server) at = byId.get(parentOf(at) ?? '');
      expect(at, `${sp.name} descends from the request`).toBe(server);
    }
  });

  it('starts a trace of its own for a request without traceparent, and stores nothing when unsampled', async () => {
    const before = exporter.getFinishedSpans().length;
    const r = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${pad(s.client.id)}`,
      lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
    });
    expect(r.status).toBe(201);
    const id = Number(String(r.json.id).slice(4));
    const own = (await e.db('invoices').where({ id }).first('trace_context')) as { traceContext: string };
    const traceId = /^00-([0-9a-f]{32})-/.exec(JSON.parse(own.traceContext).traceparent)![1];
    await waitFor(
      async () =>
        exporter
          .getFinishedSpans()
          .slice(before)
          .some((sp) => sp.spanContext().traceId === traceId && sp.name === 'POST /api/v1/invoices'),
      10_000,
      50,
      'its server span',
    );

    // A caller that decided not to sample: its flag is honoured, nothing is stored or exported.
    const unsampled = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`;
    const id2 = await issue(e, s, unsampled);
    const row = (await e.db('invoices').where({ id: id2 }).first('trace_context')) as {
      traceContext: string | null;
    };
    expect(row.traceContext).toBeNull();
  });
});

/** A minimal OTLP/HTTP collector: stores the JSON export requests it gets on /v1/traces. */
async function startCollector() {
  const spans: { traceId: string; name: string; service: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && String(req.headers['content-type']).includes('json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const service = (rs.resource?.attributes ?? []).find(
            (a: { key: string }) => a.key === 'service.name',
          )?.value?.stringValue;
          for (const ss of rs.scopeSpans ?? [])
            for (const sp of ss.spans ?? []) spans.push({ traceId: sp.traceId, name: sp.name, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('one invoice, one trace, across processes', () => {
  let e: E2E;
  let worker: ChildProcess | null = null;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  beforeAll(async () => {
    collector = await startCollector();
    e = await startE2E({ workers: false, simulator: { processingDelayMs: 0 } });
  });
  afterAll(async () => {
    if (worker) await stopProcess(worker, 'SIGKILL');
    await collector.close();
    await e.close();
  });

  it('a worker process exports its spans over OTLP in the trace the API request began', async () => {
    const s = await seedIssuer(e.db, e.config);
    worker = startWorkerProcess({
      DATABASE_URL: e.database.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: e.config.queuePrefix,
      SECRETS_KEY: TEST_SECRETS_KEY,
      PUBLIC_URL: e.apiUrl,
      HACIENDA_SANDBOX_IDP_URL: e.config.hacienda.sandbox.idpUrl,
      HACIENDA_SANDBOX_API_URL: e.config.hacienda.sandbox.apiUrl,
      STATUS_POLL_BASE_MS: '200',
      STATUS_POLL_MAX_MS: '500',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    const caller = callerContext();
    const id = await issue(e, s, caller.header);
    await waitFor(async () => (await statusOf(e, id)) === 'aceptada', 60_000, 50, 'aceptada');
    // SIGTERM: the worker's shutdown exports what its batch still holds.
    await stopProcess(worker, 'SIGTERM');
    worker = null;
    const ours = collector.spans.filter((sp) => sp.traceId === caller.traceId);
    expect(ours.every((sp) => sp.service === 'factura-worker')).toBe(true);
    const names = ours.map((sp) => sp.name);
    expect(names).toContain('hacienda submit');
    expect(names.some((n) => n.startsWith('process') && n.includes('invoice-sign'))).toBe(true);
    expect(names.some((n) => n.startsWith('process') && n.includes('invoice-status'))).toBe(true);
    // And the API's half of the same trace was made in this process.
    expect(
      exporter
        .getFinishedSpans()
        .some((sp) => sp.spanContext().traceId === caller.traceId && sp.name === 'POST /api/v1/invoices'),
    ).toBe(true);
  });
});
