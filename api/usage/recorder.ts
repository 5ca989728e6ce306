// Usage per key without a database write on the request path. Each authenticated response adds
// 1 to a field `<minute>|<key id>|<status class>|<route>`, counted in the process for up to
// PUSH_EVERY_MS and then added (HINCRBY, one round trip for all the fields) to one Redis hash
// shared by every API process; a flush sends the process's own counts first. Each process
// flushes on an interval (and when it closes): MULTI { HGETALL, DEL } takes the whole hash
// atomically, so two processes never flush the same counts, and the counts are added to
// usage_minutes with an upsert. A failed database write puts the counts back into the hash
// (HINCRBY), so nothing is lost or doubled. Lost on purpose: counts of a process that dies
// before pushing them (PUSH_EVERY_MS's worth) or taking them from the hash before writing them
// (at most one interval's worth), and counts of requests made while Redis is down (logged, not
// retried).
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import type { RedisClient } from '../../platform/redis.ts';
import type { Logger } from 'pino';
import { addUsage, statusClassOf, type StatusClass, type UsageIncrement } from '../../db/queries/usage.ts';
import { taggedPrefix } from '../../platform/redis-keys.ts';

export interface UsageRecorder {
  record(keyId: number, route: string, status: number, at?: Date): Promise<void>;
  /** Moves the counts gathered so far (by every process) into Postgres; returns rows written. */
  flush(): Promise<number>;
}

const WARN_EVERY_MS = 10_000;
/** A process gathers its counts this long and adds them to the hash in one round trip. */
const PUSH_EVERY_MS = 100;

export function usageHashKey(queuePrefix: string): string {
  return `${taggedPrefix(queuePrefix, 'usage')}:pending`;
}

function parseField(field: string, value: string): UsageIncrement | null {
  const parts = field.split('|');
  if (parts.length < 4) return null;
  const [minute, keyId, cls] = parts as [string, string, string];
  const count = Number(value);
  if (!Number.isInteger(count) || count <= 0) return null;
  return {
    minute: new Date(Number(minute) * 1000),
    keyId: Number(keyId),
    statusClass: cls as StatusClass,
    route: parts.slice(3).join('|'),
    count,
  };
}

export function createUsageRecorder(o: {
  redis: RedisClient;
  db: Knex;
  queuePrefix: string;
  log: Pick<Logger, 'warn'>;
}): UsageRecorder {
  const key = usageHashKey(o.queuePrefix);
  let lastWarning = 0;
  // Counts of this process not yet in Redis, and the push that will send them.
  let pending = new Map<string, number>();
  let scheduled: Promise<void> | null = null;
  const pushPending = async () => {
    const taken = pending;
    pending = new Map();
    if (!taken.size) return;
    try {
      const m = o.redis.multi();
      for (const [field, n] of taken) m.hincrby(key, field, n);
      const res = await m.exec();
      const failed = res?.find(([err]) => err)?.[0];
      if (failed) throw failed;
    } catch (err) {
      if (Date.now() - lastWarning > WARN_EVERY_MS) {
        lastWarning = Date.now();
        o.log.warn({ err }, 'usage counter not recorded (Redis unavailable)');
      }
    }
  };
  // Pushes run one after another: a flush's push waits for one already under way, whose counts
  // would otherwise reach the hash only after the flush had read it.
  let pushing: Promise<void> = Promise.resolve();
  const push = (): Promise<void> => (pushing = pushing.then(pushPending));
  return {
    record(keyId, route, status, at = new Date()) {
      const minute = Math.floor(at.getTime() / 60_000) * 60;
      const field = `${minute}|${keyId}|${statusClassOf(status)}|${route}`;
      pending.set(field, (pending.get(field) ?? 0) + 1);
      scheduled ??= new Promise<void>((resolve) => {
        setTimeout(() => {
          scheduled = null;
          void push().then(resolve);
        }, PUSH_EVERY_MS);
      });
      return scheduled;
    },
    async flush() {
      await push();
      const res = await o.redis.multi().hgetall(key).del(key).exec();
      const [err, taken] = res?.[0] ?? [null, {}];
      if (err) throw err;
      const entries = Object.entries((taken ?? {}) as Record<string, string>);
      if (!entries.length) return 0;
      const rows = entries.map(([f, v]) => parseField(f, v)).filter((r): r is UsageIncrement => r !== null);
      try {
        await addUsage(o.db, rows);
      } catch (writeErr) {
        // Put the counts back for the next flush (of any process).
        const back = o.redis.multi();
        for (const [f, v] of entries) back.hincrby(key, f, Number(v));
        await back.exec();
        throw writeErr;
      }
      return rows.length;
    },
  };
}

/** Counts every authenticated response and flushes on an interval and at close. */
export function registerUsage(app: FastifyInstance, recorder: UsageRecorder, flushEveryMs: number): void {
  app.addHook('onResponse', async (request, reply) => {
    const auth = request.auth;
    // Usage is the API's consumption, counted per key; people's requests are not API usage.
    if (!auth || auth.keyId === null) return;
    const pattern = request.routeOptions.url;
    const route = pattern ? `${request.method} ${pattern}` : `${request.method} (unmatched)`;
    void recorder.record(auth.keyId, route, reply.statusCode);
  });

  let timer: NodeJS.Timeout | null = null;
  const flush = () =>
    recorder.flush().catch((err: unknown) => app.log.warn({ err }, 'usage flush failed; will retry'));
  app.addHook('onReady', async () => {
    timer = setInterval(() => void flush(), flushEveryMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await flush();
  });
}
