// Finding the key behind a secret, cheapest first, so that invalid keys cannot load Postgres:
// 1. the per-process cache of found keys (api/key-cache.ts, 5 s): no I/O;
// 2. the client address's failed-authentication budget (api/auth-failures.ts, one Redis call):
//    over it, 429 auth_rate_limited and nothing is looked up — unless the secret authenticated
//    recently on this process (api/secret-memory.ts), which only a real key's holder can show;
// 3. the per-process memory of unknown secrets (api/secret-memory.ts): 401 without a lookup;
// 4. the database. A secret that matches nothing is remembered as unknown; a lookup that ends in
//    an authenticated key gives its unit of the address's budget back.
// Concurrent requests of one address with one secret share a single pass through 2–4: a client
// starting many requests at once with a key this process has not seen yet spends one unit and one
// lookup, not one each (which could exceed the budget and answer 429 to a valid key).
import type { FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import type { RedisClient } from '../platform/redis.ts';
import { findKeyBySecret, type AuthRecord } from '../db/queries/api-keys.ts';
import { AuthFailures } from './auth-failures.ts';
import { ApiError } from './errors.ts';
import { KeyCache } from './key-cache.ts';
import { SecretMemory } from './secret-memory.ts';

const UNKNOWN_TTL_MS = 30_000;
const UNKNOWN_MAX = 20_000;
const AUTHENTICATED_TTL_MS = 600_000;
const AUTHENTICATED_MAX = 10_000;

export interface KeyLookupOptions {
  db: Knex;
  redis: RedisClient;
  queuePrefix: string;
  /** Failed authentications per address and window before 429. */
  failureLimit: number;
  failureWindowSeconds: number;
  onRedisError(err: unknown): void;
}

/** Whether a record lets its request through authentication (plan checks come after). */
function authenticates(record: AuthRecord): boolean {
  return !record.revokedAt && !(record.expiresAt && record.expiresAt.getTime() <= Date.now());
}

declare module 'fastify' {
  interface FastifyInstance {
    keyLookup: KeyLookup;
  }
}

export class KeyLookup {
  readonly unknown = new SecretMemory(UNKNOWN_TTL_MS, UNKNOWN_MAX);
  private readonly authenticated = new SecretMemory(AUTHENTICATED_TTL_MS, AUTHENTICATED_MAX);
  /** Known keys; cleared (with the unknown secrets) on every key change announced over Redis. */
  readonly cache = new KeyCache(() => this.unknown.clear());
  /** Database lookups made (for /metrics and the tests that bound them). */
  lookups = 0;
  private readonly failures: AuthFailures;
  /** Passes in progress, by client address and secret: the requests that arrive meanwhile join them. */
  private readonly inFlight = new Map<string, Promise<AuthRecord | null>>();

  constructor(private readonly options: KeyLookupOptions) {
    this.failures = new AuthFailures({
      redis: options.redis,
      queuePrefix: options.queuePrefix,
      limit: options.failureLimit,
      windowSeconds: options.failureWindowSeconds,
      onRedisError: options.onRedisError,
    });
  }

  /** The key record of `secret`, or null when it matches no key; throws 429 over the budget. */
  async find(request: FastifyRequest, secret: string): Promise<AuthRecord | null> {
    const known = this.cache.get(secret);
    if (known) return known;
    const key = `${request.ip}\n${secret}`;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const pass = this.lookUp(request, secret).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, pass);
    return pass;
  }

  /** Steps 2–4 for one secret of one address (find joins concurrent ones). */
  private async lookUp(request: FastifyRequest, secret: string): Promise<AuthRecord | null> {
    const reservation = this.authenticated.has(secret) ? null : await this.failures.reserve(request.ip);
    if (reservation?.blocked) {
      throw new ApiError(
        'auth_rate_limited',
        `Too many failed authentications from this address; retry after ${reservation.retryAfter} s`,
        { headers: { 'retry-after': String(reservation.retryAfter) } },
      );
    }
    if (this.unknown.has(secret)) return null;
    let record: AuthRecord | null;
    try {
      this.lookups += 1;
      record = (await findKeyBySecret(this.options.db, secret)) ?? null;
    } catch (err) {
      reservation?.release(); // the database failed, not the client
      throw err;
    }
    if (!record) {
      this.unknown.add(secret);
      return null;
    }
    this.cache.set(secret, record);
    if (authenticates(record)) {
      reservation?.release();
      this.authenticated.add(secret);
    } else this.authenticated.delete(secret); // revoked or expired since
    return record;
  }
}
