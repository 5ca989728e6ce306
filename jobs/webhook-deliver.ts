// Job `webhook.deliver` (queue `webhooks`): one POST of one event to one endpoint.
// Payload: ids only — { v: 1, eventId, endpointId, round }. Job id `webhook-<eventId>-<endpointId>`
// (`…-r<round>` for redelivery rounds), so a repeated fan-out enqueues nothing twice.
// How it ends: 2xx → delivered; 410 Gone → the endpoint is disabled and the delivery failed
// (no retry); anything else or a timeout → the attempt is recorded and the job throws, to be
// retried by the `webhook` backoff (exponential with jitter) until its attempts are used up.
import { createHash } from 'node:crypto';
import type { BackoffStrategy, Job, JobsOptions } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { eventEnvelope } from '../db/public-objects.ts';
import {
  abandonDelivery,
  beginAttempt,
  disableEndpoint,
  finishAttempt,
  loadDeliveryContext,
  type DeliveryContext,
} from '../db/queries/webhooks.ts';
import { formatId } from '../domain/ids.ts';
import { keepCompleted } from './catalogue.ts';
import { webhookRetryDelay } from '../domain/webhook-backoff.ts';
import { signWebhookPayload } from '../domain/webhook-signature.ts';
import { open } from '../hacienda/secret-box.ts';
import { postWebhook } from './webhook-http.ts';
import { metrics, webhookOutcome } from './metrics.ts';

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
}

export function webhookJobId(d: Pick<WebhookJobData, 'eventId' | 'endpointId' | 'round'>): string {
  const base = `webhook-${d.eventId}-${d.endpointId}`;
  return d.round === 0 ? base : `${base}-r${d.round}`;
}

/** Completed jobs are kept a bounded time and count (jobs/catalogue.ts); failed ones a week. */
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
  db: Knex;
  log: Logger;
  config: Config;
  now: () => Date;
}

function signingSecrets(ctx: WebhookContext, endpoint: DeliveryContext): string[] {
  const secrets = [open(ctx.config.secretsKey, endpoint.secretEnc).toString('utf8')];
  if (
    endpoint.previousSecretEnc &&
    endpoint.previousSecretExpiresAt &&
    new Date(endpoint.previousSecretExpiresAt).getTime() > ctx.now().getTime()
  ) {
    secrets.push(open(ctx.config.secretsKey, endpoint.previousSecretEnc).toString('utf8'));
  }
  return secrets;
}

export async function deliverWebhook(job: Job<WebhookJobData>, ctx: WebhookContext): Promise<string> {
  const { db } = ctx;
  const { eventId, endpointId, round } = job.data;

  // 1. State check: the delivery (created here if the fan-out has not committed yet), its round.
  const delivery = await loadDeliveryContext(db, eventId, endpointId);
  if (!delivery) return 'event or endpoint no longer exists';
  if (delivery.round > round) return `superseded by redelivery round ${delivery.round}`;
  if (delivery.status !== 'pending') return `already ${delivery.status}`;
  if (delivery.deletedAt || delivery.disabledAt) {
    const why = `endpoint ${delivery.deletedAt ? 'deleted' : 'disabled'}`;
    await abandonDelivery(db, delivery.deliveryId, round, why);
    return why;
  }

  // 2. The body (the same bytes on every attempt) and its signature (fresh timestamp).
  const body = JSON.stringify(eventEnvelope(delivery.event));
  const timestamp = Math.floor(ctx.now().getTime() / 1000);
  const signature = signWebhookPayload(body, signingSecrets(ctx, delivery), timestamp);

  // 3. Record the attempt, then send.
  const { attemptId, attemptNumber } = await beginAttempt(db, delivery.deliveryId, round);
  const result = await postWebhook({
    url: delivery.url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'service-signature': signature,
      'service-event-id': formatId('event', eventId),
      'service-delivery-id': formatId('webhookDelivery', delivery.deliveryId),
      'service-delivery-attempt': String(attemptNumber),
    },
    timeoutMs: ctx.config.webhooks.timeoutMs,
    publicOnly: delivery.livemode || !ctx.config.webhooks.sandboxAllowPrivate,
  });

  // 4. The outcome.
  const ids = { attemptId, deliveryId: delivery.deliveryId, round };
  const status = result.statusCode;
  metrics.webhookDelivery(webhookOutcome(status, result.error), result.durationMs / 1000);
  if (status !== null && status >= 200 && status < 300) {
    await finishAttempt(db, ids, result, { status: 'delivered', nextAttemptAt: null });
    return `delivered (${status})`;
  }
  if (status === 410) {
    await finishAttempt(db, ids, result, { status: 'failed', nextAttemptAt: null });
    await disableEndpoint(db, endpointId, 'the receiver answered 410 Gone');
    ctx.log.info({ endpointId, eventId }, 'webhook endpoint answered 410 Gone; disabled');
    return 'gone: endpoint disabled';
  }
  const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const delay = nextRetryDelay(job.id ?? '', job.attemptsMade + 1, ctx.config.webhooks.backoffBaseMs);
  await finishAttempt(db, ids, result, {
    status: last ? 'failed' : 'pending',
    nextAttemptAt: last ? null : new Date(Date.now() + delay),
  });
  throw new Error(status !== null ? `receiver answered ${status}` : (result.error ?? 'delivery failed'));
}
