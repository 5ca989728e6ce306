// The service's OpenAPI document, built in-process: the API application is assembled exactly as
// the server assembles it (every route, the same transform), asked for its document, and closed.
// Nothing listens and nothing is reached: the database pool opens no connection until a query,
// and the Redis client points at a closed port with reconnection off, so this runs on a machine
// without Postgres or Redis (the client generator and its up-to-date test use it).
import { Redis } from 'ioredis';
import { buildApp } from '../api/app.ts';
import { loadConfig } from '../config/index.ts';
import { createDb } from '../db/connection.ts';

/** Port 1 on loopback: nothing listens there, so a connection attempt is refused at once. */
const NOWHERE = 'redis://127.0.0.1:1';

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SECRETS_KEY: Buffer.alloc(32).toString('base64'),
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    REDIS_URL: NOWHERE,
  });
  const db = createDb({ url: config.databaseUrl, poolMax: 1 });
  const redis = new Redis(NOWHERE, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  const app = await buildApp({ config, db, redis }, { logger: false });
  try {
    await app.ready();
    return structuredClone(app.swagger()) as unknown as Record<string, unknown>;
  } finally {
    await app.close().catch(() => {});
    redis.disconnect();
    await db.destroy();
  }
}
