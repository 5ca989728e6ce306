// Configuration: the only module that reads process.env. Every process of the service (API,
// workers, command-line tool) calls loadConfig() once at boot; everything below takes plain
// options. (The Hacienda simulator is a program of its own and reads its environment in
// simulator/config.ts.)
// An invalid value stops the process with a message naming the variable and what is expected.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The checkout (or installed package) root: the folder with package.json. This file runs from
 * `config/` under tsx and from `dist/config/` in the compiled build.
 */
export const projectRoot = packageRoot(dirname(fileURLToPath(import.meta.url)));

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return resolve(from, '..');
  }
}

/**
 * Hacienda's official XSDs ship with the service (`hacienda/xsd/`, the 2024 and 2026 sets as
 * Hacienda publishes them), so a fresh clone validates documents with nothing else installed.
 */
function defaultXsdDir(): string {
  return join(projectRoot, 'hacienda/xsd');
}

export interface HaciendaEndpoints {
  /** Keycloak token endpoint (password and refresh grants). */
  idpUrl: string;
  clientId: string;
  /** Base URL of the reception API, without the trailing `/recepcion`. */
  apiUrl: string;
}

export interface Config {
  env: 'development' | 'test' | 'production';
  host: string;
  port: number;
  logLevel: string;
  /**
   * LOG_PRETTY: `npm start` shows its processes' JSON log lines as readable lines (pino-pretty).
   * Unset (null): when its output is a terminal. Never in production, whose logs stay JSON.
   */
  logPretty: boolean | null;
  /**
   * DATABASE_URL, else DEFAULT_DATABASE_URL (`postgres://postgres@127.0.0.1:5432/factura`): the
   * default addresses are where `npm start` looks for servers before it falls back to embedded
   * mode; changing them is for tests and unusual machines, DATABASE_URL/REDIS_URL are the settings.
   */
  databaseUrl: string;
  /**
   * REDIS_URL (else DEFAULT_REDIS_URL, `redis://127.0.0.1:6379`): one Redis server (`redis://`,
   * `rediss://`) or a Redis Cluster (`redis+cluster://h:p,h:p`, also built from
   * REDIS_CLUSTER_NODES); platform/redis.ts opens either kind.
   */
  redisUrl: string;
  /**
   * Embedded mode (FACTURA_EMBEDDED=1, set by `npm start` when it runs its own Postgres): one
   * machine, no Redis. BullMQ runs on its Postgres backend and the counters, caches and notes kept
   * in Redis otherwise live in Postgres (platform/queue-store.ts); REDIS_URL is not used.
   */
  embedded: boolean;
  /**
   * `npm start`'s own PostgreSQL server in embedded mode (scripts/embedded-postgres.ts): its data
   * under EMBEDDED_DATA_DIR (default `.local/`), listening on 127.0.0.1:EMBEDDED_PG_PORT.
   */
  embeddedServer: { dataDir: string; port: number };
  /**
   * The invoice flow's queues are split into this many shards by company, each under its own
   * hash tag (platform/shards.ts); 1 keeps every queue under `queuePrefix`.
   */
  queueShards: number;
  /** BullMQ key prefix; the braces make it a Redis Cluster hash tag so a queue's keys share one slot. */
  queuePrefix: string;
  /** Completed jobs each queue keeps for operators (Bull Board): at most this old and this many. */
  queueKeepCompleted: { age: number; count: number };
  /** 32-byte key for AES-256-GCM encryption of company secrets at rest. */
  secretsKey: Buffer;
  /** Where the secrets key came from: the environment, or a generated development file. */
  secretsKeySource: 'env' | 'file';
  publicUrl: string;
  admin: { user: string; password: string; writable: boolean } | null;
  hacienda: {
    sandbox: HaciendaEndpoints;
    production: HaciendaEndpoints;
    postTimeoutMs: number;
    getTimeoutMs: number;
    /**
     * Hacienda's public services (taxpayer register, dollar rate): api.hacienda.go.cr in
     * production, the simulator otherwise. Same data for sandbox and live keys.
     */
    publicApiUrl: string;
    publicTimeoutMs: number;
    /** How long a taxpayer looked up stays cached (exchange rates are kept per day for good). */
    taxpayerCacheSeconds: number;
  };
  simulator: { port: number; embedded: boolean };
  xsdDir: string;
  workers: {
    /** First wait between Hacienda status polls and the cap of its exponential growth. */
    statusPollBaseMs: number;
    statusPollMaxMs: number;
    /** Reconciler: how often it looks, and how long an invoice may sit without progress. */
    reconcileEveryMs: number;
    reconcileStaleMs: number;
    /** Lock of an active job; a killed worker's jobs return to the queue after it. */
    lockMs: number;
    /** Most invoices one flow carries (the relay chunks whatever is ready, up to this). */
    chunkSize: number;
    /**
     * Under a steady light load, how long after a relay pass that moved rows the next one waits
     * for more, so invoices arriving close together share a chunk (0: every notification at once).
     */
    chunkGatherMs: number;
    /**
     * A clave Hacienda received and then answers 404 for (it lost the document): after this long
     * the same signed bytes are sent again (and again each time this long passes)…
     */
    missingResendMs: number;
    /** …and after this long, still unknown, the invoice gets a processing error and an event. */
    missingFailMs: number;
  };
  http: HttpLimits;
  /** Fairness between tenants on one API process and across processes (see README). */
  fairness: {
    /** `Prefer: wait` requests one company may have waiting at once on one API process. */
    waitersPerCompany: number;
    /** Failed authentications (lookups of unknown, revoked or expired keys) per client address… */
    authFailuresPerWindow: number;
    /** …per window of this many seconds; past it the address gets 429 before any lookup. */
    authFailureWindowSeconds: number;
  };
  /** Emisor's software-provider id written in ProveedorSistemas; empty = the emisor's own id. */
  proveedorSistemas: string;
  /** Usage per key: how often each API process moves Redis counters into Postgres. */
  usageFlushMs: number;
  /** Worker processes publish their metrics snapshot to Redis this often (read by /metrics). */
  metricsPublishMs: number;
  webhooks: {
    /** Longest wait for a receiver's answer; slower counts as a failed attempt. */
    timeoutMs: number;
    /** Attempts per delivery (the first one included) before it is marked failed. */
    maxAttempts: number;
    /** Wait before the first retry; each later one doubles (±20% jitter). */
    backoffBaseMs: number;
    /** Deliveries in flight per worker process. */
    concurrency: number;
    /**
     * Whether sandbox endpoints may be on private or loopback addresses (localhost for local
     * testing). Live endpoints never may. Off by default in production, where the address would
     * be the service's own network.
     */
    sandboxAllowPrivate: boolean;
  };
  email: {
    /** Where live documents' emails are sent: smtp:// or smtps:// with credentials; null: none can be. */
    smtpUrl: string | null;
    /** Where sandbox documents' emails are sent (the local catcher by default: they never leave the machine). */
    sandboxSmtpUrl: string | null;
    /** The From address (shown with the company's name). */
    from: string;
    /** Attempts per email (the first included) before it is marked failed. */
    maxAttempts: number;
    /** Wait before the first retry; each later one doubles. */
    backoffBaseMs: number;
  };
  /** The local mail catcher `npm start` runs outside production (mail-catcher/README.md). */
  mailCatcher: { smtpPort: number; httpPort: number; embedded: boolean };
  /**
   * OpenTelemetry tracing: spans are exported over OTLP/HTTP to this endpoint's `/v1/traces`
   * (OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as the full URL); null
   * turns tracing off (no spans are made at all).
   */
  tracing: { tracesUrl: string | null; serviceName: string | null };
}

