// Named statements (db/prepared.ts): each name stands for one text, no named statement ends in a
// `*` whose columns a migration could change, a connection of createDb parses them once and
// runs them again by name, and a statement carrying many rows runs unnamed.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { PREPARED_MAX_ROWS, prepared } from '../db/prepared.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

/** Every `prepared(db, 'name', \`sql\`` in db/queries: its name and its SQL text. */
function namedStatements(): { file: string; name: string; sql: string }[] {
  const dir = join(projectRoot, 'db/queries');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/prepared\(\s*\w+,\s*'([^']+)',\s*`([^`]*)`/g)].map(
        (m) => ({ file, name: m[1]!, sql: m[2]! }),
      ),
    );
}

describe('named statements', () => {
  it('each name is used once, with a constant text that names its output columns', () => {
    const all = namedStatements();
    expect(all.length).toBeGreaterThanOrEqual(20);
    const names = all.map((s) => s.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    for (const s of all) {
      expect(s.sql, `${s.file}: ${s.name}`).not.toMatch(/returning\s+\*/i);
      // Interpolation is allowed only of constant SQL fragments named in capitals or built by eventCtes.
      for (const [piece] of s.sql.matchAll(/\$\{[^}]*\}/g))
        expect(piece, `${s.file}: ${s.name}`).toMatch(/^\$\{([A-Z_]+|eventCtes\(source\))\}$/);
    }
  });

  it('a connection parses a named statement once and runs it again by name', async () => {
    await t.db.transaction(async (trx) => {
      expect((await trx.raw('show plan_cache_mode')).rows[0].plan_cache_mode).toBe('auto');
      const sql = 'select id from invoices where id = any(?::bigint[]) and company_id = ?';
      for (const ids of [[1], [2, 3], []]) {
        const res = await prepared(trx, 'test.named', sql, [ids, 1]);
        expect(res.rows).toEqual([]);
      }
      const rows = (
        await trx.raw(
          `select statement, generic_plans + custom_plans as runs from pg_prepared_statements
            where name = 'test.named'`,
        )
      ).rows as { statement: string; runs: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]!.statement).toContain('id = any($1::bigint[])');
      expect(Number(rows[0]!.runs)).toBe(3);
    });
  });

  it('a statement carrying more rows than PREPARED_MAX_ROWS runs unnamed, planned for its sizes', async () => {
    await t.db.transaction(async (trx) => {
      const sql = 'select id from invoices where id = any(?::bigint[])';
      const many = Array.from({ length: PREPARED_MAX_ROWS + 1 }, (_, i) => i + 1);
      await prepared(trx, 'test.many', sql, [many]);
      await prepared(trx, 'test.told', sql, [[1]], PREPARED_MAX_ROWS + 1);
      await prepared(trx, 'test.few', sql, [many.slice(1)]);
      const names = (
        await trx.raw(
          `select name from pg_prepared_statements where name in ('test.many', 'test.told', 'test.few') order by name`,
        )
      ).rows.map((r: { name: string }) => r.name);
      expect(names).toEqual(['test.few']);
    });
  });
});
