// Injected faults of the reception API: one draw of the seeded generator per request decides
// between a hang (the client times out), a 5xx and a 429, with the knobs' rates adding up.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorContext } from './context.ts';
import { rateHeaders } from './rate-limit.ts';

export type Fault = 'timeout' | 'server_error' | 'rate_limited' | null;

// What a struggling gateway in front of the service answers.
const SERVER_ERRORS = [500, 502, 503, 504];

export function drawFault(ctx: SimulatorContext): Fault {
  const k = ctx.knobs;
  if (k.timeoutRate + k.serverErrorRate + k.rateLimitedRate <= 0) return null;
  const r = ctx.random.next();
  if (r < k.timeoutRate) return 'timeout';
  if (r < k.timeoutRate + k.serverErrorRate) return 'server_error';
  if (r < k.timeoutRate + k.serverErrorRate + k.rateLimitedRate) return 'rate_limited';
  return null;
}

/** Holds the request without answering until the client gives up or the hang time passes. */
export async function hang(
  ctx: SimulatorContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  ctx.counters.injectedTimeouts += 1;
  reply.hijack();
  const socket = request.raw.socket;
  if (socket.destroyed) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      ctx.hanging.delete(kill);
      resolve();
    };
    const kill = () => {
      socket.destroy();
      done();
    };
    const timer = setTimeout(kill, ctx.knobs.timeoutHangMs);
    socket.once('close', done);
    ctx.hanging.add(kill);
  });
}

export function serverError(ctx: SimulatorContext, reply: FastifyReply): FastifyReply {
  ctx.counters.injectedServerErrors += 1;
  const status = SERVER_ERRORS[Math.floor(ctx.random.next() * SERVER_ERRORS.length)] ?? 503;
  return reply.code(status).header('content-type', 'text/plain; charset=utf-8').send('Service Unavailable');
}

/** An injected 429: Retry-After and a window that resets when it says. */
export function injectedRateLimit(ctx: SimulatorContext, reply: FastifyReply): FastifyReply {
  ctx.counters.injectedRateLimits += 1;
  const seconds = ctx.knobs.retryAfterSeconds;
  const limit = Number(reply.getHeader('x-ratelimit-limit') ?? ctx.knobs.rateLimitPerWindow);
  return reply
    .code(429)
    .headers(rateHeaders({ limit, remaining: 0, resetAt: ctx.now() + seconds * 1000 }))
    .header('retry-after', String(Math.ceil(seconds)))
    .send();
}

/** Hacienda's X-Error-Cause travels in a header: keep it to Latin-1 and one line. */
export function errorCause(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '?');
}