/** How one API process treats its HTTP connections (see api/http-limits.ts). */
export interface HttpLimits {
  /** The request line and headers must arrive within this long after the request's first byte. */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this long (a dripped body is cut off). */
  requestTimeoutMs: number;
  /** A connection on which nothing moves while the server waits on the client is closed. */
  idleTimeoutMs: number;
  /**
   * An idle keep-alive connection between two requests is closed after this long: longer than
   * the idle timeouts of clients' and load balancers' pools (60 s is common), or a request sent
   * on a connection the server is closing fails with a reset.
   */
  keepAliveTimeoutMs: number;
  /** Open connections per process; past it new connections are closed on accept. */
  maxConnections: number;
  /**
   * Open connections from one peer address (proxies named in TRUST_PROXY excepted); past it a
   * new connection gets `429 rate_limited` and is closed, so one client cannot take the process's
   * connections.
   */
  maxConnectionsPerAddress: number;
  /**
   * Which peers may say who the client is (X-Forwarded-For): null trusts nobody (the peer's
   * address is the client's); otherwise the proxies' addresses and CIDR ranges.
   */
  trustProxy: string[] | null;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function tracingConfig(env: Env): Config['tracing'] {
  const protocols = ['http:', 'https:'];
  const full = str(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '');
  const base = str(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', '');
  const tracesUrl = full
    ? url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', full, protocols)
    : base
      ? `${url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', base, protocols).replace(/\/+$/, '')}/v1/traces`
      : null;
  return { tracesUrl, serviceName: str(env, 'OTEL_SERVICE_NAME', '') || null };
}

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `expected ${min}..${max}, got ${n}`);
  return n;
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const v = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(name, `not a valid URL: "${v}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${parsed.protocol}"`);
  }
  return v;
}

