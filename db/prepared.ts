// Named statements. A statement run by name is parsed once per connection (node-postgres sends
// its text only the first time) and planned once, generically: every connection of createDb sets
// `plan_cache_mode = force_generic_plan`, which touches prepared statements only, and only the
// statements below are prepared. Unnamed statements are parsed and planned on every run; for the
// multi-CTE statements of the pipeline that costs more than running them (the intake's read of a
// group: about 1.3 ms of Postgres CPU unnamed, 0.1 ms named). A statement may be named when:
//   - its text is constant (no interpolation that varies between runs),
//   - its plan does not depend on the values: equality on indexed columns, arrays of ids or keys,
//     tenant and limits (a partial index's predicate is written in the text, never bound),
//   - its output names its columns (no top-level `*` or `returning *`: a prepared statement whose
//     result columns change under a migration fails until its connection closes).
// Names are unique (test/prepared-statements.test.ts): one name, one text.
import type { Knex } from 'knex';

export function prepared(
  db: Knex | Knex.Transaction,
  name: string,
  sql: string,
  bindings: readonly Knex.RawBinding[] = [],
): Knex.Raw {
  return db.raw(sql, bindings as Knex.RawBinding[]).options({ name });
}

/** The connection setting that gives named statements their generic plan. */
export const PREPARED_PLAN_OPTIONS = '-c plan_cache_mode=force_generic_plan';
