// Embedded mode (FACTURA_EMBEDDED=1, one machine, no Redis): a stand-in for the few Redis
// commands this service sends beside BullMQ, kept in Postgres. Used only in embedded mode
// (platform/queue-store.ts picks it); with Redis nothing here is loaded or called.
//
// It answers the ioredis calls the Redis users make (rate limits, failed-authentication counts,
// usage counters, the workers' metric totals, wake notes, the reconciler's marker, key-change
// announcements), with the same results, so those modules keep one code path:
// - strings and hashes live in one table (`factura_kv.entries`: key, field, value, expiry; a
//   string is the field ''), created on first use;
// - MULTI/pipeline run their commands in one transaction;
// - the Lua scripts run as their TypeScript twins (registered beside each script with
//   `emulateScript`), in one transaction holding an advisory lock per key, so they stay atomic;
// - PUBLISH/SUBSCRIBE are NOTIFY/LISTEN.
// Expired entries are ignored on read and deleted on the next write of their key and once a minute.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { LuaScript } from './redis-keys.ts';

type Queryable = Pick<pg.PoolClient, 'query'>;

/** What a script's twin may do, inside the script's transaction. */
export interface ScriptTx {
  /** Milliseconds since the epoch, by the database's clock (Redis TIME). */
  time(): Promise<number>;
  incr(key: string, by?: number): Promise<number>;
  pttl(key: string): Promise<number>;
  pexpire(key: string, ms: number): Promise<void>;
  exists(key: string): Promise<boolean>;
  hget(key: string, field: string): Promise<string | null>;
  hset(key: string, values: Record<string, string | number>): Promise<void>;
  hincrby(key: string, field: string, by: number): Promise<number>;
}

type Twin = (tx: ScriptTx, keys: string[], args: string[]) => Promise<unknown>;
const twins = new Map<string, Twin>();

/** Registers the Postgres twin of a Lua script (looked up by its sha when the script runs). */
export function emulateScript(script: LuaScript, twin: Twin): void {
  twins.set(script.sha, twin);
}

const SCHEMA = `
create schema if not exists factura_kv;
create table if not exists factura_kv.entries (
  key text not null,
  field text not null default '',
  value text not null,
  expires_at timestamptz,
  primary key (key, field)
);
create index if not exists entries_expiry on factura_kv.entries (expires_at) where expires_at is not null;`;
const LIVE = '(expires_at is null or expires_at > clock_timestamp())';

const ready = new WeakMap<pg.Pool, Promise<void>>();
async function ensureSchema(pool: pg.Pool): Promise<void> {
  let p = ready.get(pool);
  if (!p) {
    p = (async () => {
      const c = await pool.connect();
      try {
        await c.query('begin');
        await c.query('select pg_advisory_xact_lock(hashtext($1))', ['factura_kv schema']);
        await c.query(SCHEMA);
        await c.query('commit');
      } catch (err) {
        await c.query('rollback').catch(() => {});
        throw err;
      } finally {
        c.release();
      }
    })();
    p.catch(() => ready.delete(pool));
    ready.set(pool, p);
  }
  return p;
}

async function purgeKey(q: Queryable, key: string): Promise<void> {
  await q.query(`delete from factura_kv.entries where key = $1 and not ${LIVE}`, [key]);
}

async function hgetall(q: Queryable, key: string): Promise<Record<string, string>> {
  const r = await q.query<{ field: string; value: string }>(
    `select field, value from factura_kv.entries where key = $1 and ${LIVE}`,
    [key],
  );
  return Object.fromEntries(r.rows.map((x) => [x.field, x.value]));
}

async function hincr(q: Queryable, key: string, field: string, by: number, float: boolean): Promise<string> {
  await purgeKey(q, key);
  const cast = float ? 'float8' : 'bigint';
  const r = await q.query<{ value: string }>(
    `insert into factura_kv.entries (key, field, value, expires_at)
     values ($1, $2, ($3::${cast})::text,
             (select max(expires_at) from factura_kv.entries where key = $1))
     on conflict (key, field) do update set value = (entries.value::${cast} + $3::${cast})::text
     returning value`,
    [key, field, by],
  );
  return r.rows[0]!.value;
}

