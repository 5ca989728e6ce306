// Key changes are announced to the API processes of one deployment (its QUEUE_PREFIX) only: a
// process drops its key cache and its unknown secrets when a key of its own deployment changes,
// not when another deployment sharing the Redis server creates, rolls or revokes one.
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { KeyCache } from '../api/key-cache.ts';
import { createRedis } from '../platform/redis.ts';
import { announceKeyChange } from '../platform/redis-keys.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { waitFor } from './helpers/wait.ts';

const redis = createRedis(testRedisUrl(), 'worker');
afterAll(() => redis.disconnect());

it("drops the cache on its own deployment's key changes, not on another's", async () => {
  const ours = `{t-keys-${randomBytes(3).toString('hex')}}`;
  const theirs = `{t-keys-${randomBytes(3).toString('hex')}}`;
  let cleared = 0;
  const cache = new KeyCache(() => (cleared += 1));
  const unfollow = await cache.follow(redis, ours, () => {});
  try {
    await waitFor(() => cleared > 0, 5000, 20, 'the subscription'); // cleared once when ready
    const before = cleared;
    await announceKeyChange(redis, theirs);
    // The announcement of our own that follows arrives after theirs on the same connection: once
    // ours has cleared the cache, theirs has been delivered or dropped.
    await announceKeyChange(redis, ours);
    await waitFor(() => cleared > before, 5000, 20, 'our key change to arrive');
    await new Promise((r) => setTimeout(r, 200));
    expect(cleared).toBe(before + 1);
  } finally {
    await unfollow();
  }
});
