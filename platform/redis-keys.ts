// Redis key and channel names beside BullMQ's. Each concern gets its own Redis Cluster hash tag
// derived from the queue prefix (`{factura}` → `{factura:rl}`), so its keys live in one slot
// (scripts and RENAME-style moves stay legal in Cluster) without crowding the queues' slot. Also
// the key-change announcement, and a small EVALSHA-with-fallback helper for the Lua scripts that
// own those keys.
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis.ts';

/** `{factura}` + `rl` → `{factura:rl}`; a prefix without braces gets `prefix:rl`. */
export function taggedPrefix(queuePrefix: string, concern: string): string {
  const m = /^\{(.+)\}$/.exec(queuePrefix);
  return m ? `{${m[1]}:${concern}}` : `${queuePrefix}:${concern}`;
}

/**
 * The channel on which an API key's creation, roll or revocation is announced to the API
 * processes of the deployment (its queue prefix), which drop their key caches; another deployment
 * on the same Redis has its own.
 */
export function keyChangesChannel(queuePrefix: string): string {
  return `${taggedPrefix(queuePrefix, 'keys')}:changed`;
}

/** Announces a key change (best effort: caches also expire on their own within seconds). */
export async function announceKeyChange(redis: RedisClient, queuePrefix: string): Promise<void> {
  await redis.publish(keyChangesChannel(queuePrefix), String(Date.now())).catch(() => 0);
}

export interface LuaScript {
  source: string;
  sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** EVALSHA, loading the script with EVAL when the server does not know it yet. */
export async function runScript(
  redis: RedisClient,
  script: LuaScript,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (!/NOSCRIPT/.test((err as Error).message)) throw err;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
