// A month's report for one company and mode: the grouped sums of db/queries/reports.ts, read in
// one repeatable-read snapshot (so the sections agree with each other), turned into the report by
// domain/monthly-report.ts. The API's JSON, CSV and XLSX and the archive's summary all come from it.
import type { Knex } from 'knex';
import type { Tenant } from '../db/queries/clients.ts';
import {
  monthDocumentTotals,
  monthOtherTaxes,
  monthReceived,
  monthSalesLines,
  type MonthRange,
} from '../db/queries/reports.ts';
import { buildMonthlyReport, type MonthlyReport } from '../domain/monthly-report.ts';

export async function loadMonthlyReport(
  db: Knex,
  tenant: Tenant,
  month: string,
  range: MonthRange,
): Promise<MonthlyReport> {
  const input = await db.transaction(
    async (trx) => ({
      month,
      salesLines: await monthSalesLines(trx, tenant, range),
      documentTotals: await monthDocumentTotals(trx, tenant, range),
      otherTaxes: await monthOtherTaxes(trx, tenant, range),
      received: await monthReceived(trx, tenant, range),
    }),
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  return buildMonthlyReport(input, range);
}