async function hset(q: Queryable, key: string, values: Record<string, string | number>): Promise<number> {
  await purgeKey(q, key);
  let added = 0;
  for (const [field, value] of Object.entries(values)) {
    const r = await q.query<{ inserted: boolean }>(
      `insert into factura_kv.entries (key, field, value, expires_at)
       values ($1, $2, $3, (select max(expires_at) from factura_kv.entries where key = $1))
       on conflict (key, field) do update set value = excluded.value
       returning (xmax = 0) as inserted`,
      [key, field, String(value)],
    );
    if (r.rows[0]!.inserted) added += 1;
  }
  return added;
}

async function del(q: Queryable, key: string): Promise<number> {
  const r = await q.query(`delete from factura_kv.entries where key = $1 and ${LIVE}`, [key]);
  return r.rowCount ? 1 : 0;
}

async function pexpire(q: Queryable, key: string, ms: number): Promise<void> {
  await q.query(
    `update factura_kv.entries set expires_at = clock_timestamp() + $2 * interval '1 millisecond'
     where key = $1 and ${LIVE}`,
    [key, ms],
  );
}

function scriptTx(q: Queryable): ScriptTx {
  return {
    async time() {
      const r = await q.query<{ ms: string }>(
        'select floor(extract(epoch from clock_timestamp()) * 1000)::bigint::text as ms',
      );
      return Number(r.rows[0]!.ms);
    },
    async incr(key, by = 1) {
      return Number(await hincr(q, key, '', by, false));
    },
    async pttl(key) {
      const r = await q.query<{ ttl: string | null }>(
        `select floor(extract(epoch from (max(expires_at) - clock_timestamp())) * 1000)::bigint::text as ttl,
                count(*) as n
         from factura_kv.entries where key = $1 and ${LIVE}`,
        [key],
      );
      const row = r.rows[0] as { ttl: string | null; n: string };
      if (Number(row.n) === 0) return -2;
      return row.ttl === null ? -1 : Math.max(0, Number(row.ttl));
    },
    pexpire: (key, ms) => pexpire(q, key, ms),
    async exists(key) {
      const r = await q.query(`select 1 from factura_kv.entries where key = $1 and ${LIVE} limit 1`, [key]);
      return (r.rowCount ?? 0) > 0;
    },
    async hget(key, field) {
      const r = await q.query<{ value: string }>(
        `select value from factura_kv.entries where key = $1 and field = $2 and ${LIVE}`,
        [key, field],
      );
      return r.rows[0]?.value ?? null;
    },
    async hset(key, values) {
      await hset(q, key, values);
    },
    async hincrby(key, field, by) {
      return Number(await hincr(q, key, field, by, false));
    },
  };
}

type Command = (q: Queryable) => Promise<unknown>;

/** MULTI or pipeline: the commands queued, then run in one transaction by exec(). */
class PgBatch {
  private readonly commands: Command[] = [];
  constructor(private readonly store: PgRedis) {}
  hincrby(key: string, field: string, by: number): this {
    this.commands.push(async (q) => Number(await hincr(q, key, field, by, false)));
    return this;
  }
  hincrbyfloat(key: string, field: string, by: number): this {
    this.commands.push((q) => hincr(q, key, field, by, true));
    return this;
  }
  hgetall(key: string): this {
    this.commands.push((q) => hgetall(q, key));
    return this;
  }
  hmget(key: string, ...fields: string[]): this {
    this.commands.push(async (q) => {
      const all = await hgetall(q, key);
      return fields.map((f) => all[f] ?? null);
    });
    return this;
  }
  del(key: string): this {
    this.commands.push((q) => del(q, key));
    return this;
  }
  async exec(): Promise<[Error | null, unknown][]> {
    return this.store.transaction(async (q) => {
      const out: [Error | null, unknown][] = [];
      for (const c of this.commands) out.push([null, await c(q)]);
      return out;
    });
  }
}

const PURGE_EVERY_MS = 60_000;

/** The Redis calls of this service, answered by Postgres (see the top of this file). */
export class PgRedis extends EventEmitter {
  status = 'ready';
  private listener: pg.Client | null = null;
  private readonly purge: NodeJS.Timeout;

  constructor(
    private readonly pool: pg.Pool,
    private readonly databaseUrl: string,
    private readonly ownsPool: boolean,
  ) {
    super();
    this.purge = setInterval(() => {
      void this.run((q) => q.query(`delete from factura_kv.entries where not ${LIVE}`)).catch(() => {});
    }, PURGE_EVERY_MS);
    this.purge.unref();
  }

