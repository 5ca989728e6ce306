// Named statements. A statement run by name is parsed once per connection (node-postgres sends
// its text only the first time) and Postgres keeps it prepared: it is not parsed and analysed
// again, and after five runs Postgres plans it once, generically, when that plan is estimated no
// dearer than the plans made for the values. Unnamed, the pipeline's multi-CTE statements cost
// about as much to parse and plan as to run when they carry a few rows. A statement carrying many
// rows (a full chunk, a batch) runs unnamed: planned for its sizes, its planning shared by all its
// rows. The plan mode stays Postgres's default (`plan_cache_mode = auto`): forcing generic plans
// would apply to every statement with parameters, unnamed ones too (tried: the client search by
// name, a pattern, went from a p99 of about 10 ms to about 50 ms at 1,000,000 invoices).
// A statement may be named when:
//   - its text is constant (no interpolation that varies between runs),
//   - its plan does not depend on the values: equality on indexed columns, arrays of ids or keys,
//     tenant and limits (a partial index's predicate is written in the text, never bound),
//   - its output names its columns (no top-level `*` or `returning *`: a prepared statement whose
//     result columns change under a migration fails until its connection closes).
// Names are unique (test/prepared-statements.test.ts): one name, one text.
import type { Knex } from 'knex';

/** Rows up to which a statement runs by name: a light load's chunks and groups. */
export const PREPARED_MAX_ROWS = 10;

/** The largest array among the bindings: the rows a statement carries, unless told. */
function largestArray(bindings: readonly Knex.RawBinding[]): number {
  let n = 0;
  for (const b of bindings) if (Array.isArray(b) && b.length > n) n = b.length;
  return n;
}

export function prepared(
  db: Knex | Knex.Transaction,
  name: string,
  sql: string,
  bindings: readonly Knex.RawBinding[] = [],
  rows = largestArray(bindings),
): Knex.Raw {
  const raw = db.raw(sql, bindings as Knex.RawBinding[]);
  return rows <= PREPARED_MAX_ROWS ? raw.options({ name }) : raw;
}
