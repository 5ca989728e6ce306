// The service's one limit on money (MAX_AMOUNT, domain/decimal-input.ts) is the shape of every
// amount column the migrations create: each numeric column holds exactly the XSD's
// DecimalDineroType (18 digits, 5 decimals), so a figure the API lets in fits wherever it is
// stored or booked, and a column made wider or narrower is noticed here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT_DIGITS, MAX_AMOUNT } from '../domain/decimal-input.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

describe('amount columns', () => {
  it('every numeric column has the shape of MAX_AMOUNT, and MAX_AMOUNT fits it exactly', async () => {
    const columns = (await t.db.raw(
      `select table_name, column_name, numeric_precision, numeric_scale
         from information_schema.columns
        where table_schema = 'public' and data_type = 'numeric'
        order by table_name, column_name`,
    )) as {
      rows: { table_name: string; column_name: string; numeric_precision: number; numeric_scale: number }[];
    };
    expect(columns.rows.length).toBeGreaterThan(10);
    for (const c of columns.rows)
      expect([c.table_name, c.column_name, c.numeric_precision, c.numeric_scale]).toEqual([
        c.table_name,
        c.column_name,
        AMOUNT_DIGITS.total,
        AMOUNT_DIGITS.fraction,
      ]);
    const [fits] = (
      await t.db.raw(`select ?::numeric(18, 5)::text as v`, [MAX_AMOUNT.toFixed(AMOUNT_DIGITS.fraction)])
    ).rows as { v: string }[];
    expect(fits!.v).toBe('9999999999999.99999');
    await expect(
      t.db.raw(`select ?::numeric(18, 5)`, [MAX_AMOUNT.plus('0.00001').toFixed(AMOUNT_DIGITS.fraction)]),
    ).rejects.toThrow(/numeric field overflow/);
  });
});
