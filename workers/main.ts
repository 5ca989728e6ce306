// The worker process (Procfile `worker`): every queue of the invoice flow, the outbox relay and
// the reconciler. Closes workers, queues and pools on SIGTERM so active jobs finish or return.
// Started during a Redis or PostgreSQL outage it waits for both (saying so) and starts its workers then.
import type { ConnectionOptions } from 'bullmq';
import { pino } from 'pino';
import { loadConfig } from '../config/index.ts';
import { createDb } from '../db/connection.ts';
import {
  describeConnectionFailure,
  describePostgresWait,
  describeRedisWait,
  untilPostgresReady,
} from '../db/reachability.ts';
import { closeBullConnection, createRedis, untilRedisReady } from '../platform/redis.ts';
import { queueConnection } from '../platform/queue-store.ts';
import { createHaciendaAccess } from '../jobs/context.ts';
import { startRuntime } from './runtime.ts';
import { enableTracing } from '../platform/tracing.ts';
import { startTracing } from '../telemetry/tracing.ts';

const config = loadConfig();
// Tracing first, so every Worker, queue and flow made below carries it (off without an OTLP endpoint).
const tracing = startTracing({
  serviceName: config.tracing.serviceName ?? 'factura-worker',
  tracesUrl: config.tracing.tracesUrl,
});
if (tracing) enableTracing();
const log = pino({ level: config.logLevel, base: { process: 'worker' } });
const db = createDb({ url: config.databaseUrl, poolMax: 10, applicationName: 'factura-worker' });
// During a PostgreSQL outage, wait for it (saying so) rather than exit.
let waitedPostgres = false;
try {
  await untilPostgresReady(
    () => db.raw('select 1'),
    (err, w) => {
      waitedPostgres = true;
      console.error(describePostgresWait(config.databaseUrl, err, w));
    },
  );
} catch (err) {
  console.error(describeConnectionFailure('postgres', config.databaseUrl, err));
  process.exit(1);
}
if (waitedPostgres) log.info('PostgreSQL reachable');
// Embedded mode has no Redis: queues and the rest live in Postgres (platform/queue-store.ts).
if (!config.embedded) {
  const probe = createRedis(config.redisUrl, 'worker');
  let waited = false;
  try {
    await untilRedisReady(probe, (err, w) => {
      waited = true;
      console.error(describeRedisWait(config.redisUrl, err, w));
    });
  } finally {
    probe.disconnect();
  }
  if (waited) log.info('Redis reachable: starting the workers');
}

const connection: ConnectionOptions = queueConnection(config);
const runtime = await startRuntime({
  config,
  db,
  connection,
  log,
  hacienda: createHaciendaAccess(db, config),
  statusPoll: { baseMs: config.workers.statusPollBaseMs, maxMs: config.workers.statusPollMaxMs },
  reconcile: { everyMs: config.workers.reconcileEveryMs, staleMs: config.workers.reconcileStaleMs },
  lockDurationMs: config.workers.lockMs,
});
log.info({ queues: Object.keys(runtime.queues), shards: runtime.shards.prefixes }, 'workers started');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down workers');
  const force = setTimeout(() => process.exit(1), 20_000).unref();
  try {
    await runtime.close();
    await closeBullConnection(connection);
    await db.destroy();
    await tracing?.shutdown();
  } finally {
    clearTimeout(force);
    process.exit(0);
  }
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
