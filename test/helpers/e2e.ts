// End-to-end harness: a fresh database, the Hacienda simulator on a real port, the API on a real
// port (for Hacienda's callbacks) and the workers in-process, all on a unique BullMQ prefix.
import { randomBytes } from 'node:crypto';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../../api/app.ts';
import type { Config } from '../../config/index.ts';
import { createApiKey } from '../../db/queries/api-keys.ts';
import { createCompany } from '../../db/queries/companies.ts';
import { saveSigningKey } from '../../db/queries/credentials.ts';
import { createService } from '../../db/queries/services.ts';
import { createClient } from '../../db/queries/clients.ts';
import type { Db } from '../../db/connection.ts';
import { sealSigningMaterial } from '../../hacienda/secret-box.ts';
import { certificateInfo } from '../../hacienda/signing-key.ts';
import { buildSimulator, type SimulatorApp, type SimulatorOptions } from '../../simulator/app.ts';
import { createTestCertificate } from '../../hacienda/test-certificates.ts';
import { chunkJobId, QUEUES, type InvoiceStep } from '../../jobs/invoice-flow/queues.ts';
import { metricsTotalsKey } from '../../platform/metrics.ts';
import { bullConnection, createRedis, waitForRedis } from '../../platform/redis.ts';
import { createHaciendaAccess } from '../../jobs/context.ts';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../workers/runtime.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { testConfig } from './app.ts';
import { testRedisUrl } from './db-urls.ts';
import { waitFor } from './wait.ts';

export interface E2E {
  app: FastifyInstance;
  apiUrl: string;
  sim: SimulatorApp;
  simUrl: string;
  db: Db;
  config: Config;
  database: TestDatabase;
  runtime: Runtime | null;
  connection: ConnectionOptions;
  startWorkers(extra?: Partial<RuntimeOptions>): Promise<Runtime>;
  stopWorkers(): Promise<void>;
  close(): Promise<void>;
}

export interface E2EOptions {
  simulator?: SimulatorOptions;
  workers?: boolean | Partial<RuntimeOptions>;
  env?: Record<string, string>;
  redisUrl?: string;
  /** Where the API and the workers write their logs (JSON lines, every level); default: none. */
  logStream?: NodeJS.WritableStream;
  /** The API's port (default: any free one); given, PUBLIC_URL is its address unless `env` says. */
  port?: number;
}

export async function startE2E(o: E2EOptions = {}): Promise<E2E> {
  const database = await createTestDatabase();
  const sim = await buildSimulator({
    processingDelayMs: 50,
    schemaDir: testConfig().xsdDir,
    logger: false,
    ...o.simulator,
  });
  const simUrl = await sim.listen({ port: 0, host: '127.0.0.1' });
  const prefix = `{t${randomBytes(4).toString('hex')}}`;
  const redisUrl = o.redisUrl ?? testRedisUrl();
  let config = testConfig({
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    HACIENDA_SANDBOX_IDP_URL: `${simUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
    HACIENDA_SANDBOX_API_URL: `${simUrl}/recepcion-sandbox/v1`,
    HACIENDA_PROD_IDP_URL: `${simUrl}/auth/realms/rut/protocol/openid-connect/token`,
    HACIENDA_PROD_API_URL: `${simUrl}/recepcion/v1`,
    HACIENDA_PUBLIC_API_URL: simUrl,
    ...(o.port ? { PUBLIC_URL: `http://127.0.0.1:${o.port}` } : {}),
    ...o.env,
  });
  const connection = bullConnection(redisUrl) as ConnectionOptions;
  const redis = createRedis(redisUrl, 'api');
  await waitForRedis(redis);
  const statusQueue = new Queue(QUEUES.status, { connection, prefix });
  statusQueue.on('error', () => {});
  const app = await buildApp(
    { config, db: database.db, redis, statusQueue },
    { logger: o.logStream ? { level: 'trace', stream: o.logStream } : false },
  );
  const apiUrl = await app.listen({ port: o.port ?? 0, host: '127.0.0.1' });
  config = { ...config, publicUrl: apiUrl };
  const log = o.logStream
    ? pino({ level: 'trace' }, o.logStream)
    : pino({ level: process.env.TEST_LOG ?? 'silent' });
  const e: E2E = {
    app,
    apiUrl,
    sim,
    simUrl,
    db: database.db,
    config,
    database,
    runtime: null,
    connection,
    async startWorkers(extra = {}) {
      e.runtime = await startRuntime({
        config,
        db: database.db,
        connection,
        log,
        statusPoll: { baseMs: 100, maxMs: 1000 },
        reconcile: false,
        relayPollMs: 200,
        ...extra,
        hacienda: extra.hacienda ?? createHaciendaAccess(database.db, config),
      });
      return e.runtime;
    },
    async stopWorkers() {
      await e.runtime?.close();
      e.runtime = null;
    },
    async close() {
      await e.stopWorkers();
      await app.close();
      await statusQueue.obliterate({ force: true }).catch(() => {});
      await statusQueue.close();
      await redis.del(metricsTotalsKey(prefix)).catch(() => {});
      redis.disconnect();
      await sim.close();
      await database.drop();
    },
  };
  if (o.workers !== false) await e.startWorkers(typeof o.workers === 'object' ? o.workers : {});
  return e;
}

