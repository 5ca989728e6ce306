// The floor's rows part: the rows one accepted invoice must write, copied from a real accepted
// invoice of this run (every column's value as stored, so the sizes and JSON are the real ones)
// into scratch tables made `like` the service's (same columns, defaults, indexes, storage): the
// invoice, its signed document, its accounting entry and its lines, one event and one webhook
// delivery, as multi-row INSERTs of `perTx` invoices in one transaction, then its state changes as
// batched UPDATEs, each its own transaction as the pipeline's steps are (the lifecycle times the
// real invoice has set, the document's answer, the delivery's outcome). CPU: this process's own
// clock, the Postgres backend's (pg_backend_pid() in /proc), and the server's WAL writer,
// checkpointer and background writer, which serve every database of the server (shown apart).
import pg from 'pg';
import { paced } from './floor-paced.ts';
import { round } from './http-load.ts';
import { cpuNsOf, ownCpuMs } from './proc-stats.ts';
import { sampleRows, type Sample } from './floor-sample.ts';
import { insertRows } from './raw-insert.ts';

export interface RowsFloor {
  cpu_ms_per_invoice: number;
  client_cpu_ms_per_invoice: number;
  backend_cpu_ms_per_invoice: number;
  /** WAL writer, checkpointer, background writer: included in cpu_ms_per_invoice. */
  server_processes_cpu_ms_per_invoice: number;
  invoices: number;
  invoices_per_transaction: number;
  rows_per_invoice: Record<string, number>;
  bytes_per_invoice: Record<string, number>;
  updates_per_invoice: Record<string, number>;
  transactions_per_batch: number;
}

const TABLES = [
  'invoices',
  'invoice_documents',
  'journal_entries',
  'journal_lines',
  'events',
  'webhook_deliveries',
] as const;
type Table = (typeof TABLES)[number];
type Row = Record<string, unknown>;
const scratch = (t: Table) => `floor_${t}`;
/** The value with its last ten characters replaced by `i` (unique keys stay unique, same length). */
const unique = (v: unknown, i: number) => `${String(v).slice(0, -10)}${String(i).padStart(10, '0')}`;

/** One multi-row INSERT of `rows` into `table`'s scratch copy, returning the new ids (or nothing). */
async function insert(c: pg.Client, table: Table, rows: Row[], returning = true): Promise<string[]> {
  const inserted = await insertRows(c, scratch(table), rows, returning ? 'id' : undefined);
  return inserted.map((r) => String(r.id));
}

async function inTx(c: pg.Client, fn: () => Promise<unknown>): Promise<void> {
  await c.query('begin');
  await fn();
  await c.query('commit');
}

/** The inserts of `n` invoices (one transaction), numbered from `first`. */
async function insertBatch(
  c: pg.Client,
  s: Sample,
  first: number,
  n: number,
): Promise<Record<string, string[]>> {
  const ids: Record<string, string[]> = {};
  await inTx(c, async () => {
    const k = Array.from({ length: n }, (_, i) => first + i);
    ids.invoices = await insert(
      c,
      'invoices',
      k.map((i) => ({
        ...s.invoice,
        number: String(1e9 + i),
        clave: unique(s.invoice.clave, i),
        consecutivo: unique(s.invoice.consecutivo, i),
      })),
    );
    await insert(
      c,
      'invoice_documents',
      ids.invoices.map((id) => ({ ...s.document, invoice_id: id, response_xml: null })),
      false,
    );
    const entries = await insert(
      c,
      'journal_entries',
      ids.invoices.map((id) => ({ ...s.entry, invoice_id: id })),
    );
    await insert(
      c,
      'journal_lines',
      entries.flatMap((e) => s.lines.map((l) => ({ ...l, entry_id: e }))),
      false,
    );
    ids.events = await insert(
      c,
      'events',
      k.map(() => s.event),
    );
    ids.deliveries = await insert(
      c,
      'webhook_deliveries',
      ids.events.map((e) => ({ ...s.delivery, event_id: e })),
    );
  });
  return ids;
}

