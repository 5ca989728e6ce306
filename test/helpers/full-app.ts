// The whole HTTP surface in one process for inject(): the API, the docs, the dashboard, /metrics
// and Bull Board behind admin credentials, on a fresh database and its own queue prefix. Logs go
// to an array the test can read (and grep), not to stdout.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { RedisClient } from '../../platform/redis.ts';
import { buildApp } from '../../api/app.ts';
import { buildSimulator } from '../../simulator/app.ts';
import type { Config } from '../../config/index.ts';
import { QUEUES } from '../../jobs/invoice-flow/queues.ts';
import { bullConnection, createRedis, waitForRedis } from '../../platform/redis.ts';
import { testConfig } from './app.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export interface FullApp {
  app: FastifyInstance;
  database: TestDatabase;
  redis: RedisClient;
  config: Config;
  admin: { user: string; password: string };
  /** Every log line the app wrote (JSON), in order. */
  logs: string[];
  close(): Promise<void>;
}

export async function startFullApp(
  o: { env?: Record<string, string>; logLevel?: string; bodyLimit?: number } = {},
): Promise<FullApp> {
  const database = await createTestDatabase();
  const prefix = `{t${randomBytes(4).toString('hex')}}`;
  const admin = { user: 'ops', password: randomBytes(12).toString('base64url') };
  // Hacienda's public services (taxpayers, dollar rate) are answered by a simulator of the app's own.
  const sim = await buildSimulator({ admin: false, logger: false });
  const simUrl = await sim.listen({ port: 0, host: '127.0.0.1' });
  const config = testConfig({
    DATABASE_URL: database.url,
    HACIENDA_PUBLIC_API_URL: simUrl,
    QUEUE_PREFIX: prefix,
    ADMIN_USER: admin.user,
    ADMIN_PASSWORD: admin.password,
    // Counters stay in Redis during a test (a timed flush would add usage rows at random moments).
    USAGE_FLUSH_MS: '3600000',
    ...o.env,
  });
  const redis = createRedis(config.redisUrl, 'api');
  await waitForRedis(redis);
  const connection = bullConnection(config.redisUrl) as ConnectionOptions;
  const queues = Object.values(QUEUES).map((name) => new Queue(name, { connection, prefix }));
  for (const q of queues) q.on('error', () => {});
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      if (logs.length < 50_000) logs.push(String(chunk));
      done();
    },
  });
  const app = await buildApp(
    { config, db: database.db, redis, statusQueue: queues[0], adminQueues: queues },
    { logger: { level: o.logLevel ?? 'warn', stream }, ...(o.bodyLimit ? { bodyLimit: o.bodyLimit } : {}) },
  );
  await app.ready();
  return {
    app,
    database,
    redis,
    config,
    admin,
    logs,
    async close() {
      await app.close();
      await sim.close();
      for (const q of queues) {
        await q.obliterate({ force: true }).catch(() => {});
        await q.close();
      }
      redis.disconnect();
      await database.drop();
    },
  };
}

export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
