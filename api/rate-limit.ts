// Rate limits per API key, counted in Redis so that every API process shares one count. A Lua
// script owns one small hash per key (`{factura:rl}:key:<id>` holding the current window and
// its count) and uses Redis's clock, so processes with skewed clocks still agree on windows.
// Fixed one-second windows: the limit is the plan's (business 50/s, corporate 500/s) unless the
// company has its own `rate_limit_per_second`. Every authenticated response carries
// `RateLimit-Policy: <limit>;w=1` and `RateLimit: limit=…, remaining=…, reset=<s>` (IETF
// draft); over the limit the answer is 429 `rate_limited` with `Retry-After` in whole seconds.
//
// Redis down (or slower than CHECK_TIMEOUT_MS): the request is let through (fail open) and a
// warning is logged at most every 10 s per process. An outage then costs throttling, not the
// API; `RateLimit` is left out of such responses because the count is unknown.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { PLAN_RATE_LIMITS, type Plan } from '../domain/scopes.ts';
import { luaScript, runScript, taggedPrefix } from '../jobs/redis-keys.ts';
import type { AuthContext } from './auth.ts';
import { ApiError } from './errors.ts';

/** One-second windows, as the policy header says (`w=1`). */
export const WINDOW_MS = 1000;
/** A rate-limit check that takes longer than this lets the request through. */
const CHECK_TIMEOUT_MS = 500;
const WARN_EVERY_MS = 10_000;

// KEYS[1] the key's hash; ARGV limit, window (ms). Returns {allowed, count, ms until reset}.
const HIT = luaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local start = now - (now % window)
local cur = redis.call('HMGET', KEYS[1], 'w', 'c')
local count = 0
if cur[1] and tonumber(cur[1]) == start then count = tonumber(cur[2]) end
local reset = start + window - now
if count >= limit then return {0, count, reset} end
if count == 0 then
  redis.call('HSET', KEYS[1], 'w', start, 'c', 1)
else
  redis.call('HINCRBY', KEYS[1], 'c', 1)
end
redis.call('PEXPIRE', KEYS[1], window * 2)
return {1, count + 1, reset}
`);

/** Requests per second a key may make: the company's own figure, else its plan's. */
export function limitFor(auth: Pick<AuthContext, 'plan' | 'rateLimitPerSecond'>): number {
  if (auth.rateLimitPerSecond && auth.rateLimitPerSecond > 0) return auth.rateLimitPerSecond;
  return PLAN_RATE_LIMITS[auth.plan as Plan] || PLAN_RATE_LIMITS.business;
}

export function rateLimitKey(queuePrefix: string, keyId: number): string {
  return `${taggedPrefix(queuePrefix, 'rl')}:key:${keyId}`;
}

function timeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Registers the check; it must come after the authentication hook (it needs request.auth). */
export function registerRateLimit(app: FastifyInstance, deps: { redis: Redis; queuePrefix: string }): void {
  let lastWarning = 0;
  const warn = (request: FastifyRequest, err: unknown) => {
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    request.log.warn({ err }, 'rate limit check failed; letting requests through (fail open)');
  };

  app.addHook('onRequest', async (request, reply) => {
    const auth = request.auth;
    if (!auth) return;
    const limit = limitFor(auth);
    reply.header('ratelimit-policy', `${limit};w=${WINDOW_MS / 1000}`);
    let result: [number, number, number];
    try {
      result = (await timeout(
        runScript(deps.redis, HIT, [rateLimitKey(deps.queuePrefix, auth.keyId)], [limit, WINDOW_MS]),
        CHECK_TIMEOUT_MS,
      )) as [number, number, number];
    } catch (err) {
      warn(request, err);
      return;
    }
    const [allowed, count, resetMs] = result;
    const reset = Math.max(1, Math.ceil(resetMs / 1000));
    reply.header('ratelimit', `limit=${limit}, remaining=${Math.max(0, limit - count)}, reset=${reset}`);
    if (!allowed) {
      throw new ApiError(
        'rate_limited',
        `This API key may make ${limit} requests per second; retry after ${reset} s`,
        { headers: { 'retry-after': String(reset) }, fields: { limit } },
      );
    }
  });
}
