// Redis connections. Workers block on Redis and must retry forever (maxRetriesPerRequest: null,
// as BullMQ requires); the API fails fast instead, so a Redis outage becomes a quick 503 rather
// than a hung request.
import { Redis, type RedisOptions } from 'ioredis';

export function createRedis(url: string, role: 'api' | 'worker', extra: RedisOptions = {}): Redis {
  const options: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, ...extra };
  return new Redis(url, { lazyConnect: false, ...options });
}

/** Published when an API key is revoked or rolled; API processes drop their key caches. */
export const KEY_CHANGES_CHANNEL = 'factura:api-keys:changed';

/** Announces a key change (best effort: caches also expire on their own within seconds). */
export async function announceKeyChange(redis: Redis): Promise<void> {
  await redis.publish(KEY_CHANGES_CHANNEL, String(Date.now())).catch(() => 0);
}

/** BullMQ connection options from a redis:// or rediss:// URL (BullMQ needs maxRetriesPerRequest: null). */
export function bullConnection(url: string): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

/** Resolves once the connection is ready, or rejects with the first connection error. */
export async function waitForRedis(redis: Redis, timeoutMs = 5000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
    };
    redis.once('ready', onReady);
    redis.once('error', onError);
  });
}
