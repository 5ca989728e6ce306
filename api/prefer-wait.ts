// Prefer: wait=N (RFC 7240, seconds, capped at 30) — answers once the invoice is final with
// Hacienda (aceptada or rechazada) or its flow has stopped waiting for a person (a permanent
// processing error), or after N seconds with the state reached so far. The waiting itself is
// api/invoice-waits.ts: woken by the invoice's NOTIFY (a status change, or the flow stopping:
// migration 20261228000100_invoice_wait_final_notify), no polling. A company already
// holding its share of waiters on this process gets the current state at once and no
// Preference-Applied (the preference is honoured or ignored, never an error).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { getInvoice, type InvoiceRow } from '../db/queries/invoices.ts';
import type { Tenant } from '../db/queries/clients.ts';
import { isFinalForWait, type InvoiceState } from '../domain/invoice-states.ts';

/** Parses RFC 7240 `Prefer: wait=N` (seconds, capped at 30). */
export function preferWait(request: FastifyRequest): number | null {
  const raw = request.headers.prefer;
  if (!raw) return null;
  const m = /(?:^|[,;\s])wait=(\d{1,4})(?:$|[,;\s])/i.exec(Array.isArray(raw) ? raw.join(',') : raw);
  if (!m) return null;
  return Math.min(30, Number(m[1]));
}

export async function waitForSettled(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Knex,
  tenant: Tenant,
  id: number,
  seconds: number,
): Promise<InvoiceRow> {
  const read = async () => (await getInvoice(db, tenant, id))!;
  const waits = request.server.invoiceWaits;
  const release = waits.admit(tenant.companyId);
  if (!release) return read();
  try {
    reply.header('preference-applied', `wait=${seconds}`);
    return await waits.wait(
      id,
      read,
      (row) => isFinalForWait(row.status as InvoiceState, row.processingError),
      Date.now() + seconds * 1000,
      (abort) => reply.raw.once('close', abort),
    );
  } finally {
    release();
  }
}
