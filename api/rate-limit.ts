// Rate limits, counted in Redis so that every API process shares one count. A limit belongs to
// the company in one mode (live or sandbox): the plan's (business 50/s, corporate 500/s) or the
// company's own `rate_limit_per_second`, shared by all its keys, so minting keys does not
// multiply it. Within it a key may carry a lower limit of its own (`api_keys.rate_limit_per_second`).
// One Lua script checks both counts and adds the request to both only when both allow it (the
// requests of one turn of the event loop in one call, admitted in order); it owns one small
// hash per counter (`{factura:rl}:company:<id>:<live|test>`, `{factura:rl}:key:<id>`,
// each holding the current window and its count, one hash tag so the script is legal in Cluster)
// and uses Redis's clock, so processes with skewed clocks agree on windows.
// Fixed one-second windows. Every authenticated response carries `RateLimit-Policy: <limit>;w=1`
// and `RateLimit: limit=…, remaining=…, reset=<s>` (IETF draft) for the limit that binds — the
// one with fewer requests left; over it the answer is 429 `rate_limited` with `Retry-After` in
// whole seconds, naming which limit (company or key) was reached.
//
// Redis down (or slower than CHECK_TIMEOUT_MS): the request is let through (fail open) and a
// warning is logged at most every 10 s per process. An outage then costs throttling, not the
// API; `RateLimit` is left out of such responses because the count is unknown.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RedisClient } from '../platform/redis.ts';
import { companyRateLimit } from '../domain/scopes.ts';
import { luaScript, runScript, taggedPrefix } from '../platform/redis-keys.ts';
import { emulateScript } from '../platform/pg-redis.ts';
import type { AuthContext } from './auth.ts';
import { ApiError, validationError } from './errors.ts';

/** One-second windows, as the policy header says (`w=1`). */
export const WINDOW_MS = 1000;
/** A rate-limit check that takes longer than this lets the request through. */
const CHECK_TIMEOUT_MS = 500;
const WARN_EVERY_MS = 10_000;

// KEYS[1] the company's hash, KEYS[2] the key's; ARGV company limit, key limit (0: none), window
// (ms), n (requests checked together, in order). Admits the first k of the n that both counts
// allow and adds k to both; returns {k, company count before, key count before, ms until reset}.
// A refused request counts nowhere.
const HIT = luaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local climit = tonumber(ARGV[1])
local klimit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
local start = now - (now % window)
local reset = start + window - now
local function count(key)
  local cur = redis.call('HMGET', key, 'w', 'c')
  if cur[1] and tonumber(cur[1]) == start then return tonumber(cur[2]) end
  return 0
end
local function bump(key, c, k)
  if c == 0 then
    redis.call('HSET', key, 'w', start, 'c', k)
  else
    redis.call('HINCRBY', key, 'c', k)
  end
  redis.call('PEXPIRE', key, window * 2)
end
local cc = count(KEYS[1])
local kc = 0
if klimit > 0 then kc = count(KEYS[2]) end
local k = math.min(n, math.max(0, climit - cc))
if klimit > 0 then k = math.min(k, math.max(0, klimit - kc)) end
if k > 0 then
  bump(KEYS[1], cc, k)
  if klimit > 0 then bump(KEYS[2], kc, k) end
end
return {k, cc, kc, reset}
`);
// The same steps in embedded mode, where Postgres stands in for Redis (platform/pg-redis.ts).
emulateScript(HIT, async (tx, keys, argv) => {
  const [climit, klimit, window, n] = argv.map(Number) as [number, number, number, number];
  const now = await tx.time();
  const start = now - (now % window);
  const reset = start + window - now;
  const count = async (key: string) =>
    Number(await tx.hget(key, 'w')) === start ? Number((await tx.hget(key, 'c')) ?? 0) : 0;
  const bump = async (key: string, c: number, k: number) => {
    if (c === 0) await tx.hset(key, { w: start, c: k });
    else await tx.hincrby(key, 'c', k);
    await tx.pexpire(key, window * 2);
  };
  const cc = await count(keys[0]!);
  const kc = klimit > 0 ? await count(keys[1]!) : 0;
  let k = Math.min(n, Math.max(0, climit - cc));
  if (klimit > 0) k = Math.min(k, Math.max(0, klimit - kc));
  if (k > 0) {
    await bump(keys[0]!, cc, k);
    if (klimit > 0) await bump(keys[1]!, kc, k);
  }
  return [k, cc, kc, reset];
});

type LimitedAuth = Pick<AuthContext, 'plan' | 'rateLimitPerSecond'>;

/** Requests per second of the company in one mode, all keys together: its own figure, else its plan's. */
export function limitFor(auth: LimitedAuth): number {
  return companyRateLimit(auth.plan, auth.rateLimitPerSecond);
}

/** A new key's own limit: none, or at most the company's (422 otherwise). */
export function checkKeyLimit(auth: LimitedAuth, requested: number | undefined): number | null {
  if (requested === undefined) return null;
  const company = limitFor(auth);
  if (requested > company)
    throw validationError([
      {
        path: '/rate_limit_per_second',
        code: 'out_of_range',
        message: `must be at most ${company}, the company's limit in this mode`,
      },
    ]);
  return requested;
}

