// What /ready answers from: a background probe of Postgres and Redis, so that readiness answers at
// once whatever its dependencies do (a health checker with a 1 s timeout must never see a hung
// Redis or Postgres as a hung instance). Each dependency is probed every PROBE_EVERY_MS; a probe
// that has not answered within PROBE_TIMEOUT_MS counts as `unavailable`, and a new one is not
// started while it still hangs (a stopped server costs one connection, not one per probe). A
// late answer counts as soon as it arrives.
//
// Redis that has never answered since this process started is kept apart from Redis lost later
// (health.ts): a new instance that has not reached Redis yet has not shown that its REDIS_URL is
// right (a mistyped one would look like an outage forever).
import type { Knex } from 'knex';
import type { RedisClient } from '../platform/redis.ts';

export type CheckState = 'ok' | 'unavailable';

/** How often each dependency is probed. */
const PROBE_EVERY_MS = 1000;
/** A dependency that has not answered a probe within this long is unavailable. */
const PROBE_TIMEOUT_MS = 2000;

/** One dependency's probe: at most one in flight, bounded by its timeout. */
class Probe {
  /** null until the first probe has answered or timed out. */
  state: CheckState | null = null;
  /** Whether it has answered at least once since this process started. */
  everOk = false;
  private inFlight = false;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly check: () => Promise<unknown>,
    private readonly timeoutMs: number,
  ) {}

  run(): void {
    if (this.inFlight) return;
    this.inFlight = true;
    const timer = setTimeout(() => this.settle('unavailable'), this.timeoutMs);
    timer.unref();
    void Promise.resolve()
      .then(this.check)
      .then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      )
      .then((state) => {
        clearTimeout(timer);
        this.inFlight = false;
        this.settle(state);
      });
  }

  /** Resolves once the first probe has settled (or at once when one has). */
  settled(): Promise<void> {
    if (this.state !== null) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  private settle(state: CheckState): void {
    this.state = state;
    if (state === 'ok') this.everOk = true;
    for (const w of this.waiters) w();
    this.waiters.clear();
  }
}

export interface ReadinessSnapshot {
  postgres: CheckState;
  redis: CheckState;
  /** Redis has answered at least once since this process started. */
  redisReached: boolean;
}

export class Readiness {
  private readonly postgres: Probe;
  private readonly redis: Probe;
  private timer: NodeJS.Timeout | null = null;

  constructor(deps: { db: Knex; redis: RedisClient }, timeoutMs = PROBE_TIMEOUT_MS) {
    this.postgres = new Probe(() => deps.db.raw('select 1'), timeoutMs);
    this.redis = new Probe(() => deps.redis.ping(), timeoutMs);
  }

  start(everyMs = PROBE_EVERY_MS): void {
    if (this.timer) return;
    const tick = () => {
      this.postgres.run();
      this.redis.run();
    };
    tick();
    this.timer = setInterval(tick, everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Waits at most `ms` for the first probes (a process that has just started), then answers. */
  async snapshot(ms: number): Promise<ReadinessSnapshot> {
    if (this.postgres.state === null || this.redis.state === null) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([this.postgres.settled(), this.redis.settled()]),
        new Promise((resolve) => (timer = setTimeout(resolve, ms))),
      ]);
      clearTimeout(timer);
    }
    return {
      postgres: this.postgres.state ?? 'unavailable',
      redis: this.redis.state ?? 'unavailable',
      redisReached: this.redis.everOk,
    };
  }
}