/**
 * REDIS_CLUSTER_NODES (`host:port,host:port`) names a Redis Cluster's seed nodes and wins over
 * REDIS_URL, which may itself be `redis+cluster://[user:password@]host:port,host:port`.
 */
function redisUrl(env: Env): string {
  const nodes = str(env, 'REDIS_CLUSTER_NODES', '');
  const cluster = nodes ? `redis+cluster://${nodes}` : str(env, 'REDIS_URL', '');
  if (cluster.startsWith('redis+cluster://')) {
    const hosts = cluster
      .slice('redis+cluster://'.length)
      .replace(/^[^@]*@/, '')
      .split(',');
    const name = nodes ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
    for (const h of hosts)
      if (!/^[^\s:,/]+:\d{1,5}$/.test(h.trim()))
        throw new ConfigError(name, `expected host:port cluster nodes separated by commas, got "${h}"`);
    return cluster;
  }
  const protocols = ['redis:', 'rediss:'];
  return url(env, 'REDIS_URL', url(env, 'DEFAULT_REDIS_URL', 'redis://127.0.0.1:6379', protocols), protocols);
}

const PG_PROTOCOLS = ['postgres:', 'postgresql:'];

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

/** Decodes SECRETS_KEY (base64 or hex of 32 bytes). */
export function parseSecretsKey(raw: string, variable = 'SECRETS_KEY'): Buffer {
  const buf = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (buf.length !== 32) {
    throw new ConfigError(
      variable,
      'expected 32 bytes as base64 or 64 hex characters (openssl rand -base64 32)',
    );
  }
  return buf;
}

function secretsKey(env: Env, production: boolean): { key: Buffer; source: 'env' | 'file' } {
  const raw = env.SECRETS_KEY;
  if (raw) return { key: parseSecretsKey(raw), source: 'env' };
  if (production) throw new ConfigError('SECRETS_KEY', 'required in production (openssl rand -base64 32)');
  // Development convenience: one generated key kept in .local/ so encrypted rows stay readable
  // across restarts. Production must provide its own.
  const file = resolve(projectRoot, '.local/secrets.key');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  }
  return { key: parseSecretsKey(readFileSync(file, 'utf8').trim(), file), source: 'file' };
}