  private async run<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    await ensureSchema(this.pool);
    return fn(this.pool);
  }

  /** Runs fn in one transaction (optionally holding an advisory lock per key, in key order). */
  async transaction<T>(fn: (q: Queryable) => Promise<T>, lockKeys: string[] = []): Promise<T> {
    await ensureSchema(this.pool);
    const c = await this.pool.connect();
    try {
      await c.query('begin');
      for (const k of [...new Set(lockKeys)].sort())
        await c.query('select pg_advisory_xact_lock(hashtext($1))', [`factura_kv:${k}`]);
      const out = await fn(c);
      await c.query('commit');
      return out;
    } catch (err) {
      await c.query('rollback').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }

  async ping(): Promise<string> {
    await this.pool.query('select 1');
    return 'PONG';
  }

  async set(key: string, value: string, mode?: 'PX', ms?: number): Promise<'OK'> {
    await this.transaction(async (q) => {
      await q.query('delete from factura_kv.entries where key = $1', [key]);
      await q.query(
        `insert into factura_kv.entries (key, field, value, expires_at)
         values ($1, '', $2, case when $3::bigint is null then null
                                  else clock_timestamp() + $3::bigint * interval '1 millisecond' end)`,
        [key, value, mode === 'PX' && ms !== undefined ? ms : null],
      );
    });
    return 'OK';
  }

  async getdel(key: string): Promise<string | null> {
    return this.run(async (q) => {
      const r = await q.query<{ value: string; live: boolean }>(
        `delete from factura_kv.entries where key = $1 and field = '' returning value, ${LIVE} as live`,
        [key],
      );
      const row = r.rows[0];
      return row && row.live ? row.value : null;
    });
  }

  async hget(key: string, field: string): Promise<string | null> {
    return this.run((q) => scriptTx(q).hget(key, field));
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    return this.run((q) => hgetall(q, key));
  }

  async hset(key: string, field: string, value: string | number): Promise<number> {
    return this.transaction((q) => hset(q, key, { [field]: value }));
  }

  multi(): PgBatch {
    return new PgBatch(this);
  }

  pipeline(): PgBatch {
    return new PgBatch(this);
  }

  async evalsha(sha: string, numKeys: number, ...rest: (string | number)[]): Promise<unknown> {
    const twin = twins.get(sha);
    if (!twin) throw new Error(`NOSCRIPT no Postgres twin of script ${sha} (embedded mode)`);
    const keys = rest.slice(0, numKeys).map(String);
    const args = rest.slice(numKeys).map(String);
    return this.transaction((q) => twin(scriptTx(q), keys, args), keys);
  }

  async eval(): Promise<unknown> {
    throw new Error('embedded mode runs only the scripts that have a Postgres twin (emulateScript)');
  }

  async publish(channel: string, message: string): Promise<number> {
    await this.pool.query('select pg_notify($1, $2)', [channel, message]);
    return 1;
  }

  /** A subscriber shares nothing with its parent but the database. */
  duplicate(): PgRedis {
    return new PgRedis(new pg.Pool({ connectionString: this.databaseUrl, max: 1 }), this.databaseUrl, true);
  }

  async subscribe(...channels: string[]): Promise<number> {
    if (!this.listener) {
      const client = new pg.Client({
        connectionString: this.databaseUrl,
        application_name: 'factura-listen',
      });
      client.on('notification', (n) => this.emit('message', n.channel, n.payload ?? ''));
      client.on('error', (err) => this.emit('error', err));
      await client.connect();
      this.listener = client;
      this.emit('ready');
    }
    for (const ch of channels) await this.listener.query(`listen ${pg.escapeIdentifier(ch)}`);
    return channels.length;
  }

  disconnect(): void {
    void this.quit();
  }

  async quit(): Promise<'OK'> {
    if (this.status === 'end') return 'OK';
    this.status = 'end';
    clearInterval(this.purge);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => {});
    if (this.ownsPool) await this.pool.end().catch(() => {});
    return 'OK';
  }
}

/** A stand-in for one Redis connection, on its own small pool. */
export function createPgRedis(databaseUrl: string, applicationName = 'factura-kv'): PgRedis {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4, application_name: applicationName });
  pool.on('error', () => {}); // an idle client's error: the next query reconnects
  return new PgRedis(pool, databaseUrl, true);
}
