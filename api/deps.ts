// What the API is built from: the handles server.ts (or a test) passes to buildApp and every
// route module receives. A type module: it imports no route and no part of the app, so route
// modules depend on it and never on app.ts or on each other.
import type { Knex } from 'knex';
import type { Queue } from 'bullmq';
import type { RedisClient } from '../platform/redis.ts';
import type { Config } from '../config/index.ts';

export interface AppDeps {
  config: Config;
  db: Knex;
  redis: RedisClient;
  /**
   * The invoice-status queue (of a company's shard, platform/shards.ts), so Hacienda's callbacks can
   * wake a waiting status job.
   */
  statusQueue?: Queue | ((companyId: number) => Queue);
  /** Queues shown in Bull Board at /admin/queues (none: no board). */
  adminQueues?: Queue[];
}
