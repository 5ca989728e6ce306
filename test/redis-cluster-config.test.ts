// Choosing a Redis Cluster and queue shards by configuration: the variables, the URL the
// connection factory reads, and the shard layout (the default keeps the single-Redis key names).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/index.ts';
import { describeConnectionFailure } from '../db/reachability.ts';
import { chunkFlow, makeChunks } from '../jobs/invoice-flow/flow.ts';
import { isClusterUrl, parseClusterUrl } from '../platform/redis.ts';
import { shardOf, shardPrefixes } from '../platform/shards.ts';

const env = { NODE_ENV: 'test', SECRETS_KEY: 'a'.repeat(64) };

describe('Redis Cluster configuration', () => {
  it('takes REDIS_CLUSTER_NODES over REDIS_URL, or a redis+cluster:// URL', () => {
    const a = loadConfig({
      ...env,
      REDIS_URL: 'redis://x:6379',
      REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7001',
    });
    expect(a.redisUrl).toBe('redis+cluster://10.0.0.1:7000,10.0.0.2:7001');
    expect(isClusterUrl(a.redisUrl)).toBe(true);
    const b = loadConfig({ ...env, REDIS_URL: 'redis+cluster://app:s%40cret@h1:7000,h2:7001' });
    expect(parseClusterUrl(b.redisUrl)).toEqual({
      nodes: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 7001 },
      ],
      auth: { username: 'app', password: 's@cret' },
    });
    expect(isClusterUrl(loadConfig(env).redisUrl)).toBe(false);
  });

  it('refuses nodes that are not host:port, naming the variable', () => {
    expect(() => loadConfig({ ...env, REDIS_CLUSTER_NODES: '10.0.0.1:7000,nohost' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, REDIS_CLUSTER_NODES: '10.0.0.1' })).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => loadConfig({ ...env, QUEUE_SHARDS: '0' })).toThrow(/QUEUE_SHARDS/);
  });

  it("hides a cluster URL's password in start-up errors", () => {
    const text = describeConnectionFailure(
      'redis',
      'redis+cluster://app:hunter2@h1:7000,h2:7001',
      new Error('x'),
    );
    expect(text).not.toContain('hunter2');
    expect(text).toContain('redis+cluster://app:***@h1:7000,h2:7001');
  });
});

describe('queue shards', () => {
  it('one shard (the default) keeps the plain prefix; more get a hash tag each', () => {
    expect(loadConfig(env).queueShards).toBe(1);
    expect(shardPrefixes('{factura}', 1)).toEqual(['{factura}']);
    expect(shardPrefixes('{factura}', 3)).toEqual(['{factura:q0}', '{factura:q1}', '{factura:q2}']);
    expect([1, 2, 3, 4].map((c) => shardOf(c, 3))).toEqual([1, 2, 0, 1]);
    expect(shardOf(7, 1)).toBe(0);
  });

  it("puts every job of a chunk's flow under its shard's prefix, and none without one", () => {
    const [chunk] = makeChunks([{ invoiceId: 5, companyId: 2, livemode: false }], 50);
    expect(chunk!.companyId).toBe(2);
    const prefixes: (string | undefined)[] = [];
    const walk = (node: ReturnType<typeof chunkFlow>) => {
      prefixes.push(node.prefix);
      node.children?.forEach(walk);
    };
    walk(chunkFlow(chunk!, 'sign', '{factura:q2}'));
    expect(prefixes).toEqual(['{factura:q2}', '{factura:q2}', '{factura:q2}', '{factura:q2}']);
    prefixes.length = 0;
    walk(chunkFlow(chunk!));
    expect(prefixes).toEqual([undefined, undefined, undefined, undefined]);
  });
});