/** The state changes of a batch, each its own transaction. */
async function updateBatch(c: pg.Client, s: Sample, ids: Record<string, string[]>): Promise<number> {
  let txs = 0;
  for (const column of s.lifecycle) {
    await c.query(
      `update ${scratch('invoices')} set status = $2, ${column} = now(), updated_at = now() where id = any($1)`,
      [ids.invoices, s.invoice.status],
    );
    txs++;
  }
  await c.query(
    `update ${scratch('invoice_documents')} set response_xml = $2, response_at = now(), updated_at = now() where invoice_id = any($1)`,
    [ids.invoices, s.document.response_xml],
  );
  await c.query(
    `update ${scratch('webhook_deliveries')} set status = 'delivered', attempts = 1, delivered_at = now(), last_attempt_at = now(), last_status_code = 200, updated_at = now() where id = any($1)`,
    [ids.deliveries],
  );
  return txs + 2;
}

/**
 * Writes `invoices` invoices' rows in transactions of `perTx` and counts the CPU; with `rate`, one
 * invoice at a time (its inserts, then its updates), `rate` invoices a second (floor-paced.ts).
 */
export async function measureRowsFloor(
  databaseUrl: string,
  invoiceId: number,
  invoices: number,
  perTx = 100,
  rate: number | null = null,
): Promise<RowsFloor> {
  const c = new pg.Client({ connectionString: databaseUrl, application_name: 'factura-bench-floor' });
  await c.connect();
  try {
    const s = await sampleRows(c, invoiceId);
    for (const t of TABLES) {
      await c.query(`drop table if exists ${scratch(t)}`);
      await c.query(`create table ${scratch(t)} (like ${t} including all)`);
    }
    const backend = Number((await c.query('select pg_backend_pid() as pid')).rows[0].pid);
    const server = (
      await c.query(
        `select pid from pg_stat_activity where backend_type in ('walwriter', 'checkpointer', 'background writer')`,
      )
    ).rows.map((r: { pid: number }) => Number(r.pid));
    const serverNs = () => server.reduce((a, p) => a + cpuNsOf(p), 0);
    let txs = 0;
    const run = async (from: number, n: number) => {
      for (let i = 0; i < n; i += perTx) {
        const ids = await insertBatch(c, s, from + i, Math.min(perTx, n - i));
        txs = 1 + (await updateBatch(c, s, ids));
      }
    };
    await run(0, perTx);
    const [b0, s0, cpu0] = [cpuNsOf(backend), serverNs(), process.cpuUsage()];
    await (rate ? paced(invoices, rate, (i) => run(perTx + i, 1)) : run(perTx, invoices));
    const clientMs = ownCpuMs(cpu0);
    const backendMs = (cpuNsOf(backend) - b0) / 1e6;
    const serverMs = (serverNs() - s0) / 1e6;
    const per = (ms: number) => round(ms / invoices, 4);
    for (const t of TABLES) await c.query(`drop table if exists ${scratch(t)}`);
    return {
      cpu_ms_per_invoice: per(clientMs + backendMs + serverMs),
      client_cpu_ms_per_invoice: per(clientMs),
      backend_cpu_ms_per_invoice: per(backendMs),
      server_processes_cpu_ms_per_invoice: per(serverMs),
      invoices,
      invoices_per_transaction: rate ? 1 : perTx,
      rows_per_invoice: {
        invoices: 1,
        invoice_documents: 1,
        journal_entries: 1,
        journal_lines: s.lines.length,
        events: 1,
        webhook_deliveries: 1,
      },
      bytes_per_invoice: s.bytes,
      updates_per_invoice: { invoices: s.lifecycle.length, invoice_documents: 1, webhook_deliveries: 1 },
      transactions_per_batch: txs,
    };
  } finally {
    await c.end();
  }
}
