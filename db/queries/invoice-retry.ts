// Sending again an invoice whose flow stopped for good before Hacienda received it (its
// `processing_error` is permanent and it is still `pendiente`): one transaction that locks the
// invoice, checks the rule (domain/invoice-retry.ts) against the company's credentials, clears the
// error, writes the `invoice.retried` event and an `invoice.flow` outbox row marked as a retry (the
// relay gives it a flow chunk of its own), and keeps the answer under the Idempotency-Key. The
// invoice keeps its consecutivo and clave; nothing is numbered, signed, sent or booked here.
// Two retries at once take turns on the row lock: the second finds nothing failed and is refused.
import type { Knex } from 'knex';
import { invoiceObject } from '../public-objects.ts';
import { retryRefusal, type RetryRefusal } from '../../domain/invoice-retry.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import { enqueueOutbox, recordEvents } from './events.ts';
import {
  lockIdempotencyKey,
  saveIdempotent,
  type IdempotencyInput,
  type StoredResponse,
} from './idempotency.ts';
import type { InvoiceRow } from './invoices.ts';

export const RETRIED_EVENT = 'invoice.retried';

export type RetryOutcome =
  | { kind: 'retried'; invoice: InvoiceRow; response: StoredResponse }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'refused'; refusal: RetryRefusal; invoice: InvoiceRow }
  | { kind: 'not_found' };

export async function retryInvoice(
  db: Knex,
  tenantIn: Tenant,
  invoiceId: number,
  opts: { requestId: string | null; idempotency: IdempotencyInput | null; now?: Date },
): Promise<RetryOutcome> {
  const tenant = tenantOnly(tenantIn);
  return db.transaction(async (trx) => {
    if (opts.idempotency) {
      const replay = await lockIdempotencyKey(trx, tenant, opts.idempotency);
      if (replay) return { kind: 'replay', response: replay };
    }
    const invoice = (await trx('invoices')
      .where({ ...tenant, id: invoiceId })
      .forUpdate()
      .first()) as InvoiceRow | undefined;
    if (!invoice) return { kind: 'not_found' };
    const credentials = (await trx('company_credentials')
      .where({ companyId: invoice.companyId, livemode: invoice.livemode })
      .first('signing_key_enc', 'certificate_not_after', 'hacienda_username')) as
      | { signingKeyEnc: Buffer | null; certificateNotAfter: Date | null; haciendaUsername: string | null }
      | undefined;
    const refusal = retryRefusal(
      {
        status: invoice.status,
        livemode: invoice.livemode,
        signed: invoice.signedAt !== null,
        processingError: invoice.processingError,
      },
      credentials
        ? {
            hasSigningKey: credentials.signingKeyEnc !== null,
            certificateNotAfter: credentials.certificateNotAfter
              ? new Date(credentials.certificateNotAfter)
              : null,
            hasHaciendaUser: credentials.haciendaUsername !== null,
          }
        : null,
      opts.now ?? new Date(),
    );
    if (refusal) return { kind: 'refused', refusal, invoice };

    // Guarded like every state change: only the failure seen under the lock is cleared.
    const [row] = (await trx('invoices')
      .where({ id: invoiceId, status: 'pendiente' })
      .whereRaw(`coalesce((processing_error->>'permanent')::boolean, false)`)
      .update({ processingError: null, updatedAt: trx.fn.now() })
      .returning('*')) as InvoiceRow[];
    const body = invoiceObject(row!);
    await recordEvents(trx, [{ ...tenant, type: RETRIED_EVENT, data: body, requestId: opts.requestId }]);
    await enqueueOutbox(trx, 'invoice.flow', { invoiceId, retry: true }, opts.requestId);
    const response = { status: 202, body };
    if (opts.idempotency) await saveIdempotent(trx, tenant, opts.idempotency, response);
    return { kind: 'retried', invoice: row!, response };
  });
}
