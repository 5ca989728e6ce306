// Group commit for the delivery jobs of one worker process. A delivery job reads its delivery
// (with its event and endpoint) before the POST and records the attempt with its outcome after
// it; on its own, each would be a round trip and a COMMIT (and its WAL flush) per job. Instead,
// what the concurrent jobs ask for within a few milliseconds — and whatever arrives while a
// transaction is in flight — goes into one transaction: the contexts the starting jobs need (each
// delivery, event and endpoint read once), then the finished attempts in one multi-row statement
// (plus the 410 disables and abandoned deliveries); a group of finished attempts alone is that
// one statement, without BEGIN and COMMIT. A job is answered only after that
// transaction has committed, so a job completes only once its outcome is durable. If a shared
// transaction fails as a whole, its requests are run one by one, so one bad request cannot fail
// the others.
import type { Knex } from 'knex';
import {
  abandonDeliveries,
  deliveryKey,
  disableEndpoints,
  loadDeliveryContexts,
  recordAttempts,
  type AttemptOutcome,
  type DeliveryContext,
  type DeliveryKey,
} from '../../db/queries/webhooks.ts';

/** Most requests one shared transaction carries. */
const MAX_GROUP = 500;
/** How long, and how many, contexts read by the fan-out are kept for their jobs. */
const PRIMED_MS = 10_000;
const PRIMED_MAX = 5_000;

type Request =
  | { kind: 'load'; key: DeliveryKey; resolve: (c: DeliveryContext | undefined) => void; reject: Rejecter }
  | {
      kind: 'record';
      outcome: AttemptOutcome;
      /** A 410 Gone: the endpoint is disabled in the same transaction. */
      disable: { endpointId: number; reason: string } | null;
      resolve: () => void;
      reject: Rejecter;
    }
  | {
      kind: 'abandon';
      item: { deliveryId: number; round: number; reason: string };
      resolve: () => void;
      reject: Rejecter;
    };
type Rejecter = (err: unknown) => void;

export interface DeliveryStoreOptions {
  /** How long the first request waits for others to join its transaction (0: none). */
  groupMs?: number;
}

