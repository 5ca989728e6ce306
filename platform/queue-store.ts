// Where the queues and the service's Redis-side state live: Redis (the normal mode), or, in
// embedded mode (config.embedded, one machine without Redis), Postgres: BullMQ on its Postgres
// backend (its tables in the `bullmq` schema, migrated by whoever connects first) and the
// counters, caches and notes in the Postgres stand-in of platform/pg-redis.ts. Entry points ask here
// once at boot; nothing per request.
import { createPostgresBackend, setDefaultBackendFactory, type ConnectionOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import type { Config } from '../config/index.ts';
import { bullConnection, createRedis, type RedisClient } from './redis.ts';
import { createPgRedis, PgRedis } from './pg-redis.ts';

type StoreConfig = Pick<Config, 'embedded' | 'redisUrl' | 'databaseUrl'>;

/** The Postgres schema of BullMQ's tables in embedded mode. */
export const BULLMQ_SCHEMA = 'bullmq';

/**
 * What BullMQ connects with. Embedded mode also makes the Postgres backend this process's
 * default, so every Queue, Worker and FlowProducer built with the connection uses it.
 */
export function queueConnection(config: StoreConfig): ConnectionOptions {
  if (!config.embedded) return bullConnection(config.redisUrl) as ConnectionOptions;
  setDefaultBackendFactory(createPostgresBackend);
  // Each queue, worker and flow producer gets a small pool of its own (plus a LISTEN connection
  // for a worker): the embedded server allows enough connections (scripts/embedded-postgres.ts).
  return {
    connectionString: config.databaseUrl,
    schema: BULLMQ_SCHEMA,
    max: 3,
    migrate: true,
    application_name: 'factura-queues',
  } as unknown as ConnectionOptions;
}

/**
 * A connection for the service's own keys (rate limits, counters, notes, key changes): Redis,
 * or its Postgres stand-in in embedded mode, which answers the same calls.
 */
export function openStore(
  config: StoreConfig,
  role: 'api' | 'worker',
  extra: RedisOptions = {},
): RedisClient {
  if (config.embedded)
    return createPgRedis(config.databaseUrl, `factura-kv-${role}`) as unknown as RedisClient;
  return createRedis(config.redisUrl, role, extra);
}

/** True for the embedded mode's stand-in (whose BullMQ jobs are not Redis hashes). */
export function isPostgresStore(store: RedisClient): boolean {
  return (store as unknown) instanceof PgRedis;
}
