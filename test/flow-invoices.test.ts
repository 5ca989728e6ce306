// The relay's read of the invoices it starts (flowInvoices, db/queries/invoice-flow.ts) with their
// company's place among its chunks still waiting to be signed: right, and computed once per
// company and mode whatever the number of invoices (each computation walks the company's
// `pendiente` invoices: a backlog of thousands made every relay pass walk them once per invoice).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { flowInvoices } from '../db/queries/invoice-flow.ts';
import { createTestCompany } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { insertPendingInvoices } from './helpers/invoice-rows.ts';

let t: TestDatabase;
let companyId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  companyId = (await createTestCompany(t.db, { idNumber: '3101765432' })).id;
});
afterAll(async () => {
  await t.drop();
});

it('reads the invoices with their company place, computed once per company and mode', async () => {
  // A backlog waiting to be signed, its highest place 4000, and 30 new invoices without a flow.
  await insertPendingInvoices(t.db, companyId, { from: 1, n: 2000, chunk: 'chunk-backlog', priority: 4000 });
  const fresh = await insertPendingInvoices(t.db, companyId, { from: 2001, n: 30 });

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
