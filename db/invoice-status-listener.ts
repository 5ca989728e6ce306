// One `LISTEN invoice_status` session per process: the trigger of migration
// 20261123200000_invoice_status_notify (widened by 20261228000100_invoice_wait_final_notify) sends
// the invoice id on that channel whenever an invoice's status changes or its flow stops waiting for
// a person, at commit. The session is a connection of its own (a pooled connection cannot
// keep a LISTEN), opened on first use and kept; when it is lost it is re-opened with growing waits
// (1 s doubling to 30 s). Notifications sent while it was down are gone for good, so whoever
// relies on it is told when listening stops and when it starts again (and should re-read).
import pg from 'pg';

export const INVOICE_STATUS_CHANNEL = 'invoice_status';
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;
const CONNECT_TIMEOUT_MS = 5000;

export interface InvoiceStatusListenerOptions {
  databaseUrl: string;
  /** An invoice's status changed, or its flow stopped (committed). */
  onChange(invoiceId: number): void;
  /** Listening stopped: changes may now go unheard until onListening. */
  onLost(err: unknown): void;
  /** Listening (again): changes from now on are heard; earlier ones may have been missed. */
  onListening(): void;
}

export interface InvoiceStatusListener {
  readonly listening: boolean;
  /** Starts the session if needed; resolves whether it listens, waiting at most `timeoutMs`. */
  ensure(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** A session's connection, not yet open: reports every status change it hears, and its loss. */
function newSession(
  options: InvoiceStatusListenerOptions,
  lost: (c: pg.Client, err: unknown) => void,
): pg.Client {
  const c = new pg.Client({
    connectionString: options.databaseUrl,
    application_name: 'factura-waits',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  c.on('notification', (msg) => {
    const id = Number(msg.payload);
    if (msg.channel === INVOICE_STATUS_CHANNEL && Number.isSafeInteger(id)) options.onChange(id);
  });
  c.on('error', (err) => lost(c, err));
  c.on('end', () => lost(c, new Error('listener connection ended')));
  return c;
}

/** Waits for `p`, but no longer than `ms`. */
async function waitAtMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

export function createInvoiceStatusListener(options: InvoiceStatusListenerOptions): InvoiceStatusListener {
  let client: pg.Client | null = null;
  let listening = false;
  let closed = false;
  let connecting: Promise<void> | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let retryMs = RETRY_MIN_MS;

  const lost = (c: pg.Client, err: unknown) => {
    if (client !== c) return; // an older session, already replaced
    client = null;
    const was = listening;
    listening = false;
    c.end().catch(() => {});
    if (was) options.onLost(err);
    scheduleRetry();
  };

  const scheduleRetry = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
  };

  const connect = (): Promise<void> => {
    if (connecting) return connecting;
    connecting = (async () => {
      const c = newSession(options, lost);
      client = c;
      try {
        await c.connect();
        await c.query(`listen ${INVOICE_STATUS_CHANNEL}`);
        if (closed || client !== c) {
          await c.end().catch(() => {});
          return;
        }
        listening = true;
        retryMs = RETRY_MIN_MS;
        options.onListening();
      } catch (err) {
        if (client === c) {
          client = null;
          c.end().catch(() => {});
          options.onLost(err);
          scheduleRetry();
        }
      }
    })().finally(() => {
      connecting = null;
    });
    return connecting;
  };

  return {
    get listening() {
      return listening;
    },
    async ensure(timeoutMs) {
      if (listening || closed) return listening;
      const attempt = connecting ?? (retryTimer ? null : connect());
      if (attempt) await waitAtMost(attempt, timeoutMs);
      return listening;
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      const c = client;
      client = null;
      listening = false;
      await connecting?.catch(() => {});
      await c?.end().catch(() => {});
    },
  };
}
