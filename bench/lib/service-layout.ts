// Where the bench finds the service it runs, in one place: the processes' entry files (as the
// Procfile starts them), the Hacienda simulator's entry, URLs and environment, and the queues
// the bench watches. A moved entry point or a renamed queue is updated here and nowhere else.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { QUEUES } from '../../jobs/invoice-flow/queues.ts';
import { BATCH_QUEUE } from '../../jobs/batches/work.ts';
import { WEBHOOK_QUEUE } from '../../jobs/webhooks/deliver.ts';

/** Entry files, relative to the project root. */
export const ENTRY = {
  api: 'api/server.ts',
  worker: 'workers/main.ts',
  simulator: 'simulator/main.ts',
} as const;

/**
 * Node options of the worker process, as the Procfile starts it: a bounded V8 heap, so a busy
 * worker collects garbage before its memory grows instead of after (its live data is far smaller).
 */
export const WORKER_NODE_OPTIONS = '--max-old-space-size=192';

/**
 * Node options of the API process, as the Procfile starts it: a young generation of up to 32 MB
 * per half (16 by default), so that a burst of requests collects its short-lived objects in fewer,
 * cheaper scavenges and promotes fewer of them to the old generation.
 */
export const API_NODE_OPTIONS = '--max-semi-space-size=32';

/**
 * An entry in a compiled build: the bench's own `buildDir`, laid out as the dist/ of
 * `npm run build` that the Procfile runs with plain node.
 */
export function compiledEntry(entry: string, buildDir: string): string {
  return join(buildDir, entry.replace(/\.ts$/, '.js'));
}

/** The simulator's paths: readiness, and the two base URLs the service is pointed at. */
export const SIMULATOR_PATHS = {
  ready: '/_simulator/stats',
  idpToken: '/auth/realms/rut-stag/protocol/openid-connect/token',
  reception: '/recepcion-sandbox/v1',
} as const;

/**
 * Bearer token of the simulator's /_simulator endpoints (the readiness probe among them), which
 * want one when the simulator runs with NODE_ENV=production as here.
 */
export const SIMULATOR_ADMIN_TOKEN = randomBytes(24).toString('base64url');
export const simulatorAdminHeaders = { authorization: `Bearer ${SIMULATOR_ADMIN_TOKEN}` };

/**
 * The simulator as the bench runs it (its own process on `port`), and the service's sandbox
 * endpoints pointed at it: no processing delay; signature, clave, consecutivo and totals checks
 * on; the schema check (xmllint) only when asked, since Hacienda spends that CPU on its machines.
 */
export function simulatorEnv(port: number, schemaCheck: boolean): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    SIMULATOR_EMBEDDED: 'false',
    SIMULATOR_ADMIN_TOKEN,
    SIMULATOR_PORT: String(port),
    SIMULATOR_HOST: '127.0.0.1',
    SIMULATOR_PROCESSING_DELAY_MS: '0',
    SIMULATOR_CHECK_SCHEMA: String(schemaCheck),
    HACIENDA_SANDBOX_IDP_URL: `${url}${SIMULATOR_PATHS.idpToken}`,
    HACIENDA_SANDBOX_API_URL: `${url}${SIMULATOR_PATHS.reception}`,
  };
}

/** Every queue whose jobs can still be waiting after a stage (the backlog a later stage inherits). */
export const WATCHED_QUEUES: string[] = [...new Set([...Object.values(QUEUES), BATCH_QUEUE, WEBHOOK_QUEUE])];

/** Queues every worker process consumes: a worker process is up once each has its consumer. */
export const READINESS_QUEUES: string[] = [QUEUES.sign, WEBHOOK_QUEUE];
