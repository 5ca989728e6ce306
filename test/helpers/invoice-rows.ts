// Invoice rows written straight into the database, for tests of the flow's SQL that need many
// invoices in a given state without going through the API (n rows in one statement).
import type { Knex } from 'knex';

/**
 * `n` Facturas of `companyId` (sandbox) numbered from `from` on series 001/00001, `pendiente`,
 * with the flow chunk and place given (null: not carried by a flow yet). Returns their ids.
 */
export async function insertPendingInvoices(
  db: Knex,
  companyId: number,
  o: { from: number; n: number; chunk?: string | null; priority?: number | null },
): Promise<number[]> {
  const rows = await db.raw(
    `insert into invoices (company_id, livemode, doc_type, branch, terminal, number, clave, consecutivo,
                           status, currency, exchange_rate, condition, condicion_venta, payment_methods,
                           total, balance_due, lines, summary, flow_chunk, flow_priority)
     select ?, false, '01', '001', '00001', g,
            '50601012600310176543200100001010' || lpad(g::text, 10, '0') || '11234567',
            '0010000101' || lpad(g::text, 10, '0'),
            'pendiente', 'CRC', 1, 'contado', '01', '["efectivo"]', 1000, 1000, '[]', '{}', ?, ?
       from generate_series(?::int, ?::int) g
     returning id`,
    [companyId, o.chunk ?? null, o.priority ?? null, o.from, o.from + o.n - 1],
  );
  return (rows.rows as { id: string | number }[]).map((r) => Number(r.id));
}
