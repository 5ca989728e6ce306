// Job `webhook.deliver` (queue `webhooks`): one POST of one event to one endpoint.
// Payload: ids only — { v: 1, eventId, endpointId, round }. Job id `webhook-<eventId>-<endpointId>`
// (`…-r<round>` for redelivery rounds), so a repeated fan-out enqueues nothing twice.
// The delivery is read before the POST (on a first run, as the fan-out read it) and the attempt
// recorded with its outcome after it, through the process's group commit (webhook-store.ts): no
// commit of its own per job.
// How it ends: 2xx → delivered; 410 Gone → the endpoint is disabled and the delivery failed
// (no retry); anything else or a timeout → the attempt is recorded and the job throws, to be
// retried by the `webhook` backoff (exponential with jitter) until its attempts are used up.
// In order: the events of one document reach one endpoint in the order they happened (their
// `sequence`). A delivery whose document has an earlier event still owed to the endpoint (pending,
// or not fanned out yet) sends nothing: its job puts itself to sleep (no attempt used) and is
// woken by the earlier delivery's job once that one is delivered or given up, or else looks
// again after its sleep (ORDER_WAIT_MS doubling up to ORDER_WAIT_MAX_MS).
import { createHash } from 'node:crypto';
import { DelayedError, type BackoffStrategy, type Job, type JobsOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../../config/index.ts';
import { eventEnvelope } from '../../db/public-objects.ts';
import type { DeliveryContext, DeliveryEndpoint } from '../../db/queries/webhooks.ts';
import { formatId } from '../../domain/ids.ts';
import { keepCompleted } from '../job-options.ts';
import { webhookRetryDelay } from '../../domain/webhook-backoff.ts';
import { signWebhookPayload } from '../../domain/webhook-signature.ts';
import { open } from '../../hacienda/secret-box.ts';
import { postWebhook } from './http.ts';
import type { DeliveryStore } from './store.ts';
import { metrics, webhookOutcome } from '../../platform/metrics.ts';
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '../../platform/tracing.ts';

export const WEBHOOK_QUEUE = 'webhooks';
export const WEBHOOK_JOB = 'webhook.deliver';
export const WEBHOOK_BACKOFF = 'webhook';
export const USER_AGENT = 'factura-cr-webhooks/1.0';

export interface WebhookJobData {
  v: 1;
  eventId: number;
  endpointId: number;
  /** Redelivery round (0 = the first delivery). */
  round: number;
  /** Times it slept waiting for an earlier event of its document (absent: none). */
  waits?: number;
}

/** The first sleep of a delivery waiting for its turn, doubled each time up to the cap. */
export const ORDER_WAIT_MS = 250;
export const ORDER_WAIT_MAX_MS = 30_000;

export function orderWaitMs(waits: number): number {
  return Math.min(ORDER_WAIT_MAX_MS, ORDER_WAIT_MS * 2 ** Math.min(waits, 20));
}

export function webhookJobId(d: Pick<WebhookJobData, 'eventId' | 'endpointId' | 'round'>): string {
  const base = `webhook-${d.eventId}-${d.endpointId}`;
  return d.round === 0 ? base : `${base}-r${d.round}`;
}

/** Completed jobs are kept a bounded time and count (jobs/job-options.ts); failed ones a week. */
export function webhookJobOptions(config: Config, d: WebhookJobData): JobsOptions {
  return {
    jobId: webhookJobId(d),
    attempts: config.webhooks.maxAttempts,
    backoff: { type: WEBHOOK_BACKOFF },
    removeOnComplete: keepCompleted(),
    removeOnFail: { age: 7 * 24 * 3600 },
  };
}

/** Jitter drawn from the job id and attempt: random-looking, yet the same for the strategy and the row. */
function jitterSource(jobId: string, attemptsMade: number): () => number {
  const h = createHash('sha256').update(`${jobId}:${attemptsMade}`).digest();
  return () => h.readUInt32BE(0) / 2 ** 32;
}

export function nextRetryDelay(jobId: string, attemptsMade: number, baseMs: number): number {
  return webhookRetryDelay(attemptsMade, baseMs, jitterSource(jobId, attemptsMade));
}

/** The Worker's custom backoff strategy for `{ type: 'webhook' }`. */
export function webhookBackoffStrategy(baseMs: number): BackoffStrategy {
  return (attemptsMade, _type, _err, job) => nextRetryDelay(job?.id ?? '', attemptsMade, baseMs);
}

export interface WebhookContext {
  log: Logger;
  config: Config;
  now: () => Date;
  /** Reads and records through the process's shared transactions (webhook-store.ts). */
  store: DeliveryStore;
  /** Wakes the sleeping delivery job of this id (its turn has come), if it sleeps. */
  wake?: (jobId: string) => Promise<void>;
}

/**
 * Opened secrets by their sealed bytes: each endpoint's secret is opened once, and a rotation
 * (new sealed bytes) is seen at the next delivery.
 */
const opened = new Map<string, string>();
const OPENED_MAX = 1024;

function openSecret(key: Buffer, sealed: Buffer): string {
  const id = sealed.toString('base64');
  let plain = opened.get(id);
  if (plain === undefined) {
    plain = open(key, sealed).toString('utf8');
    if (opened.size >= OPENED_MAX) opened.clear();
    opened.set(id, plain);
  }
  return plain;
}

/** The secrets an endpoint's deliveries are signed with: its own, and a rotated one while it lasts. */
export function signingSecrets(
  ctx: Pick<WebhookContext, 'config' | 'now'>,
  endpoint: Pick<DeliveryEndpoint, 'secretEnc' | 'previousSecretEnc' | 'previousSecretExpiresAt'>,
): string[] {
  const secrets = [openSecret(ctx.config.secretsKey, endpoint.secretEnc)];
  if (
    endpoint.previousSecretEnc &&
    endpoint.previousSecretExpiresAt &&
    new Date(endpoint.previousSecretExpiresAt).getTime() > ctx.now().getTime()
  ) {
    secrets.push(openSecret(ctx.config.secretsKey, endpoint.previousSecretEnc));
  }
  return secrets;
}

/** The delivery after this one of the same document and endpoint may go now: wake its job. */
async function wakeNext(ctx: WebhookContext, delivery: DeliveryContext): Promise<void> {
  const next = delivery.order.next;
  if (!next || !ctx.wake) return;
  await ctx.wake(webhookJobId({ ...next, endpointId: delivery.key.endpointId })).catch(() => {});
}

export async function deliverWebhook(
  job: Job<WebhookJobData>,
  ctx: WebhookContext,
  token?: string,
): Promise<string> {
  const { store } = ctx;
  const { eventId, endpointId, round } = job.data;

  // 1. State check: the delivery (created here if the fan-out has not committed yet), its round.
  const delivery = await store.load({ eventId, endpointId }, { round, firstRun: job.attemptsMade === 0 });
  if (!delivery) return 'event or endpoint no longer exists';
  if (delivery.round > round) return `superseded by redelivery round ${delivery.round}`;
  if (delivery.status !== 'pending') return `already ${delivery.status}`;
  const { endpoint } = delivery;
  if (endpoint.deletedAt || endpoint.disabledAt) {
    const why = `endpoint ${endpoint.deletedAt ? 'deleted' : 'disabled'}`;
    await store.abandon({ deliveryId: delivery.deliveryId, round, reason: why });
    await wakeNext(ctx, delivery);
    return why;
  }
  // An earlier event of the document is still owed to this endpoint: sleep until it is done.
  if (delivery.order.blockedBy !== null && token) {
    const waits = job.data.waits ?? 0;
    await job.updateData({ ...job.data, waits: waits + 1 });
    await job.moveToDelayed(Date.now() + orderWaitMs(waits), token);
    throw new DelayedError();
  }

  // 2. The body (the same bytes on every attempt) and its signature (fresh timestamp).
  const body = JSON.stringify(eventEnvelope(delivery.event));
  const startedAt = ctx.now();
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const signature = signWebhookPayload(body, signingSecrets(ctx, endpoint), timestamp);

  // 3. Send. The attempt is recorded with its outcome afterwards: a worker stopping mid-request
  // leaves the delivery pending, to be sent again (its retry, or the webhook reconciler).
  const post = () =>
    postWebhook({
      url: endpoint.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'service-signature': signature,
        'service-event-id': formatId('event', eventId),
        'service-delivery-id': formatId('webhookDelivery', delivery.deliveryId),
        'service-delivery-attempt': String(delivery.attempts + 1),
      },
      timeoutMs: ctx.config.webhooks.timeoutMs,
      publicOnly: endpoint.livemode || !ctx.config.webhooks.sandboxAllowPrivate,
    });
  // A client span of the event's trace (its invoice's, when the job carries it).
  const result = await inSpan(
    'webhook POST',
    {
      kind: SpanKind.CLIENT,
      attributes: { 'webhook.event_id': formatId('event', eventId), 'webhook.endpoint_id': endpointId },
    },
    async (span) => {
      const r = await post();
      if (r.statusCode !== null) span.setAttribute('http.response.status_code', r.statusCode);
      if (r.error) span.setAttribute('webhook.error', r.error);
      return r;
    },
  );

  // 4. The outcome, durable before the job completes (or throws for its retry).
  const attempt = { deliveryId: delivery.deliveryId, round, startedAt, result };
  const status = result.statusCode;
  metrics.webhookDelivery(webhookOutcome(status, result.error), result.durationMs / 1000);
  if (status !== null && status >= 200 && status < 300) {
    await store.record({ ...attempt, status: 'delivered', nextAttemptAt: null });
    await wakeNext(ctx, delivery);
    return `delivered (${status})`;
  }
  if (status === 410) {
    await store.record(
      { ...attempt, status: 'failed', nextAttemptAt: null },
      { endpointId, reason: 'the receiver answered 410 Gone' },
    );
    ctx.log.info({ endpointId, eventId }, 'webhook endpoint answered 410 Gone; disabled');
    await wakeNext(ctx, delivery);
    return 'gone: endpoint disabled';
  }
  const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const delay = nextRetryDelay(job.id ?? '', job.attemptsMade + 1, ctx.config.webhooks.backoffBaseMs);
  await store.record({
    ...attempt,
    status: last ? 'failed' : 'pending',
    nextAttemptAt: last ? null : new Date(Date.now() + delay),
  });
  // Given up: the next event of the document may go.
  if (last) await wakeNext(ctx, delivery);
  throw new Error(status !== null ? `receiver answered ${status}` : (result.error ?? 'delivery failed'));
}
