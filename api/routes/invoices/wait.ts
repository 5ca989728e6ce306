// Prefer: wait — polls the invoice row until it is `enviada` or terminal, or the time is up.
import type { Knex } from 'knex';
import { getInvoice, type InvoiceRow } from '../../../db/queries/invoices.ts';
import type { Tenant } from '../../../db/queries/clients.ts';
import { isSettledForWait, type InvoiceState } from '../../../domain/invoice-states.ts';

const POLL_MS = 50;

export async function waitForSettled(
  db: Knex,
  tenant: Tenant,
  id: number,
  timeoutMs: number,
): Promise<InvoiceRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = (await getInvoice(db, tenant, id))!;
    if (isSettledForWait(row.status as InvoiceState) || Date.now() >= deadline) return row;
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
  }
}
