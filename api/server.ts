// The web process (Procfile `web`): validates configuration, checks that Postgres and Redis
// answer (naming the URL and the fix when they don't), listens, and shuts down gracefully.
import { loadConfig } from '../config/index.ts';
import { createDb } from '../db/connection.ts';
import { describeConnectionFailure } from '../db/reachability.ts';
import { Queue, type ConnectionOptions } from 'bullmq';
import { BATCH_QUEUE } from '../jobs/catalogue.ts';
import { WEBHOOK_QUEUE } from '../jobs/webhook-deliver.ts';
import { EMAIL_QUEUE } from '../jobs/invoice-email.ts';
import { openQueueShards } from '../jobs/shards.ts';
import { closeBullConnection, waitForRedis } from '../jobs/redis.ts';
import { openStore, queueConnection } from '../jobs/queue-store.ts';
import { buildApp } from './app.ts';
import { enableTracing } from '../jobs/tracing.ts';
import { startTracing } from '../telemetry/tracing.ts';

const config = loadConfig();
// Tracing first, so every queue and request made below carries it (off without an OTLP endpoint).
const tracing = startTracing({
  serviceName: config.tracing.serviceName ?? 'factura-api',
  tracesUrl: config.tracing.tracesUrl,
});
if (tracing) enableTracing();
const db = createDb({ url: config.databaseUrl, poolMax: 10, applicationName: 'factura-web' });
try {
  await db.raw('select 1');
} catch (err) {
  console.error(describeConnectionFailure('postgres', config.databaseUrl, err));
  process.exit(1);
}
// Redis, or in embedded mode its Postgres stand-in (jobs/queue-store.ts).
const redis = openStore(config, 'api');
try {
  await waitForRedis(redis);
} catch (err) {
  console.error(describeConnectionFailure('redis', config.redisUrl, err));
  process.exit(1);
}

const connection: ConnectionOptions = queueConnection(config);
const shards = openQueueShards(connection, config.queuePrefix, config.queueShards);
// Every queue a worker runs, for Bull Board: the invoice flow (every shard), batches and webhooks.
const allQueues = [
  ...shards.all(),
  new Queue(BATCH_QUEUE, { connection, prefix: config.queuePrefix }),
  new Queue(WEBHOOK_QUEUE, { connection, prefix: config.queuePrefix }),
  new Queue(EMAIL_QUEUE, { connection, prefix: config.queuePrefix }),
];
for (const q of allQueues) q.on('error', (err) => console.error(`queue ${q.name}: ${err.message}`));
const app = await buildApp({
  config,
  db,
  redis,
  statusQueue: (companyId) => shards.of(companyId).status,
  adminQueues: allQueues,
});
let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 10_000).unref();
  try {
    await app.close();
    await Promise.all(allQueues.map((q) => q.close()));
    await closeBullConnection(connection);
    await db.destroy();
    redis.disconnect();
    await tracing?.shutdown();
  } finally {
    clearTimeout(force);
    process.exit(0);
  }
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ port: config.port, host: config.host });
