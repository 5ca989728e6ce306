// What the bench's raw writes share: rows read with every value as its text form (so they go back
// exactly as Postgres stored them), and one multi-row INSERT of such rows.
import type pg from 'pg';

type Row = Record<string, unknown>;

/** Type parsers that leave every value as Postgres's text form (bytea included). */
export const asText = { getTypeParser: () => (v: string) => v };

/** One multi-row INSERT of `rows` (all with the first row's columns) into `table`, returning `returning`. */
export async function insertRows(
  c: pg.Client,
  table: string,
  rows: Row[],
  returning?: string,
): Promise<Row[]> {
  if (!rows.length) return [];
  const cols = Object.keys(rows[0]!);
  const params: unknown[] = [];
  const values = rows.map((r) => `(${cols.map((k) => `$${params.push(r[k] ?? null)}`).join(', ')})`);
  const res = await c.query(
    `insert into ${table} (${cols.map((k) => `"${k}"`).join(', ')}) values ${values.join(', ')}${returning ? ` returning ${returning}` : ''}`,
    params,
  );
  return res.rows as Row[];
}
