// The batch stage's limit: the rows the batches' recording wrote, read back once the stage is
// over and written again raw, so that the recording is compared with the same rows and nothing
// else. Per invoice: its `invoices` row (as recorded: `pendiente`, without the times the flow set
// since), its invoice.created event with its document's event counter (`event_sequences`, at 1)
// and its idempotency record. Per chunk of 500 of one batch (as jobs/batches/process.ts cuts
// them): the two outbox rows (events to dispatch, flows to start), the items' outcomes on
// `batch_items` and the series' last number. Into scratch tables made `like` the service's (same
// columns, defaults, indexes, storage; no triggers, no foreign keys), one transaction per chunk:
// a multi-row INSERT per table (every value as Postgres stores it, read as text), then batched
// UPDATEs. Timed on the wall clock, as the recording is.
import pg from 'pg';
import { round } from './http-load.ts';
import { asText, insertRows } from './raw-insert.ts';

const CHUNK = 500;
const TABLES = [
  'invoices',
  'events',
  'event_sequences',
  'idempotency_keys',
  'outbox',
  'batch_items',
  'numbering_series',
] as const;
type Table = (typeof TABLES)[number];
type Row = Record<string, unknown>;
const scratch = (t: Table) => `bench_batch_${t}`;
/** What the flow wrote on an invoice after its recording: left out of the rows written again. */
const AFTER_RECORDING = ['signed_at', 'submitted_at', 'accounted_at', 'accepted_at', 'hacienda_status'];

export interface BatchRows {
  seconds: number;
  invoices: number;
  transactions: number;
  rows: Record<Table, number>;
  /** pg_column_size of the rows written, per invoice. */
  bytes_per_invoice: number;
  /** Wall time of each statement (the transaction's begin and commit apart), summed over the chunks. */
  seconds_by_statement: Record<string, number>;
}

async function read(c: pg.Client, sql: string, values: unknown[]): Promise<Row[]> {
  return (await c.query({ text: sql, values, types: asText })).rows as Row[];
}

/** One multi-row INSERT of `rows` into `table`'s scratch copy. */
const insert = (c: pg.Client, table: Table, rows: Row[]) => insertRows(c, scratch(table), rows);

interface Source {
  invoices: Row[];
  events: Row[];
  sequences: Row[];
  keys: Row[];
  items: Row[];
  series: Row[];
  requestIds: Map<string, string>;
  bytes: number;
}

/** The rows of `table` per document id of $1, in that order. */
const byDocument = (table: string, extra = '') =>
  `select t.* from unnest($1::text[]) with ordinality as d(doc, n)
     join ${table} t on t.document = d.doc ${extra} order by d.n`;
const SIZES = `select (select coalesce(sum(pg_column_size(i.*)), 0) from invoices i where i.id = any($1))
   + (select coalesce(sum(pg_column_size(e.*)), 0) from events e
       where e.document = any($2) and e.type = 'invoice.created')
   + (select coalesce(sum(pg_column_size(k.*)), 0) from idempotency_keys k
       where (k.company_id, k.livemode, k.key) in (select t.company_id, t.livemode, b.idempotency_key
         from batch_items b join batches t on t.id = b.batch_id where b.batch_id = any($3))) as n`;

async function source(c: pg.Client, batchIds: number[], documentOf: (id: number) => string): Promise<Source> {
  const items = await read(
    c,
    'select * from batch_items where batch_id = any($1) order by batch_id, position',
    [batchIds],
  );
  const ids = items.flatMap((r) => (r.invoice_id ? [Number(r.invoice_id)] : []));
  const docs = ids.map(documentOf);
  const invoices = await read(
    c,
    `select i.* from unnest($1::bigint[]) with ordinality as d(id, n) join invoices i on i.id = d.id order by d.n`,
    [ids],
  );
  const events = await read(c, byDocument('events', `and t.type = 'invoice.created'`), [docs]);
  const sequences = await read(c, byDocument('event_sequences'), [docs]);
  const keys = await read(
    c,
    `select k.* from batch_items b join batches t on t.id = b.batch_id
       join idempotency_keys k on (k.company_id, k.livemode, k.key) = (t.company_id, t.livemode, b.idempotency_key)
      where b.batch_id = any($1) order by b.batch_id, b.position`,
    [batchIds],
  );
  const series = await read(
    c,
    `select distinct s.* from invoices i join numbering_series s
        on (i.company_id, i.livemode, i.doc_type, i.branch, i.terminal) = (s.company_id, s.livemode, s.doc_type, s.branch, s.terminal)
      where i.id = any($1)`,
    [ids],
  );
  const batches = await read(c, 'select id, request_id from batches where id = any($1)', [batchIds]);
  const bytes = (await c.query(SIZES, [ids, docs, batchIds])).rows[0].n;
  return {
    invoices: invoices.map((r) => ({
      ...Object.fromEntries(Object.entries(r).filter(([k]) => !AFTER_RECORDING.includes(k))),
      status: 'pendiente',
    })),
    events,
    sequences: sequences.map((r) => ({ ...r, last: 1 })),
    keys,
    items,
    series,
    requestIds: new Map(batches.map((b) => [String(b.id), String(b.request_id)])),
    bytes: Number(bytes),
  };
}

