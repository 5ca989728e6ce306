// The bench's own scratch space, so it never touches development or test data: a database
// `factura_bench_p<pid>` on the server of DATABASE_URL (migrated like production) and a BullMQ
// prefix `{bench<pid>}` on REDIS_URL. Both are removed at the end; a database left by a bench
// that was killed (its pid no longer alive) is dropped by the next run.
import knexFactory, { type Knex } from 'knex';
import type { RedisClient } from '../../platform/redis.ts';
import { createDb, type Db } from '../../db/connection.ts';
import { migrateLatest } from '../../db/migrator.ts';

const NAME_RE = /^factura_bench_p(\d+)$/;

export interface Scratch {
  name: string;
  url: string;
  db: Db;
  drop(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function withAdmin<T>(baseUrl: string, fn: (admin: Knex) => Promise<T>): Promise<T> {
  const u = new URL(baseUrl);
  u.pathname = '/postgres';
  const admin = knexFactory({ client: 'pg', connection: u.toString(), pool: { min: 0, max: 1 } });
  return fn(admin).finally(() => admin.destroy());
}

export async function createScratchDatabase(baseUrl: string, poolMax = 8): Promise<Scratch> {
  const name = `factura_bench_p${process.pid}`;
  await withAdmin(baseUrl, async (admin) => {
    const rows = await admin.raw(`select datname from pg_database where datname like 'factura\\_bench\\_p%'`);
    for (const { datname } of rows.rows as { datname: string }[]) {
      const pid = Number(NAME_RE.exec(datname)?.[1]);
      if (!pid || (pid !== process.pid && isAlive(pid))) continue;
      await admin.raw('drop database if exists ?? with (force)', [datname]);
    }
    await admin.raw('create database ??', [name]);
  });
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = createDb({ url, poolMax, applicationName: 'factura-bench' });
  await migrateLatest(db);
  let dropped = false;
  return {
    name,
    url,
    db,
    async drop() {
      if (dropped) return;
      dropped = true;
      await db.destroy().catch(() => {});
      await withAdmin(baseUrl, (admin) => admin.raw('drop database if exists ?? with (force)', [name]));
    },
  };
}

/** Deletes every key under the bench's prefix: queues (`{bench1}:…`) and tagged keys (`{bench1:rl}…`). */
export async function deletePrefixKeys(redis: RedisClient, queuePrefix: string): Promise<number> {
  const stem = queuePrefix.replace(/\}$/, '');
  const pattern = `${stem.replace(/([*?[\]])/g, '\\$1')}*`;
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
