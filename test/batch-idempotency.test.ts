// A batch's Idempotency-Key under concurrency, against two real API processes on one database:
// one key gives exactly one batch however many requests race on either process; while the first
// is in flight the others get 409 idempotency_key_in_use, afterwards the same body is replayed
// faithfully and another body is 422 idempotency_key_reused. The database decides (the key is
// held in the recording transaction and stored under its primary key), not a process's memory.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyKeyInUse, insertIdempotent, type IdempotencyInput } from '../db/queries/idempotency.ts';
import { createRedis, waitForRedis } from '../platform/redis.ts';
import { createTestCompany, createTestKey, TEST_SECRETS_KEY } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { testRedisUrl } from './helpers/db-urls.ts';
import { freePort, startApiProcess, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

let database: TestDatabase;
let companyId: number;
let key: string;
const ports: number[] = [];
const apis: ChildProcess[] = [];
const prefix = `{t-idem-${process.pid}}`;

beforeAll(async () => {
  database = await createTestDatabase();
  companyId = (await createTestCompany(database.db)).id;
  key = (await createTestKey(database.db, companyId)).secret;
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: testRedisUrl(),
    QUEUE_PREFIX: prefix,
    SECRETS_KEY: TEST_SECRETS_KEY,
  };
  ports.push(await freePort(), await freePort());
  apis.push(...(await Promise.all(ports.map((p) => startApiProcess(env, p)))));
}, 120_000);

afterAll(async () => {
  await Promise.all(apis.map((p) => stopProcess(p)));
  await database?.drop();
  const redis = createRedis(testRedisUrl(), 'api');
  try {
    await waitForRedis(redis);
    for (const pattern of [`${prefix}*`, `{t-idem-${process.pid}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
});

const body = (tag: string) =>
  JSON.stringify({
    invoices: [
      {
        idempotency_key: `item-${tag}`,
        client_id: 'cli_000000000001',
        lines: [{ service_id: 'srv_000000000001', qty: 1 }],
      },
    ],
  });

async function postBatch(api: number, idemKey: string, payload: string) {
  const res = await fetch(`http://127.0.0.1:${ports[api % ports.length]}/api/v1/invoices/batch`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': idemKey,
    },
    body: payload,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

const batchCount = async () =>
  Number((await database.db('batches').where({ companyId }).count('* as n'))[0]!.n);

describe('one Idempotency-Key, many concurrent batches', () => {
  it('twelve requests with different bodies across two processes record exactly one batch', async () => {
    const before = await batchCount();
    const k = `race-${randomBytes(4).toString('hex')}`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => postBatch(i, k, body(`${k}-${i}`))),
    );
    const created = answers.filter((a) => a.status === 202);
    expect(created, JSON.stringify(answers.map((a) => [a.status, a.json.code]))).toHaveLength(1);
    expect(created[0]!.headers.get('idempotent-replayed')).toBeNull();
    for (const a of answers.filter((x) => x.status !== 202)) {
      expect([409, 422], a.text).toContain(a.status);
      expect(a.json.code).toBe(a.status === 409 ? 'idempotency_key_in_use' : 'idempotency_key_reused');
      expect(a.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect(await batchCount()).toBe(before + 1);
    const stored = await database.db('idempotency_keys').where({ companyId, key: k });
    expect(stored).toHaveLength(1);
    expect(stored[0].responseBody.id).toBe(created[0]!.json.id);
  });

  it('twelve requests with the same body: one batch, the others 409 in flight or its faithful replay', async () => {
    const before = await batchCount();
    const k = `same-${randomBytes(4).toString('hex')}`;
    const payload = body(k);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => postBatch(i, k, payload)));
    const fresh = answers.filter((a) => a.status === 202 && !a.headers.get('idempotent-replayed'));
    expect(fresh).toHaveLength(1);
    for (const a of answers) {
      if (a === fresh[0]) continue;
      if (a.status === 202) {
        expect(a.headers.get('idempotent-replayed')).toBe('true');
        expect(a.json).toEqual(fresh[0]!.json);
        expect(a.headers.get('location')).toBe(fresh[0]!.headers.get('location'));
      } else {
        expect(a.status, a.text).toBe(409);
        expect(a.json.code).toBe('idempotency_key_in_use');
      }
    }
    expect(await batchCount()).toBe(before + 1);
  });

  it('while the first is in flight another process answers 409; then replays or refuses', async () => {
    const before = await batchCount();
    const k = `flight-${randomBytes(4).toString('hex')}`;
    // Hold the first request inside its transaction: it has taken the key and waits to insert.
    const blocker = await database.db.transaction();
    await blocker.raw('lock table batches in share mode');
    const first = postBatch(0, k, body('a'));
    try {
      await waitFor(
        async () =>
          Number(
            (
              await database.db.raw(
                `select count(*) as n from pg_locks l join pg_class c on c.oid = l.relation
                 where c.relname = 'batches' and not l.granted`,
              )
            ).rows[0].n,
          ) > 0,
        20_000,
        50,
        'the first request to wait for the batches table',
      );
      for (const payload of [body('a'), body('b')]) {
        const busy = await postBatch(1, k, payload);
        expect(busy.status, busy.text).toBe(409);
        expect(busy.json.code).toBe('idempotency_key_in_use');
        expect(busy.headers.get('retry-after')).toBe('1');
      }
    } finally {
      await blocker.commit();
    }
    const a = await first;
    expect(a.status, a.text).toBe(202);
    const replay = await postBatch(1, k, body('a'));
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual(a.json);
    expect(replay.headers.get('location')).toBe(`/api/v1/batches/${a.json.id}`);
    const reused = await postBatch(0, k, body('b'));
    expect(reused.status).toBe(422);
    expect(reused.json.code).toBe('idempotency_key_reused');
    expect(await batchCount()).toBe(before + 1);
  });

  it('the key’s primary key never takes a second outcome, while an expired one is replaced', async () => {
    const tenant = { companyId, livemode: false };
    const idem: IdempotencyInput = {
      key: `pk-${randomBytes(4).toString('hex')}`,
      route: 'r',
      hash: Buffer.alloc(32, 1),
    };
    await database.db.transaction((trx) =>
      insertIdempotent(trx, tenant, idem, { status: 202, body: { n: 1 } }),
    );
    await expect(
      database.db.transaction((trx) => insertIdempotent(trx, tenant, idem, { status: 202, body: { n: 2 } })),
    ).rejects.toBeInstanceOf(IdempotencyKeyInUse);
    const row = () => database.db('idempotency_keys').where({ companyId, key: idem.key }).first();
    expect((await row()).responseBody).toEqual({ n: 1 });
    await database
      .db('idempotency_keys')
      .where({ companyId, key: idem.key })
      .update({ createdAt: database.db.raw(`now() - interval '25 hours'`) });
    await database.db.transaction((trx) =>
      insertIdempotent(trx, tenant, idem, { status: 202, body: { n: 3 } }),
    );
    expect((await row()).responseBody).toEqual({ n: 3 });
  });
});