/**
 * TRUST_PROXY: empty (trust nobody: the peer's address is the client's), or a comma-separated
 * list of the proxies' addresses and CIDR ranges (and proxy-addr's names loopback, linklocal,
 * uniquelocal); X-Forwarded-For is then read only from those peers. `true` (any peer) and hop
 * counts are refused: any client could then pick the address it is limited under.
 */
function trustProxy(env: Env): HttpLimits['trustProxy'] {
  const raw = str(env, 'TRUST_PROXY', '').trim();
  if (raw === '' || raw === 'false') return null;
  const entries = raw.split(',').map((e) => e.trim());
  for (const e of entries) {
    if (['loopback', 'linklocal', 'uniquelocal'].includes(e)) continue;
    const [addr, bits, extra] = e.split('/');
    const family = isIP(addr ?? '');
    const max = family === 4 ? 32 : 128;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= max);
    if (!family || !bitsOk || extra !== undefined)
      throw new ConfigError(
        'TRUST_PROXY',
        `expected the proxies' addresses or CIDR ranges (e.g. 10.0.0.0/8,loopback), got "${e}"`,
      );
  }
  return entries;
}

function httpLimits(env: Env): HttpLimits {
  const headersTimeoutMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  // Node refuses a header timeout longer than the whole request's.
  if (headersTimeoutMs > requestTimeoutMs)
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      `must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`,
    );
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    idleTimeoutMs: int(env, 'HTTP_IDLE_TIMEOUT_MS', 15_000, 100, 600_000),
    keepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 100, 600_000),
    maxConnections: int(env, 'HTTP_MAX_CONNECTIONS', 2_000, 1, 1_000_000),
    maxConnectionsPerAddress: int(env, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS', 500, 1, 1_000_000),
    trustProxy: trustProxy(env),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = str(env, 'NODE_ENV', 'development');
  if (!['development', 'test', 'production'].includes(nodeEnv)) {
    throw new ConfigError('NODE_ENV', `expected development, test or production, got "${nodeEnv}"`);
  }
  const production = nodeEnv === 'production';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const simulatorPort = int(env, 'SIMULATOR_PORT', 4010, 0, 65535);
  const simulatorBase = `http://127.0.0.1:${simulatorPort}`;
  const { key, source } = secretsKey(env, production);
  const adminPassword = str(env, 'ADMIN_PASSWORD', '');
  const catcherSmtpPort = int(env, 'MAIL_CATCHER_SMTP_PORT', 4025, 0, 65535);
  const catcherEmbedded = bool(env, 'MAIL_CATCHER_EMBEDDED', !production);
  // Outside production mail goes to the local catcher unless SMTP_URL says otherwise; in
  // production there is no default (sandbox mail never leaves the machine, live mail needs a relay).
  const smtpDefault = production ? '' : `smtp://127.0.0.1:${catcherSmtpPort}`;
  const smtpUrl = str(env, 'SMTP_URL', smtpDefault);
  const sandboxSmtpUrl = str(env, 'SMTP_SANDBOX_URL', smtpDefault);
  const embedded = bool(env, 'FACTURA_EMBEDDED', false);
  return {
    env: nodeEnv as Config['env'],
    host: str(env, 'HOST', '0.0.0.0'),
    port,
    logLevel: str(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info'),
    logPretty: production ? false : env.LOG_PRETTY ? bool(env, 'LOG_PRETTY', false) : null,
    tracing: tracingConfig(env),
    databaseUrl: url(
      env,
      'DATABASE_URL',
      url(env, 'DEFAULT_DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/factura', PG_PROTOCOLS),
      PG_PROTOCOLS,
    ),
    redisUrl: redisUrl(env),
    embedded,
    embeddedServer: {
      dataDir: resolve(projectRoot, str(env, 'EMBEDDED_DATA_DIR', '') || '.local'),
      port: int(env, 'EMBEDDED_PG_PORT', 54320, 1, 65535),
    },
    // BullMQ's Postgres backend has no key prefixes to shard by: one shard in embedded mode.
    queueShards: embedded ? 1 : int(env, 'QUEUE_SHARDS', 1, 1, 256),
    queuePrefix: str(env, 'QUEUE_PREFIX', '{factura}'),
    queueKeepCompleted: {
      age: int(env, 'QUEUE_KEEP_COMPLETED_SECONDS', 3600, 0, 30 * 86_400),
      count: int(env, 'QUEUE_KEEP_COMPLETED_COUNT', 1000, 0, 1_000_000),
    },
    secretsKey: key,
    secretsKeySource: source,
    publicUrl: url(env, 'PUBLIC_URL', `http://127.0.0.1:${port}`, ['http:', 'https:']),
    admin: adminPassword
      ? {
          user: str(env, 'ADMIN_USER', 'admin'),
          password: adminPassword,
          writable: bool(env, 'ADMIN_QUEUES_WRITABLE', false),
        }
      : null,
    hacienda: haciendaConfig(env, simulatorBase, production),
    simulator: { port: simulatorPort, embedded: bool(env, 'SIMULATOR_EMBEDDED', !production) },
    xsdDir: resolve(projectRoot, str(env, 'XSD_DIR', '') || defaultXsdDir()),
    proveedorSistemas: str(env, 'PROVEEDOR_SISTEMAS', ''),
    http: httpLimits(env),
    fairness: {
      waitersPerCompany: int(env, 'WAIT_MAX_PER_COMPANY', 50, 0, 100_000),
      authFailuresPerWindow: int(env, 'AUTH_FAILURE_LIMIT', 20, 1, 100_000),
      authFailureWindowSeconds: int(env, 'AUTH_FAILURE_WINDOW_SECONDS', 10, 1, 3_600),
    },
    usageFlushMs: int(env, 'USAGE_FLUSH_MS', 10_000, 100, 3_600_000),
    metricsPublishMs: int(env, 'METRICS_PUBLISH_MS', 5_000, 100, 300_000),
    workers: workersConfig(env),
    // 12 attempts, waits of base × 2^(n−1): 2047 × 126 s ≈ 3 days from the first to the last.
    webhooks: webhooksConfig(env, production),
    // 8 attempts, waits of base × 2^(n−1): 30 s … 64 min, about 2 hours in all.
    email: emailConfig(env, smtpUrl, sandboxSmtpUrl),
    mailCatcher: {
      smtpPort: catcherSmtpPort,
      httpPort: int(env, 'MAIL_CATCHER_HTTP_PORT', 4026, 0, 65535),
      embedded: catcherEmbedded,
    },
  };
}

/** Hacienda's endpoints (the simulator's by default for the sandbox) and the timeouts of its calls. */
function haciendaConfig(env: Env, simulatorBase: string, production: boolean): Config['hacienda'] {
  return {
    publicApiUrl: url(
      env,
      'HACIENDA_PUBLIC_API_URL',
      production ? 'https://api.hacienda.go.cr' : simulatorBase,
      ['http:', 'https:'],
    ),
    publicTimeoutMs: int(env, 'HACIENDA_PUBLIC_TIMEOUT_MS', 5_000, 100, 60_000),
    taxpayerCacheSeconds: int(env, 'HACIENDA_TAXPAYER_CACHE_SECONDS', 86_400, 0, 30 * 86_400),
    // Hacienda can be slow: a POST carries the whole document. Past these the outcome is unknown.
    postTimeoutMs: int(env, 'HACIENDA_POST_TIMEOUT_MS', 30_000, 100, 600_000),
    getTimeoutMs: int(env, 'HACIENDA_GET_TIMEOUT_MS', 15_000, 100, 600_000),
    sandbox: {
      idpUrl: url(
        env,
        'HACIENDA_SANDBOX_IDP_URL',
        `${simulatorBase}/auth/realms/rut-stag/protocol/openid-connect/token`,
        ['http:', 'https:'],
      ),
      clientId: str(env, 'HACIENDA_SANDBOX_CLIENT_ID', 'api-stag'),
      apiUrl: url(env, 'HACIENDA_SANDBOX_API_URL', `${simulatorBase}/recepcion-sandbox/v1`, [
        'http:',
        'https:',
      ]),
    },
    production: {
      idpUrl: url(
        env,
        'HACIENDA_PROD_IDP_URL',
        'https://idp.comprobanteselectronicos.go.cr/auth/realms/rut/protocol/openid-connect/token',
        ['http:', 'https:'],
      ),
      clientId: str(env, 'HACIENDA_PROD_CLIENT_ID', 'api-prod'),
      apiUrl: url(env, 'HACIENDA_PROD_API_URL', 'https://api.comprobanteselectronicos.go.cr/recepcion/v1', [
        'http:',
        'https:',
      ]),
    },
  };
}

/** The workers' polling, reconciliation, locking and missing-document timings. */
function workersConfig(env: Env): Config['workers'] {
  return {
    statusPollBaseMs: int(env, 'STATUS_POLL_BASE_MS', 2000, 10, 3_600_000),
    statusPollMaxMs: int(env, 'STATUS_POLL_MAX_MS', 300_000, 10, 86_400_000),
    reconcileEveryMs: int(env, 'RECONCILE_EVERY_MS', 30_000, 100, 86_400_000),
    reconcileStaleMs: int(env, 'RECONCILE_STALE_MS', 120_000, 100, 86_400_000),
    lockMs: int(env, 'WORKER_LOCK_MS', 30_000, 1000, 600_000),
    chunkSize: int(env, 'WORKER_CHUNK_SIZE', 50, 1, 1000),
    chunkGatherMs: int(env, 'WORKER_CHUNK_GATHER_MS', 250, 0, 5000),
    // A 404 right after a POST is normal for a moment; ten minutes is far past that. An hour of
    // re-sends that Hacienda keeps losing is an incident for a person, not for more retries.
    missingResendMs: int(env, 'HACIENDA_MISSING_RESEND_MS', 600_000, 100, 86_400_000),
    missingFailMs: int(env, 'HACIENDA_MISSING_FAIL_MS', 3_600_000, 100, 7 * 86_400_000),
  };
}

/** The mail relays (live and sandbox), the sender and the retry schedule of e-mail. */
function emailConfig(env: Env, smtpUrl: string, sandboxSmtpUrl: string): Config['email'] {
  return {
    smtpUrl: smtpUrl ? url(env, 'SMTP_URL', smtpUrl, ['smtp:', 'smtps:']) : null,
    sandboxSmtpUrl: sandboxSmtpUrl ? url(env, 'SMTP_SANDBOX_URL', sandboxSmtpUrl, ['smtp:', 'smtps:']) : null,
    from: str(env, 'EMAIL_FROM', 'facturas@factura-cr.localhost'),
    maxAttempts: int(env, 'EMAIL_MAX_ATTEMPTS', 8, 1, 50),
    backoffBaseMs: int(env, 'EMAIL_BACKOFF_BASE_MS', 30_000, 10, 86_400_000),
  };
}

/** Webhook delivery: timeout, attempts and backoff, concurrency, private addresses in the sandbox. */
function webhooksConfig(env: Env, production: boolean): Config['webhooks'] {
  return {
    timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    maxAttempts: int(env, 'WEBHOOK_MAX_ATTEMPTS', 12, 1, 50),
    backoffBaseMs: int(env, 'WEBHOOK_BACKOFF_BASE_MS', 126_000, 10, 86_400_000),
    concurrency: int(env, 'WEBHOOK_CONCURRENCY', 50, 1, 1000),
    sandboxAllowPrivate: bool(env, 'WEBHOOK_SANDBOX_ALLOW_PRIVATE', !production),
  };
}
