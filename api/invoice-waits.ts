// Requests waiting on an invoice (`Prefer: wait=N`), for one API process. A waiter costs the
// database two reads: one when it starts and one when it ends — when the invoice's status changes
// or its flow stops (a NOTIFY heard on this process's single LISTEN session, shared by every
// waiter) or at its deadline. Nothing polls while the listener is up; while it is down (Postgres
// restarting, the session lost) waiters fall back to re-reading every SLOW_POLL_MS, and all re-read
// once when listening resumes, since changes made in between were not heard.
//
// Fairness: a company may have at most `maxPerCompany` waiters on this process (its live and
// sandbox keys together). Past that a request is not refused — it is answered at once with the
// invoice's current state, without `Preference-Applied` (RFC 7240: a preference may be ignored).
// The cap is per process, not cluster-wide: it guards what one process holds (sockets, memory)
// and needs no Redis round trip, so with N API processes a company can hold N × the cap.
import type { FastifyInstance } from 'fastify';
import { createInvoiceStatusListener, type InvoiceStatusListener } from '../db/invoice-status-listener.ts';

/** Re-read period of each waiter while the listener is down. */
const SLOW_POLL_MS = 2000;
/** How long a waiter lets a first connection of the listener take before polling instead. */
const ENSURE_MS = 1000;

type Wake = 'changed' | 'recheck' | 'timer' | 'gone';

interface Waiter {
  invoiceId: number;
  /** A wake-up that arrived while the waiter was reading: its next sleep returns at once. */
  pending: Wake | null;
  wake: ((why: Wake) => void) | null;
}

export interface InvoiceWaitsOptions {
  databaseUrl: string;
  maxPerCompany: number;
  onError(err: unknown): void;
}

export class InvoiceWaits {
  private readonly byInvoice = new Map<number, Set<Waiter>>();
  private readonly perCompany = new Map<number, number>();
  private listener: InvoiceStatusListener | null = null;
  private closing = false;
  /** Listening stopped (or never started) since waiters last re-read: changes may be unheard. */
  private missed = true;
  /** Requests answered at once because their company was at the cap (for /metrics). */
  declined = 0;

  constructor(private readonly options: InvoiceWaitsOptions) {}

  /** Waiters on this process right now. */
  get size(): number {
    let n = 0;
    for (const set of this.byInvoice.values()) n += set.size;
    return n;
  }

  get listening(): boolean {
    return this.listener?.listening ?? false;
  }

  /** A waiting slot of the company, released by the returned function; null at the cap. */
  admit(companyId: number): (() => void) | null {
    const held = this.perCompany.get(companyId) ?? 0;
    if (this.closing || held >= this.options.maxPerCompany) {
      this.declined += 1;
      return null;
    }
    this.perCompany.set(companyId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.perCompany.get(companyId) ?? 1) - 1;
      if (n > 0) this.perCompany.set(companyId, n);
      else this.perCompany.delete(companyId);
    };
  }

  /**
   * Reads the invoice, then again each time it changes, until `done(row)` or the deadline (or
   * `gone` fires: the client left). Returns the last row read.
   */
  async wait<T>(
    invoiceId: number,
    read: () => Promise<T>,
    done: (row: T) => boolean,
    deadline: number,
    gone: (abort: () => void) => void,
  ): Promise<T> {
    const w: Waiter = { invoiceId, pending: null, wake: null };
    this.add(w);
    gone(() => this.poke(w, 'gone'));
    try {
      // Listen before the first read, so no change after that read goes unheard.
      await this.listenerFor().ensure(ENSURE_MS);
      let row = await read();
      for (;;) {
        if (done(row) || this.closing) return row;
        const left = deadline - Date.now();
        if (left <= 0) return row;
        const why = await this.sleep(w, this.listening ? left : Math.min(left, SLOW_POLL_MS));
        if (why === 'gone') return row;
        if (why === 'recheck' && !this.closing) continue; // the listener went away: re-plan
        row = await read();
      }
    } finally {
      this.remove(w);
    }
  }

  /** Wakes every waiter to answer now with what it has (the process is shutting down). */
  shutdown(): void {
    this.closing = true;
    this.pokeAll('recheck');
  }

  async close(): Promise<void> {
    this.shutdown();
    await this.listener?.close();
  }

  private listenerFor(): InvoiceStatusListener {
    this.listener ??= createInvoiceStatusListener({
      databaseUrl: this.options.databaseUrl,
      onChange: (id) => {
        for (const w of this.byInvoice.get(id) ?? []) this.poke(w, 'changed');
      },
      onLost: (err) => {
        this.options.onError(err);
        this.missed = true;
        this.pokeAll('recheck');
      },
      onListening: () => {
        if (!this.missed) return;
        this.missed = false;
        this.pokeAll('changed');
      },
    });
    return this.listener;
  }

  private sleep(w: Waiter, ms: number): Promise<Wake> {
    if (w.pending) {
      const why = w.pending;
      w.pending = null;
      return Promise.resolve(why);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => done('timer'), ms);
      const done = (why: Wake) => {
        clearTimeout(timer);
        w.wake = null;
        resolve(why);
      };
      w.wake = done;
    });
  }

  private poke(w: Waiter, why: Wake): void {
    if (w.wake) w.wake(why);
    // 'gone' outranks everything; otherwise a change (re-read) outranks a recheck (re-plan).
    else if (w.pending !== 'gone' && !(w.pending === 'changed' && why === 'recheck')) w.pending = why;
  }

  private pokeAll(why: Wake): void {
    for (const set of this.byInvoice.values()) for (const w of set) this.poke(w, why);
  }

  private add(w: Waiter): void {
    let set = this.byInvoice.get(w.invoiceId);
    if (!set) this.byInvoice.set(w.invoiceId, (set = new Set()));
    set.add(w);
  }

  private remove(w: Waiter): void {
    const set = this.byInvoice.get(w.invoiceId);
    set?.delete(w);
    if (set && set.size === 0) this.byInvoice.delete(w.invoiceId);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    invoiceWaits: InvoiceWaits;
  }
}

/** One InvoiceWaits per app; waiters answer at once when the app starts closing. */
export function registerInvoiceWaits(
  app: FastifyInstance,
  options: Omit<InvoiceWaitsOptions, 'onError'>,
): void {
  const waits = new InvoiceWaits({
    ...options,
    onError: (err) =>
      app.log.warn({ err }, 'invoice status listener lost; waiting requests poll until it is back'),
  });
  app.decorate('invoiceWaits', waits);
  app.addHook('preClose', async () => waits.shutdown());
  app.addHook('onClose', async () => waits.close());
}
