// The relay's read of the invoices it starts (flowInvoices, db/queries/invoice-flow.ts) with their
// company's place among its chunks still waiting to be signed: right, computed once per company
// and mode whatever the number of invoices (an inlined computation ran once per invoice of the
// pass), and reading the invoices waiting to be signed only, however many others of the company
// are `pendiente` (invoices_waiting_sign_idx; it walked all of them before).
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

  // The same statement, explained: the place's computation runs once.
  const walks = await explainedWalks(fresh);
  expect(walks.length).toBeGreaterThan(0);
  expect(Math.max(...walks.map((w) => w.loops))).toBe(1);
});

it('finds the place reading the invoices waiting to be signed, not the rest of the pending ones', async () => {
  // Another company: pending invoices not started (3,000), started and signed (2,000, places up to
  // 9000), one chunk failed for good (place 9500), and the chunk still waiting (place 8000).
  const other = (await createTestCompany(t.db, { idNumber: '3101765433' })).id;
  await insertPendingInvoices(t.db, other, { from: 10_001, n: 3000 });
  const signed = await insertPendingInvoices(t.db, other, {
    from: 13_001,
    n: 2000,
    chunk: 'chunk-s',
    priority: 9000,
  });
  await t.db('invoices').whereIn('id', signed).update({ signed_at: t.db.fn.now() });
  const failed = await insertPendingInvoices(t.db, other, {
    from: 15_001,
    n: 5,
    chunk: 'chunk-f',
    priority: 9500,
  });
  await t
    .db('invoices')
    .whereIn('id', failed)
    .update({ processing_error: JSON.stringify({ step: 'sign', permanent: true, code: 'x', message: 'x' }) });
  await insertPendingInvoices(t.db, other, { from: 15_006, n: 50, chunk: 'chunk-w', priority: 8000 });
  await t.db.raw('analyze invoices');
  const fresh = await insertPendingInvoices(t.db, other, { from: 15_056, n: 3 });

  const read = await t.db.transaction((trx) => flowInvoices(trx, fresh));
  expect(read.waiting).toEqual(new Map([[`${other}:false`, 8000]]));
  // The walk reads a few index pages, not the 5,000 rows (over 100 pages) of the others.
  const [walk, ...more] = (await explainedWalks(fresh)).filter((w) => w.subPlan);
  expect(more).toEqual([]);
  expect(walk!.loops).toBe(1);
  expect(walk!.buffers).toBeLessThan(12);
});

/**
 * The relay's statement for these invoices, explained: each walk's loops and buffers read, and
 * whether it is the place's computation (a SubPlan) rather than a CTE.
 */
async function explainedWalks(
  ids: number[],
): Promise<{ loops: number; buffers: number; subPlan: boolean }[]> {
  let sent: { sql: string; bindings: unknown[] } | undefined;
  const seen = (q: { sql: string; bindings: unknown[] }) => {
    if (/with f as/.test(q.sql)) sent = q;
  };
  t.db.on('query', seen);
  await t.db.transaction((trx) => flowInvoices(trx, ids)).finally(() => t.db.off('query', seen));
  const conn = await t.db.client.acquireConnection();
  try {
    const res = await conn.query(`explain (analyze, buffers, format json) ${sent!.sql}`, sent!.bindings);
    const walks: { loops: number; buffers: number; subPlan: boolean }[] = [];
    const visit = (node: Record<string, unknown>) => {
      if (node['Parent Relationship'] === 'SubPlan' || node['Subplan Name'])
        walks.push({
          loops: node['Actual Loops'] as number,
          buffers: (node['Shared Hit Blocks'] as number) + (node['Shared Read Blocks'] as number),
          subPlan: node['Parent Relationship'] === 'SubPlan',
        });
      for (const child of (node['Plans'] as Record<string, unknown>[] | undefined) ?? []) visit(child);
    };
    visit(res.rows[0]['QUERY PLAN'][0].Plan);
    return walks;
  } finally {
    await t.db.client.releaseConnection(conn);
  }
}
