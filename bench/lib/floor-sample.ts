// The rows of one real accepted invoice of this run, as Postgres stores them (every value read as
// its text form, bytea as bytes), for the floor's raw inserts: the invoice, its signed document,
// its accounting entry and lines, the latest invoice.accepted event and a webhook delivery of it.
// Generated ids are left out (the scratch tables number their own rows); `lifecycle` lists the
// invoice's lifecycle times that are set (each one a state change the pipeline writes).
import type pg from 'pg';
import { asText } from './raw-insert.ts';

type Row = Record<string, unknown>;

export interface Sample {
  invoice: Row;
  document: Row;
  entry: Row;
  lines: Row[];
  event: Row;
  delivery: Row;
  lifecycle: string[];
  /** pg_column_size of each real row (the lines summed). */
  bytes: Record<string, number>;
}

const LIFECYCLE = ['signed_at', 'submitted_at', 'accounted_at', 'accepted_at'];

async function rows(c: pg.Client, sql: string, params: unknown[], what: string): Promise<Row[]> {
  const res = await c.query({ text: sql, values: params, types: asText });
  if (!res.rows.length) throw new Error(`the floor needs ${what} of this run`);
  return res.rows as Row[];
}

const omit = (r: Row, ...keys: string[]) =>
  Object.fromEntries(Object.entries(r).filter(([k]) => !keys.includes(k)));
const size = (table: string, where: string) =>
  `select coalesce(sum(pg_column_size(t.*)), 0)::int as n from ${table} t where ${where}`;

export async function sampleRows(c: pg.Client, invoiceId: number): Promise<Sample> {
  const [invoice] = await rows(c, 'select * from invoices where id = $1', [invoiceId], 'an accepted invoice');
  const [document] = await rows(
    c,
    'select * from invoice_documents where invoice_id = $1',
    [invoiceId],
    'its document',
  );
  const [entry] = await rows(
    c,
    `select * from journal_entries where invoice_id = $1 and kind = 'invoice'`,
    [invoiceId],
    'its journal entry',
  );
  const lines = await rows(
    c,
    'select * from journal_lines where entry_id = $1',
    [entry!.id],
    'its journal lines',
  );
  const [event] = await rows(
    c,
    `select * from events where type = 'invoice.accepted' order by id desc limit 1`,
    [],
    'an invoice.accepted event',
  );
  const [delivery] = await rows(
    c,
    'select * from webhook_deliveries order by id desc limit 1',
    [],
    'a webhook delivery',
  );
  const bytes: Record<string, number> = {};
  for (const [name, table, where, v] of [
    ['invoices', 'invoices', 'id = $1', invoiceId],
    ['invoice_documents', 'invoice_documents', 'invoice_id = $1', invoiceId],
    ['journal_entries', 'journal_entries', 'id = $1', entry!.id],
    ['journal_lines', 'journal_lines', 'entry_id = $1', entry!.id],
    ['events', 'events', 'id = $1', event!.id],
    ['webhook_deliveries', 'webhook_deliveries', 'id = $1', delivery!.id],
  ] as const)
    bytes[name] = Number((await c.query(size(table, where), [v])).rows[0].n);
  const signed = String(document!.signed_xml);
  return {
    invoice: omit(invoice!, 'id'),
    document: { ...document!, signed_xml: Buffer.from(signed.slice(2), 'hex') },
    entry: omit(entry!, 'id'),
    lines: lines.map((l) => omit(l, 'id')),
    event: omit(event!, 'id'),
    delivery: omit(delivery!, 'id'),
    lifecycle: LIFECYCLE.filter((k) => invoice![k] !== null),
    bytes,
  };
}