/** A business company with a sandbox certificate, a client, two services and an all-scopes test key. */
export async function seedIssuer(db: Db, config: Config, idNumber = '3101123456') {
  const company = await createCompany(db, {
    name: 'Servicios Ejemplo',
    plan: 'business',
    legalName: 'Servicios Ejemplo Sociedad Anonima',
    idType: '02',
    idNumber,
    activityCode: '620100',
    provincia: '1',
    canton: '01',
    distrito: '01',
    barrio: 'Barrio Amon',
    otrasSenas: 'Avenida 7, calles 3 y 5',
    emails: ['facturas@ejemplo.example'],
    // Flow tests fire hundreds of requests at once; rate limits have their own tests.
    rateLimitPerSecond: 100_000,
  });
  const cert = await createTestCertificate({ idType: '02', idNumber, name: company.legalName });
  const info = certificateInfo(cert.material.certificateChain[0]!);
  await saveSigningKey(db, company.id, false, sealSigningMaterial(config.secretsKey, cert.material), info);
  const tenant = { companyId: company.id, livemode: false };
  const client = await createClient(
    db,
    tenant,
    {
      idType: '01',
      idNumber: '102340567',
      name: 'Juana Pérez Mora',
      email: 'juana@example.com',
      addresses: [
        {
          provincia: '1',
          canton: '01',
          distrito: '08',
          barrio: 'San Pedro',
          otrasSenas: '200 m norte de la iglesia',
        },
      ],
    },
    async () => {},
  );
  const consulting = await createService(db, tenant, {
    cabys: '8314100000200',
    description: 'Consultoría en sistemas',
    unit: 'Sp',
    taxCode: '01',
    ivaRateCode: '08',
    price: '33.33333',
  });
  const laptop = await createService(db, tenant, {
    cabys: '4522003990000',
    description: 'Computadora portátil',
    unit: 'Unid',
    taxCode: '01',
    ivaRateCode: '08',
    price: '450000.00',
  });
  const exempt = await createService(db, tenant, {
    cabys: '9231000000200',
    description: 'Servicio educativo exento',
    unit: 'Sp',
    taxCode: '01',
    ivaRateCode: '10',
    price: '10000.00',
  });
  const { secret } = await createApiKey(db, {
    companyId: company.id,
    livemode: false,
    name: 'e2e',
    scopes: [...SCOPES],
  });
  return { company, client, consulting, laptop, exempt, key: secret };
}

/**
 * A certificate of the company valid over [from, to], saved as its sandbox signing key (as
 * `company set-certificate` does, minus its checks: an expired one can be saved, as if it had
 * expired after it was uploaded).
 */
export async function saveCompanyCertificate(
  db: Db,
  config: Config,
  company: { id: number; idNumber: string; legalName: string | null },
  from: Date,
  to: Date,
): Promise<void> {
  const cert = await createTestCertificate({
    idType: '02',
    idNumber: company.idNumber,
    name: company.legalName ?? 'Servicios Ejemplo',
    notBefore: from,
    notAfter: to,
  });
  const info = certificateInfo(cert.material.certificateChain[0]!);
  await saveSigningKey(db, company.id, false, sealSigningMaterial(config.secretsKey, cert.material), info);
}

export async function api(
  e: { apiUrl: string },
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(`${e.apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** The signed XML stored for an issued document (`inv_…`), as the service wrote it. */
export async function storedSignedXml(db: Db, id: string): Promise<string> {
  const row = (await db('invoice_documents')
    .where({ invoiceId: Number(id.slice(4)) })
    .first('signed_xml')) as { signedXml: Buffer };
  return row.signedXml.toString('utf8');
}

/** The id of the job that carries an invoice's step: its chunk's (null until the relay added it). */
export async function flowJobId(db: Db, invoiceId: number, step: InvoiceStep): Promise<string | null> {
  const row = (await db('invoices').where({ id: invoiceId }).first('flow_chunk')) as
    { flowChunk: string | null } | undefined;
  return row?.flowChunk ? chunkJobId(row.flowChunk, step) : null;
}

/** Polls `GET /api/v1/invoices/{id}` until its status is one of `statuses`; the invoice as read. */
export async function waitForDocumentStatus(
  e: { apiUrl: string },
  key: string,
  id: string,
  statuses: string[],
  timeoutMs = 20_000,
): Promise<any> {
  let last: any;
  await waitFor(
    async () => {
      last = (await api(e, 'GET', `/api/v1/invoices/${id}`, key)).json;
      return statuses.includes(last.status);
    },
    timeoutMs,
    100,
    `document ${id} to reach ${statuses.join('/')}`,
  );
  return last;
}