export function companyRateLimitKey(queuePrefix: string, companyId: number, livemode: boolean): string {
  return `${taggedPrefix(queuePrefix, 'rl')}:company:${companyId}:${livemode ? 'live' : 'test'}`;
}

export function rateLimitKey(queuePrefix: string, keyId: number | string): string {
  return `${taggedPrefix(queuePrefix, 'rl')}:key:${keyId}`;
}

/** Whose own limit a request counts against: its key, or the person (`u<user id>`). */
function callerOf(auth: AuthContext): number | string {
  return auth.actor.type === 'user' ? `u${auth.actor.userId}` : (auth.keyId ?? 0);
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

/** {allowed, company count, key count, ms until reset} of one request. */
type Hit = [number, number, number, number];

interface Batch {
  keys: [string, string];
  args: [number, number];
  waiters: { resolve: (h: Hit) => void; reject: (err: unknown) => void }[];
}

/**
 * The counts of requests whose checks start in the same turn of the event loop go to Redis in
 * one script call per (company, key): one round trip for a burst instead of one per request,
 * each request still admitted or refused in its order.
 */
function batchedHits(redis: RedisClient, queuePrefix: string) {
  let batches = new Map<string, Batch>();
  const flush = () => {
    const taken = batches;
    batches = new Map();
    for (const b of taken.values()) {
      const n = b.waiters.length;
      timeout(runScript(redis, HIT, b.keys, [...b.args, WINDOW_MS, n]), CHECK_TIMEOUT_MS).then(
        (res) => {
          const [k, cc, kc, reset] = (res as number[]).map(Number) as Hit;
          b.waiters.forEach((w, i) =>
            w.resolve(i < k ? [1, cc + i + 1, kc + i + 1, reset] : [0, cc + k, kc + k, reset]),
          );
        },
        (err: unknown) => b.waiters.forEach((w) => w.reject(err)),
      );
    }
  };
  return (auth: AuthContext, company: number, own: number): Promise<Hit> => {
    const keys: [string, string] = [
      companyRateLimitKey(queuePrefix, auth.companyId, auth.livemode),
      rateLimitKey(queuePrefix, callerOf(auth)),
    ];
    const id = `${keys[0]}|${keys[1]}|${company}|${own}`;
    return new Promise<Hit>((resolve, reject) => {
      let b = batches.get(id);
      if (!b) {
        if (!batches.size) setImmediate(flush);
        b = { keys, args: [company, own], waiters: [] };
        batches.set(id, b);
      }
      b.waiters.push({ resolve, reject });
    });
  };
}

/** Registers the check; it must come after the authentication hook (it needs request.auth). */
export function registerRateLimit(
  app: FastifyInstance,
  deps: { redis: RedisClient; queuePrefix: string },
): void {
  let lastWarning = 0;
  const hit = batchedHits(deps.redis, deps.queuePrefix);
  const warn = (request: FastifyRequest, err: unknown) => {
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    request.log.warn({ err }, 'rate limit check failed; letting requests through (fail open)');
  };

  app.addHook('onRequest', async (request, reply) => {
    const auth = request.auth;
    if (!auth) return;
    const company = limitFor(auth);
    const own = auth.keyRateLimitPerSecond ?? 0;
    const policy = (limit: number) => reply.header('ratelimit-policy', `${limit};w=${WINDOW_MS / 1000}`);
    policy(own > 0 ? Math.min(own, company) : company);
    let result: Hit;
    try {
      result = await hit(auth, company, own);
    } catch (err) {
      warn(request, err);
      return;
    }
    const [allowed, companyCount, keyCount, resetMs] = result;
    const companyLeft = company - companyCount;
    const keyLeft = own > 0 ? own - keyCount : Infinity;
    // The limit that binds: the one with fewer requests left (a refused request: the one reached).
    const byKey = keyLeft < companyLeft || (keyLeft === companyLeft && own > 0 && own < company);
    const limit = byKey ? own : company;
    const remaining = Math.max(0, byKey ? keyLeft : companyLeft);
    const reset = Math.max(1, Math.ceil(resetMs / 1000));
    policy(limit);
    reply.header('ratelimit', `limit=${limit}, remaining=${remaining}, reset=${reset}`);
    if (!allowed) {
      const mode = auth.livemode ? 'live' : 'sandbox';
      throw new ApiError(
        'rate_limited',
        byKey
          ? `This API key may make ${limit} requests per second; retry after ${reset} s`
          : `This company may make ${limit} requests per second in ${mode} mode, all its keys together; retry after ${reset} s`,
        {
          headers: { 'retry-after': String(reset) },
          fields: { limit, limit_scope: byKey ? 'key' : 'company' },
        },
      );
    }
  });
}
