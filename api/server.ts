// The web process (Procfile `web`): validates configuration, checks that Postgres answers (naming
// the URL and the fix when it doesn't), listens, and shuts down gracefully. Started during a Redis
// or PostgreSQL outage it does not exit: it says so, listens (/ready is 503 until both answer) and
// comes into service when they are back. A PostgreSQL that refuses it (password, database) exits.
import { loadConfig } from '../config/index.ts';
import { createDb } from '../db/connection.ts';
import {
  describeConnectionFailure,
  describePostgresWait,
  describeRedisWait,
  untilPostgresReady,
} from '../db/reachability.ts';
import type { ConnectionOptions } from 'bullmq';
import { QUEUES } from '../jobs/invoice-flow/queues.ts';
import { openRegistryQueues } from '../jobs/registry.ts';
import { shardOf, shardPrefixes } from '../platform/shards.ts';
import { closeBullConnection, untilRedisReady } from '../platform/redis.ts';
import { openStore, queueConnection } from '../platform/queue-store.ts';
import { buildApp } from './app.ts';
import { enableTracing } from '../platform/tracing.ts';
import { startTracing } from '../telemetry/tracing.ts';

const config = loadConfig();
// Tracing first, so every queue and request made below carries it (off without an OTLP endpoint).
const tracing = startTracing({
  serviceName: config.tracing.serviceName ?? 'factura-api',
  tracesUrl: config.tracing.tracesUrl,
});
if (tracing) enableTracing();
const db = createDb({ url: config.databaseUrl, poolMax: 10, applicationName: 'factura-web' });
const postgresWait = untilPostgresReady(
  () => db.raw('select 1'),
  (err, waited) => console.error(describePostgresWait(config.databaseUrl, err, waited)),
).then(
  () => true,
  (err: unknown) => {
    console.error(describeConnectionFailure('postgres', config.databaseUrl, err));
    process.exit(1);
  },
);
// The first answer, or a refusal that ends the process, before listening (at most 3 s).
const postgresUp = await Promise.race([postgresWait, new Promise((r) => setTimeout(() => r(false), 3000))]);
// Redis, or in embedded mode its Postgres stand-in (platform/queue-store.ts).
const redis = openStore(config, 'api');
const redisWait = config.embedded
  ? null
  : untilRedisReady(redis, (err, waited) => console.error(describeRedisWait(config.redisUrl, err, waited)));

const connection: ConnectionOptions = queueConnection(config);
// Every queue of every kind of work (jobs/registry.ts, every shard), for Bull Board.
const allQueues = openRegistryQueues(connection, config.queuePrefix, config.queueShards);
for (const q of allQueues) q.on('error', (err) => console.error(`queue ${q.name}: ${err.message}`));
// Hacienda's callbacks wake status jobs in the invoice flow's status queue of the company's shard.
const prefixes = shardPrefixes(config.queuePrefix, config.queueShards);
const statusQueues = new Map(
  allQueues.filter((q) => q.name === QUEUES.status).map((q) => [q.opts.prefix, q]),
);
const app = await buildApp({
  config,
  db,
  redis,
  statusQueue: (companyId) => statusQueues.get(prefixes[shardOf(companyId, prefixes.length)])!,
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
// The response serializers no request has needed yet, built while the process is otherwise idle.
void app.warmSerializers().then(
  (n) => app.log.debug({ serializers: n }, 'response serializers built'),
  (err: unknown) => app.log.error({ err }, 'a response serializer could not be built'),
);
if (redisWait && redis.status !== 'ready') {
  app.log.warn('listening without Redis: not ready until it answers');
  void redisWait.then(() => app.log.info('Redis reachable: ready'));
}
if (!postgresUp) {
  app.log.warn('listening without PostgreSQL: not ready until it answers');
  void postgresWait.then(() => app.log.info('PostgreSQL reachable: ready'));
}
