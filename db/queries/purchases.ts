// Recording a factura electrónica de compra (08): its lines are prepared from the company's
// catalogue like an invoice's, its supplier (the emisor) is kept on the row, and it is numbered
// in its own series (tipo 08) with the company's identification in the clave — the company, the
// buyer, issues and signs it. One transaction: the row, `invoice.created`, the flow's outbox row
// and the idempotency record. A purchase has no client and is never paid at issue.
import type { Knex } from 'knex';
import type { Client, Company } from '../models/index.ts';
import type { InvoiceRequest } from '../../domain/invoice-request.ts';
import { NO_CLIENT_ID, type Supplier } from '../../domain/purchase-request.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import { enqueueOutbox, recordEvents } from './events.ts';
import {
  lockIdempotencyKey,
  saveIdempotent,
  type IdempotencyInput,
  type StoredResponse,
} from './idempotency.ts';
import { invoiceInsertRow } from './invoice-bulk.ts';
import { loadCatalogue, prepareFromCatalogue, type Catalogue } from './invoice-prepare.ts';
import { reserveNumber, type InvoiceRow, type PreparedInvoice } from './invoices.ts';

/** The prepared purchase: lines and totals from the catalogue, totals of a tipo 08 document. */
export async function preparePurchase(
  db: Knex,
  tenant: Tenant,
  company: Company,
  req: InvoiceRequest,
  supplier: Supplier,
): Promise<PreparedInvoice> {
  return purchaseFromCatalogue(company, req, supplier, await loadCatalogue(db, tenant, [req]));
}

/** Pure: the prepared purchase of one request, given the catalogue rows it names (batches). */
export function purchaseFromCatalogue(
  company: Company,
  req: InvoiceRequest,
  supplier: Supplier,
  catalogue: Catalogue,
): PreparedInvoice {
  // The request's client is a stand-in: the supplier is not a client. Lines, other charges and
  // payments are computed once, under the purchase's own rules (tipo 08: no specific taxes, no
  // factory IVA), every error pointing into the request.
  const cat = { ...catalogue, clientsById: new Map([[NO_CLIENT_ID, { id: 0 } as Client]]) };
  const prepared = prepareFromCatalogue(company, { ...req, clientRef: { id: NO_CLIENT_ID } }, cat, '08');
  return {
    ...prepared,
    clientId: null as unknown as number,
    docType: '08' as PreparedInvoice['docType'],
    paidAtIssue: false,
    emailRecipients: [],
    supplier,
  };
}

export type PurchaseOutcome =
  | { kind: 'created'; row: InvoiceRow; response: StoredResponse }
  | { kind: 'replay'; response: StoredResponse };

export async function createPurchase(
  db: Knex,
  tenantIn: Tenant,
  prepared: PreparedInvoice,
  ctx: {
    emisorId: string;
    send: boolean;
    requestId: string | null;
    idempotency: IdempotencyInput | null;
    render: (row: InvoiceRow) => Record<string, unknown>;
  },
): Promise<PurchaseOutcome> {
  const tenant = tenantOnly(tenantIn);
  return db.transaction(async (trx) => {
    if (ctx.idempotency) {
      const replay = await lockIdempotencyKey(trx, tenant, ctx.idempotency);
      if (replay) return { kind: 'replay', response: replay };
    }
    const number = ctx.send
      ? await reserveNumber(trx, {
          ...tenant,
          docType: '08',
          branch: prepared.branch,
          terminal: prepared.terminal,
        })
      : undefined;
    const insert = invoiceInsertRow(tenant, prepared, number, new Date(), ctx.emisorId, ctx.requestId ?? '');
    const [row] = (await trx('invoices')
      .insert({ ...insert, requestId: ctx.requestId })
      .returning('*')) as InvoiceRow[];
    const body = ctx.render(row!);
    await recordEvents(trx, [{ ...tenant, type: 'invoice.created', data: body, requestId: ctx.requestId }]);
    if (ctx.send) await enqueueOutbox(trx, 'invoice.flow', { invoiceId: row!.id }, ctx.requestId);
    const response = { status: 201, body };
    if (ctx.idempotency) await saveIdempotent(trx, tenant, ctx.idempotency, response);
    return { kind: 'created', row: row!, response };
  });
}