export class DeliveryStore {
  private queue: Request[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly groupMs: number;
  private readonly primed = new Map<
    string,
    { context: DeliveryContext; committed: Promise<boolean>; until: number }
  >();
  /** Transactions committed, and loads answered from the fan-out's reads (for tests). */
  transactions = 0;
  primedHits = 0;

  constructor(
    private readonly db: Knex,
    o: DeliveryStoreOptions = {},
  ) {
    this.groupMs = o.groupMs ?? 5;
  }

  /**
   * Contexts the fan-out read in its own transaction (the deliveries it has just created or made
   * pending again), for the first run of their jobs in this process: usable once that transaction
   * has committed, for a short while, once each.
   */
  prime(contexts: Iterable<DeliveryContext>, committed: Promise<unknown>): void {
    const ok = committed.then(
      () => true,
      () => false,
    );
    const until = Date.now() + PRIMED_MS;
    for (const c of contexts) {
      this.primed.delete(deliveryKey(c.key));
      this.primed.set(deliveryKey(c.key), { context: c, committed: ok, until });
    }
    if (this.primed.size > PRIMED_MAX) {
      const now = Date.now();
      for (const [k, p] of this.primed)
        if (p.until < now || this.primed.size > PRIMED_MAX) this.primed.delete(k);
    }
  }

  /**
   * The delivery of (event, endpoint) with its event and endpoint; undefined when either is gone.
   * A job's first run takes what the fan-out read for its round, if this process fanned it out.
   */
  async load(
    key: DeliveryKey,
    o: { round: number; firstRun: boolean } = { round: 0, firstRun: false },
  ): Promise<DeliveryContext | undefined> {
    const id = deliveryKey(key);
    const p = this.primed.get(id);
    if (p) {
      this.primed.delete(id);
      if (o.firstRun && p.context.round === o.round && (await p.committed) && p.until >= Date.now()) {
        this.primedHits += 1;
        return p.context;
      }
    }
    return new Promise((resolve, reject) => this.push({ kind: 'load', key, resolve, reject }));
  }

  /** Records a finished attempt; resolves once it is committed. */
  record(
    outcome: AttemptOutcome,
    disable: { endpointId: number; reason: string } | null = null,
  ): Promise<void> {
    return new Promise((resolve, reject) => this.push({ kind: 'record', outcome, disable, resolve, reject }));
  }

  /** Marks a delivery failed without an attempt; resolves once it is committed. */
  abandon(item: { deliveryId: number; round: number; reason: string }): Promise<void> {
    return new Promise((resolve, reject) => this.push({ kind: 'abandon', item, resolve, reject }));
  }

  /** Waits for every request made so far to be answered. */
  async drain(): Promise<void> {
    while (this.queue.length || this.running || this.timer) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
        this.start();
      }
      await this.running;
    }
  }

  private push(r: Request): void {
    this.queue.push(r);
    if (this.running || this.timer) return;
    if (this.groupMs <= 0) this.start();
    else
      this.timer = setTimeout(() => {
        this.timer = null;
        this.start();
      }, this.groupMs);
  }

  private start(): void {
    if (this.running) return;
    this.running = this.loop().finally(() => {
      this.running = null;
      // Requests that came after the loop's last look start their own wait.
      if (this.queue.length && !this.timer) this.start();
    });
  }

  private async loop(): Promise<void> {
    while (this.queue.length) {
      // At most one finished attempt per delivery in a transaction (its attempt number is the
      // delivery's count after the update): a second one waits for the next.
      const group: Request[] = [];
      const rest: Request[] = [];
      const recorded = new Set<number>();
      for (const r of this.queue) {
        if (group.length >= MAX_GROUP) rest.push(r);
        else if (r.kind === 'record' && recorded.has(r.outcome.deliveryId)) rest.push(r);
        else {
          if (r.kind === 'record') recorded.add(r.outcome.deliveryId);
          group.push(r);
        }
      }
      this.queue = rest;
      await this.run(group);
    }
  }

  private async run(group: Request[]): Promise<void> {
    try {
      const loaded = await this.transaction(group);
      this.answer(group, loaded);
    } catch (err) {
      if (group.length === 1) {
        group[0]!.reject(err);
        return;
      }
      for (const r of group) {
        try {
          this.answer([r], await this.transaction([r]));
        } catch (e) {
          r.reject(e);
        }
      }
    }
  }

  private async transaction(group: Request[]): Promise<Map<string, DeliveryContext>> {
    // Finished attempts alone (the usual group at light load: one delivery) are one statement,
    // atomic and durable on its own: no BEGIN and COMMIT around it.
    if (group.every((r) => r.kind === 'record' && r.disable === null)) {
      await recordAttempts(
        this.db,
        group.flatMap((r) => (r.kind === 'record' ? [r.outcome] : [])),
      );
      this.transactions += 1;
      return new Map();
    }
    const loaded = await this.db.transaction(async (trx) => {
      const outcomes: AttemptOutcome[] = [];
      const disables: { endpointId: number; reason: string }[] = [];
      const abandons: { deliveryId: number; round: number; reason: string }[] = [];
      const loads: DeliveryKey[] = [];
      for (const r of group) {
        if (r.kind === 'record') {
          outcomes.push(r.outcome);
          if (r.disable) disables.push(r.disable);
        } else if (r.kind === 'abandon') abandons.push(r.item);
        else loads.push(r.key);
      }
      // Reads first: a delivery not yet committed by the fan-out waits for the relay's
      // transaction before this one holds any row lock the relay could wait for in turn.
      const loaded = await loadDeliveryContexts(trx, loads);
      await recordAttempts(trx, outcomes);
      await disableEndpoints(trx, disables);
      await abandonDeliveries(trx, abandons);
      return loaded;
    });
    this.transactions += 1;
    return loaded;
  }

  private answer(group: Request[], loaded: Map<string, DeliveryContext>): void {
    for (const r of group) {
      if (r.kind === 'load') r.resolve(loaded.get(deliveryKey(r.key)));
      else r.resolve();
    }
  }
}