/** One chunk of one batch, in one transaction, as the recording writes it. */
async function writeChunk(
  c: pg.Client,
  s: Source,
  from: number,
  n: number,
  outboxId: number,
  spent: Record<string, number>,
): Promise<void> {
  const timed = async (what: string, write: () => Promise<unknown>) => {
    const t0 = performance.now();
    await write();
    spent[what] = (spent[what] ?? 0) + (performance.now() - t0) / 1000;
  };
  const invoices = s.invoices.slice(from, from + n);
  const items = s.items.slice(from, from + n);
  const events = s.events.slice(from, from + n);
  const requestId = s.requestIds.get(String(items[0]!.batch_id)) ?? null;
  const outbox = [
    { id: outboxId, kind: 'event.dispatch', payload: { eventIds: events.map((e) => Number(e.id)) } },
    { id: outboxId + 1, kind: 'invoice.flow', payload: { invoiceIds: invoices.map((i) => Number(i.id)) } },
  ].map((r) => ({ ...r, payload: JSON.stringify(r.payload), request_id: requestId }));
  await timed('begin', () => c.query('begin'));
  await timed('numbering_series', () =>
    c.query(`update ${scratch('numbering_series')} set last_number = last_number + $1`, [n]),
  );
  await timed('invoices', () => insert(c, 'invoices', invoices));
  await timed('events', () => insert(c, 'events', events));
  await timed('event_sequences', () => insert(c, 'event_sequences', s.sequences.slice(from, from + n)));
  await timed('outbox', () => insert(c, 'outbox', outbox));
  await timed('idempotency_keys', () => insert(c, 'idempotency_keys', s.keys.slice(from, from + n)));
  await timed('batch_items', () =>
    c.query(
      `update ${scratch('batch_items')} b set status = 'created', invoice_id = v.invoice_id
         from unnest($2::int[], $3::bigint[]) as v(position, invoice_id)
        where b.batch_id = $1 and b.position = v.position and b.status = 'pending'`,
      [items[0]!.batch_id, items.map((i) => i.position), items.map((i) => i.invoice_id)],
    ),
  );
  await timed('commit', () => c.query('commit'));
}

/** Seconds to write the recorded rows of `batchIds` again raw (see the header). */
export async function rawBatchRows(
  url: string,
  batchIds: number[],
  documentOf: (invoiceId: number) => string,
): Promise<BatchRows> {
  const c = new pg.Client({ connectionString: url, application_name: 'factura-bench-raw' });
  await c.connect();
  try {
    const s = await source(c, batchIds, documentOf);
    const n = s.invoices.length;
    if ([s.items, s.events, s.sequences, s.keys].some((rows) => rows.length !== n) || !n)
      throw new Error(
        `the batches' rows do not match: ${s.items.length} items, ${n} invoices, ${s.events.length} events, ${s.sequences.length} event counters, ${s.keys.length} idempotency records`,
      );
    for (const t of TABLES) {
      await c.query(`drop table if exists ${scratch(t)}`);
      await c.query(`create table ${scratch(t)} (like ${t} including all)`);
    }
    await insert(c, 'numbering_series', s.series);
    for (let i = 0; i < s.items.length; i += CHUNK)
      await insert(
        c,
        'batch_items',
        s.items
          .slice(i, i + CHUNK)
          .map((r) => ({ ...r, status: 'pending', invoice_id: null, problem: null })),
      );
    await c.query('vacuum analyze ' + TABLES.map(scratch).join(', '));
    let transactions = 0;
    const spent: Record<string, number> = {};
    const t0 = performance.now();
    // Chunks of CHUNK within each batch, as the recording cuts them.
    for (let i = 0; i < s.items.length;) {
      const batch = s.items[i]!.batch_id;
      let n = 0;
      while (n < CHUNK && i + n < s.items.length && s.items[i + n]!.batch_id === batch) n++;
      await writeChunk(c, s, i, n, 2 * transactions + 1, spent);
      transactions++;
      i += n;
    }
    const seconds = (performance.now() - t0) / 1000;
    for (const t of TABLES) await c.query(`drop table if exists ${scratch(t)}`);
    return {
      seconds: round(seconds, 3),
      invoices: s.invoices.length,
      transactions,
      rows: {
        invoices: s.invoices.length,
        events: s.events.length,
        event_sequences: s.sequences.length,
        idempotency_keys: s.keys.length,
        outbox: 2 * transactions,
        batch_items: s.items.length,
        numbering_series: transactions,
      },
      bytes_per_invoice: round(s.bytes / s.invoices.length, 0),
      seconds_by_statement: Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, round(v, 3)])),
    };
  } finally {
    await c.end();
  }
}
