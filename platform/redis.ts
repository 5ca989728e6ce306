// Redis connections, every one of them made here: one server (`redis://`, `rediss://`) or a Redis
// Cluster (`redis+cluster://host:port,host:port`, config/index.ts), which gets an ioredis Cluster
// client. Workers block on Redis and must retry forever (maxRetriesPerRequest: null, as BullMQ
// requires); the API fails fast instead, so a Redis outage becomes a quick 503 rather than a hung
// request. Keys that a script or a pipeline touches together share a hash tag (redis-keys.ts,
// shards.ts), so both kinds of server run the same commands.
import { Cluster, Redis, type ClusterNode, type RedisOptions } from 'ioredis';

/** A connection to one server or to a Cluster (both run every command this service sends). */
export type RedisClient = Redis | Cluster;

const CLUSTER_SCHEME = 'redis+cluster://';

export function isClusterUrl(url: string): boolean {
  return url.startsWith(CLUSTER_SCHEME);
}

/** `redis+cluster://[user:password@]h:p,h:p` → the seed nodes and the credentials. */
export function parseClusterUrl(url: string): { nodes: ClusterNode[]; auth: RedisOptions } {
  let rest = url.slice(CLUSTER_SCHEME.length).replace(/\/.*$/, '');
  const auth: RedisOptions = {};
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const [user, password] = rest.slice(0, at).split(':');
    if (user) auth.username = decodeURIComponent(user);
    if (password) auth.password = decodeURIComponent(password);
    rest = rest.slice(at + 1);
  }
  const nodes = rest.split(',').map((hp) => {
    const [host, port] = hp.trim().split(':');
    return { host: host!, port: Number(port) };
  });
  return { nodes, auth };
}

// Options a Cluster takes at its top level rather than per node.
const CLUSTER_LEVEL = ['enableOfflineQueue', 'retryStrategy', 'lazyConnect', 'enableReadyCheck'] as const;

function openCluster(url: string, options: RedisOptions): Cluster {
  const { nodes, auth } = parseClusterUrl(url);
  const perNode: Record<string, unknown> = { ...auth, ...options };
  for (const k of CLUSTER_LEVEL) delete perNode[k];
  const retry = options.retryStrategy;
  return new Cluster(nodes, {
    redisOptions: perNode as RedisOptions,
    ...(options.enableOfflineQueue === undefined ? {} : { enableOfflineQueue: options.enableOfflineQueue }),
    ...(options.lazyConnect === undefined ? {} : { lazyConnect: options.lazyConnect }),
    ...(options.enableReadyCheck === undefined ? {} : { enableReadyCheck: options.enableReadyCheck }),
    // A Cluster retries reaching its seed nodes with clusterRetryStrategy.
    ...(retry === undefined ? {} : { clusterRetryStrategy: (times: number) => retry?.(times) }),
    // After a failover the replica's promotion must be learnt quickly.
    slotsRefreshTimeout: 2000,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
  });
}

function open(url: string, options: RedisOptions): RedisClient {
  return isClusterUrl(url) ? openCluster(url, options) : new Redis(url, options);
}

export function createRedis(url: string, role: 'api' | 'worker', extra: RedisOptions = {}): RedisClient {
  const options: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, ...extra };
  return open(url, { lazyConnect: false, ...options });
}

/** A second connection to the same server or Cluster, with some options changed (a subscriber). */
export function duplicateRedis(redis: RedisClient, override: RedisOptions): RedisClient {
  if (redis instanceof Cluster) {
    const { enableOfflineQueue, maxRetriesPerRequest, ...rest } = override;
    return redis.duplicate(undefined, {
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      redisOptions: { ...redis.options.redisOptions, ...rest, maxRetriesPerRequest },
    });
  }
  return redis.duplicate(override);
}

/**
 * What BullMQ connects with. One server: connection options from the URL, so each Queue, Worker
 * and FlowProducer opens its own connection (BullMQ needs maxRetriesPerRequest: null). A Cluster:
 * one Cluster client the caller's queues share (BullMQ duplicates it for each Worker's blocking
 * connection); whoever asked for it closes it after them.
 */
export function bullConnection(url: string): RedisOptions | Cluster {
  if (isClusterUrl(url)) return openCluster(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
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

/** Closes a connection bullConnection opened for a Cluster (options for one server need nothing). */
export async function closeBullConnection(connection: unknown): Promise<void> {
  if (connection instanceof Cluster) await connection.quit().catch(() => connection.disconnect());
}

/** Resolves once the connection is ready, or rejects with the first connection error. */
export async function waitForRedis(redis: RedisClient, timeoutMs = 5000): Promise<void> {
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

/**
 * Resolves once the connection is ready, however long that takes (the client keeps reconnecting
 * on its own): a process started during a Redis outage waits for it instead of exiting. Until
 * then `onWait` hears why, on the first failure and then at most every `everyMs`.
 */
export async function untilRedisReady(
  redis: RedisClient,
  onWait: (err: Error, waited: { first: boolean; ms: number }) => void,
  everyMs = 10_000,
): Promise<void> {
  if (redis.status === 'ready') return;
  const since = Date.now();
  let told = -Infinity;
  const onError = (err: Error) => {
    if (Date.now() - told < everyMs) return;
    const first = told < 0;
    told = Date.now();
    onWait(err, { first, ms: told - since });
  };
  redis.on('error', onError);
  try {
    await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  } finally {
    redis.off('error', onError);
  }
}
