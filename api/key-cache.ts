// A short-lived, per-process cache of found API keys: most requests then authenticate without
// a database round trip. Entries live 5 seconds; creating, revoking or rolling a key (API or
// command line) publishes on Redis and every API process of the deployment (its QUEUE_PREFIX)
// drops its cache at once (and whatever else registered with `onClear`, such as the unknown
// secrets). Expiry of a rolled secret is checked against the cached expires_at on every request,
// so it needs no invalidation.
import type { RedisClient } from '../platform/redis.ts';
import type { AuthRecord } from '../db/queries/api-keys.ts';
import { duplicateRedis } from '../platform/redis.ts';
import { keyChangesChannel } from '../platform/redis-keys.ts';

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { record: AuthRecord | null; at: number }>();

  constructor(private readonly onClear: () => void = () => {}) {}

  get(secret: string): AuthRecord | null | undefined {
    const e = this.entries.get(secret);
    if (!e) return undefined;
    if (Date.now() - e.at > TTL_MS) {
      this.entries.delete(secret);
      return undefined;
    }
    return e.record;
  }

  set(secret: string, record: AuthRecord | null): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(secret, { record, at: Date.now() });
  }

  clear(): void {
    this.entries.clear();
    this.onClear();
  }

  /** Drops the cache whenever a process of the deployment announces a key change. Returns the unsubscribe. */
  async follow(
    redis: RedisClient,
    queuePrefix: string,
    onError: (err: unknown) => void,
  ): Promise<() => Promise<void>> {
    const sub = duplicateRedis(redis, { enableOfflineQueue: true, maxRetriesPerRequest: null });
    sub.on('error', onError);
    sub.on('message', () => this.clear());
    // While disconnected, changes could be missed: start clean after every reconnect.
    sub.on('ready', () => this.clear());
    sub.subscribe(keyChangesChannel(queuePrefix)).catch(onError);
    return async () => {
      sub.disconnect();
    };
  }
}
