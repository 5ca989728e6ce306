// The relay's read of the invoices it starts (flowInvoices, db/queries/invoice-flow.ts) with their
// company's place among its chunks still waiting to be signed: right, and computed once per
// company and mode whatever the number of invoices (each computation walks the company's
// `pendiente` invoices: a backlog of thousands made every relay pass walk them once per invoice).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { flowInvoices } from '../db/queries/invoice-flow.ts';
import { createTestCompany } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

let t: TestDatabase;
let companyId: number;

/** `n` invoices of the company from number `from`, `pendiente`, with the given chunk and place. */
async function insertInvoices(from: number, n: number, chunk: string | null, priority: number | null) {
  const rows = await t.db.raw(
    `insert into invoices (company_id, livemode, doc_type, branch, terminal, number, clave, consecutivo,
                           status, currency, exchange_rate, condition, condicion_venta, payment_methods,
                           total, balance_due, lines, summary, flow_chunk, flow_priority)
     select ?, false, '01', '001', '00001', g,
            '50601012600310176543200100001010' || lpad(g::text, 10, '0') || '11234567',
            '0010000101' || lpad(g::text, 10, '0'),
            'pendiente', 'CRC', 1, 'contado', '01', '["efectivo"]', 1000, 1000, '[]', '{}', ?, ?
       from generate_series(?::int, ?::int) g
     returning id`,
    [companyId, chunk, priority, from, from + n - 1],
  );
  return (rows.rows as { id: string }[]).map((r) => Number(r.id));
}

beforeAll(async () => {
  t = await createTestDatabase();
  companyId = (await createTestCompany(t.db, { idNumber: '3101765432' })).id;
});
afterAll(async () => {
  await t.drop();
});

it('reads the invoices with their company place, computed once per company and mode', async () => {
  // A backlog waiting to be signed, its highest place 4000, and 30 new invoices without a flow.
  await insertInvoices(1, 2000, 'chunk-backlog', 4000);
  const fresh = await insertInvoices(2001, 30, null, null);

  const read = await t.db.transaction((trx) => flowInvoices(trx, fresh));
  expect([...read.invoices.keys()]).toEqual(fresh);
  expect(read.invoices.get(fresh[0]!)).toMatchObject({ companyId, livemode: false, traceContext: null });
  expect(read.waiting).toEqual(new Map([[`${companyId}:false`, 4000]]));

  // The same statement, explained: the walk of the company's pending invoices runs once.
  let sent: { sql: string; bindings: unknown[] } | undefined;
  const seen = (q: { sql: string; bindings: unknown[] }) => {
    if (/with f as/.test(q.sql)) sent = q;
  };
  t.db.on('query', seen);
  await t.db.transaction((trx) => flowInvoices(trx, fresh)).finally(() => t.db.off('query', seen));
  const conn = await t.db.client.acquireConnection();
  try {
    const res = await conn.query(`explain (analyze, format json) ${sent!.sql}`, sent!.bindings);
    const walks: number[] = [];
    const visit = (node: Record<string, unknown>) => {
      if (node['Parent Relationship'] === 'SubPlan' || node['Subplan Name'])
        walks.push(node['Actual Loops'] as number);
      for (const child of (node['Plans'] as Record<string, unknown>[] | undefined) ?? []) visit(child);
    };
    visit(res.rows[0]['QUERY PLAN'][0].Plan);
    expect(walks.length).toBeGreaterThan(0);
    expect(Math.max(...walks)).toBe(1);
  } finally {
    await t.db.client.releaseConnection(conn);
  }
});
