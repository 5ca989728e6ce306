// Failed authentication, limited per client address before any key lookup: an address may
// cause at most `limit` lookups that do not authenticate (unknown, revoked or expired keys) per
// window of `windowSeconds`; past it every request of that address that would need a lookup is
// answered 429 `auth_rate_limited` with Retry-After until the window ends. A lookup is counted
// when it starts and given back when it authenticates, so a burst of concurrent guesses cannot
// slip past the limit between a check and a count.
// Counted in Redis (one counter per address under `{factura:authfail}`, so every API process
// shares it), with a per-process counter of the same rule as the fallback while Redis does not
// answer — the database stays protected through a Redis outage.
// The address is the peer's, or the client's named in X-Forwarded-For by a proxy listed in
// TRUST_PROXY (Fastify's request.ip). IPv6 clients are counted per /64, the block one
// subscriber usually holds.
import { isIPv6 } from 'node:net';
import type { RedisClient } from '../platform/redis.ts';
import { luaScript, runScript, taggedPrefix } from '../platform/redis-keys.ts';
import { emulateScript } from '../platform/pg-redis.ts';

/** A Redis answer slower than this counts locally instead. */
const REDIS_TIMEOUT_MS = 250;
const MAX_LOCAL_ENTRIES = 10_000;

// KEYS[1] the address's counter; ARGV window (ms). Returns {count, ms until the window ends}.
const RESERVE = luaScript(`
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`);
const GIVE_BACK = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0
`);
// Their twins in embedded mode, where Postgres stands in for Redis (platform/pg-redis.ts).
emulateScript(RESERVE, async (tx, [key], [windowMs]) => {
  const n = await tx.incr(key!);
  let ttl = await tx.pttl(key!);
  if (ttl < 0) {
    await tx.pexpire(key!, Number(windowMs));
    ttl = Number(windowMs);
  }
  return [n, ttl];
});
emulateScript(GIVE_BACK, async (tx, [key]) => ((await tx.exists(key!)) ? tx.incr(key!, -1) : 0));

/** The unit an address is counted by: IPv4 as is (mapped IPv6 too), IPv6 by its /64. */
export function addressUnit(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const bare = ip.split('%')[0]!; // a link-local zone names the interface, not the client
  if (!isIPv6(bare)) return ip;
  // Groups of 16 bits; an embedded dotted IPv4 tail stands for two.
  const groups = (part: string) =>
    part ? part.split(':').flatMap((g) => (g.includes('.') ? ['v4', 'v4'] : [g])) : [];
  const [head = '', tail] = bare.toLowerCase().split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${all
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export interface Reservation {
  /** Over the limit: answer 429 with Retry-After `retryAfter` seconds, look nothing up. */
  blocked: boolean;
  retryAfter: number;
  /** Gives the count back (the lookup authenticated). */
  release(): void;
}

export class AuthFailures {
  private readonly local = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly deps: {
      redis: RedisClient;
      queuePrefix: string;
      limit: number;
      windowSeconds: number;
      onRedisError(err: unknown): void;
    },
  ) {}

  async reserve(ip: string): Promise<Reservation> {
    const unit = addressUnit(ip);
    const key = `${taggedPrefix(this.deps.queuePrefix, 'authfail')}:${unit}`;
    const windowMs = this.deps.windowSeconds * 1000;
    let count: number;
    let ttl: number;
    let release: () => void;
    try {
      [count, ttl] = (await bounded(runScript(this.deps.redis, RESERVE, [key], [windowMs]))) as [
        number,
        number,
      ];
      release = () => {
        runScript(this.deps.redis, GIVE_BACK, [key], []).catch(() => {});
      };
    } catch (err) {
      this.deps.onRedisError(err);
      [count, ttl] = this.reserveLocally(unit, windowMs);
      release = () => {
        const e = this.local.get(unit);
        if (e && e.count > 0) e.count -= 1;
      };
    }
    const blocked = count > this.deps.limit;
    return { blocked, retryAfter: Math.max(1, Math.ceil(ttl / 1000)), release: blocked ? () => {} : release };
  }

  private reserveLocally(unit: string, windowMs: number): [number, number] {
    const now = Date.now();
    let e = this.local.get(unit);
    if (!e || e.resetAt <= now) {
      if (!e && this.local.size >= MAX_LOCAL_ENTRIES) {
        for (const [k, v] of this.local) if (v.resetAt <= now) this.local.delete(k);
        if (this.local.size >= MAX_LOCAL_ENTRIES) this.local.clear();
      }
      e = { count: 0, resetAt: now + windowMs };
      this.local.set(unit, e);
    }
    e.count += 1;
    return [e.count, e.resetAt - now];
  }
}

function bounded<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${REDIS_TIMEOUT_MS} ms`)),
        REDIS_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}
