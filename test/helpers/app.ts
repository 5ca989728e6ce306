// Test harness for the API: a fresh database, a real Redis connection, the app built with
// buildApp() and driven through inject(); helpers to create companies and keys.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { RedisClient } from '../../platform/redis.ts';
import { buildApp } from '../../api/app.ts';
import { buildSimulator } from '../../simulator/app.ts';
import { loadConfig, type Config } from '../../config/index.ts';
import { createApiKey } from '../../db/queries/api-keys.ts';
import { createCompany, type CompanyInput } from '../../db/queries/companies.ts';
import type { Db } from '../../db/connection.ts';
import { createRedis, waitForRedis } from '../../platform/redis.ts';
import { SCOPES, type Scope } from '../../domain/scopes.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { testRedisUrl } from './db-urls.ts';

export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export function testConfig(overrides: Record<string, string> = {}): Config {
  // A queue prefix of its own unless given: rate-limit and usage counters are per key id, and
  // every test database numbers its keys from 1.
  return loadConfig({
    NODE_ENV: 'test',
    SECRETS_KEY: TEST_SECRETS_KEY,
    LOG_LEVEL: 'silent',
    REDIS_URL: testRedisUrl(),
    QUEUE_PREFIX: `{t${randomBytes(4).toString('hex')}}`,
    // API tests make more failed authentications from one address (inject's 127.0.0.1) than a
    // client may; test/failed-auth.test.ts sets the real limit.
    AUTH_FAILURE_LIMIT: '100000',
    ...overrides,
  });
}

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  redis: RedisClient;
  config: Config;
  database: TestDatabase;
  close(): Promise<void>;
}

export async function startTestApp(overrides: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  // Hacienda's public services (taxpayers, dollar rate) are answered by a simulator of the app's own.
  const sim = await buildSimulator({ admin: false, logger: false });
  const simUrl = await sim.listen({ port: 0, host: '127.0.0.1' });
  const config = testConfig({ DATABASE_URL: database.url, HACIENDA_PUBLIC_API_URL: simUrl, ...overrides });
  const redis = createRedis(config.redisUrl, 'api');
  await waitForRedis(redis);
  const app = await buildApp({ config, db: database.db, redis }, { logger: false });
  await app.ready();
  return {
    app,
    db: database.db,
    redis,
    config,
    database,
    async close() {
      await app.close();
      await sim.close();
      redis.disconnect();
      await database.drop();
    },
  };
}

let companySeq = 0;

export function companyInput(overrides: Partial<CompanyInput> = {}): CompanyInput {
  companySeq += 1;
  const n = String(100000 + companySeq + Math.floor(Math.random() * 800000)).slice(-6);
  return {
    name: `Empresa de Prueba ${companySeq}`,
    plan: 'business',
    legalName: `Empresa de Prueba ${companySeq} S.A.`,
    idType: '02',
    idNumber: `3101${n}`,
    activityCode: '620100',
    provincia: '1',
    canton: '01',
    distrito: '01',
    otrasSenas: 'Calle 1, avenida 2',
    emails: ['facturas@empresa.example'],
    // API tests fire requests faster than a plan allows; rate-limit tests pass null (plan default).
    rateLimitPerSecond: 100_000,
    ...overrides,
  };
}

export async function createTestCompany(db: Db, overrides: Partial<CompanyInput> = {}) {
  return createCompany(db, companyInput(overrides));
}

export async function createTestKey(
  db: Db,
  companyId: number,
  opts: { livemode?: boolean; scopes?: readonly Scope[]; name?: string } = {},
): Promise<{ id: number; secret: string }> {
  const { key, secret } = await createApiKey(db, {
    companyId,
    livemode: opts.livemode ?? false,
    name: opts.name ?? 'test',
    scopes: [...(opts.scopes ?? SCOPES)],
  });
  return { id: key.id, secret };
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** inject() with a bearer key and a JSON body; returns status, headers and parsed JSON. */
export async function call(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  opts: CallOptions = {},
): Promise<LightMyRequestResponse & { json: () => any }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const res = await app.inject({
    method,
    url,
    headers,
    query: opts.query,
    ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
  });
  return res;
}
