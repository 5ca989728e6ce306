// An invoice's timeline (GET /api/v1/invoices/{id}/timeline): what happened to one document, oldest
// first (Hacienda's answer with the observations it made when it accepted the document). Read from the records that last as long as the invoice (its own timestamps, its email rows
// and its payments), each found by the invoice's id through an index, so a timeline costs a few
// index probes at any volume; notes that credit it come from the `credit_note.created` and
// `invoice.annulled` events of the last 30 days (the events index by type, filtered on the
// reference), since a note names the document it corrects in `reference.document_id`.
import { Decimal } from 'decimal.js';
import type { Knex } from 'knex';
import { formatId } from '../../domain/ids.ts';
import { EVENT_RETENTION_DAYS } from '../../domain/webhook-events.ts';
import { tenantOnly, type Tenant } from './clients.ts';
import type { PublicInvoiceRow } from './invoices.ts';
import type { InvoiceEmailRow } from './invoice-emails.ts';
import type { PaymentRow } from './payments.ts';

export const TIMELINE_TYPES = [
  'recorded',
  'signed',
  'submitted',
  'answered',
  'emailed',
  'paid',
  'credited',
] as const;

export interface TimelineEntry {
  type: (typeof TIMELINE_TYPES)[number];
  at: string;
  detail: Record<string, unknown>;
}

const iso = (d: Date | string) => new Date(d).toISOString();

function ownSteps(inv: PublicInvoiceRow): TimelineEntry[] {
  const out: TimelineEntry[] = [{ type: 'recorded', at: iso(inv.createdAt), detail: { status: 'recorded' } }];
  if (inv.signedAt) out.push({ type: 'signed', at: iso(inv.signedAt), detail: { clave: inv.clave } });
  if (inv.submittedAt) out.push({ type: 'submitted', at: iso(inv.submittedAt), detail: {} });
  const answeredAt = inv.acceptedAt ?? inv.rejectedAt;
  if (answeredAt)
    out.push({
      type: 'answered',
      at: iso(answeredAt),
      detail: inv.acceptedAt
        ? // Hacienda's observations on the accepted document ([] when none).
          { status: 'aceptada', hacienda_status: inv.haciendaStatus, warnings: inv.warnings ?? [] }
        : { status: 'rechazada', hacienda_status: inv.haciendaStatus },
    });
  return out;
}

function emailStep(e: InvoiceEmailRow): TimelineEntry {
  return {
    type: 'emailed',
    at: iso(e.sentAt ?? e.updatedAt),
    detail: {
      email_id: formatId('invoiceEmail', e.id),
      round: e.round,
      status: e.status,
      recipients: e.recipients,
      ...(e.lastError && e.status !== 'sent' ? { error: e.lastError } : {}),
    },
  };
}

function paymentStep(p: PaymentRow): TimelineEntry {
  return {
    type: 'paid',
    at: iso(p.paidAt),
    detail: {
      payment_id: formatId('payment', p.id),
      amount: new Decimal(p.amount).toFixed(2),
      currency: p.currency,
      method: p.method,
    },
  };
}

async function creditEvents(db: Knex, tenant: Tenant, publicId: string): Promise<TimelineEntry[]> {
  const rows = (await db('events')
    .where(tenantOnly(tenant))
    .whereIn('type', ['credit_note.created', 'invoice.annulled'])
    .where('createdAt', '>=', db.raw(`now() - interval '${EVENT_RETENTION_DAYS} days'`))
    .where((w) =>
      w
        .whereRaw(`data -> 'reference' ->> 'document_id' = ?`, [publicId])
        .orWhere((a) => a.where('type', 'invoice.annulled').whereRaw(`data ->> 'id' = ?`, [publicId])),
    )
    .orderBy('id', 'asc')
    .limit(100)
    .select('id', 'type', 'data', 'createdAt')) as {
    id: number;
    type: string;
    data: Record<string, unknown>;
    createdAt: Date;
  }[];
  return rows.map((r) => ({
    type: 'credited' as const,
    at: iso(r.createdAt),
    detail:
      r.type === 'invoice.annulled'
        ? { event_id: formatId('event', r.id), annulled: true }
        : {
            event_id: formatId('event', r.id),
            credit_note_id: r.data.id ?? null,
            total: r.data.total ?? null,
            reason: (r.data.reference as Record<string, unknown> | undefined)?.reason ?? null,
          },
  }));
}

export async function invoiceTimeline(
  db: Knex,
  tenant: Tenant,
  invoice: PublicInvoiceRow,
): Promise<TimelineEntry[]> {
  const publicId = formatId('invoice', invoice.id);
  const [emails, payments, credits] = await Promise.all([
    db('invoice_emails').where({ invoiceId: invoice.id }).orderBy('round', 'asc') as Promise<
      InvoiceEmailRow[]
    >,
    db('payments')
      .where({ ...tenantOnly(tenant), invoiceId: invoice.id })
      .orderBy('id', 'asc') as Promise<PaymentRow[]>,
    creditEvents(db, tenant, publicId),
  ]);
  const all = [...ownSteps(invoice), ...emails.map(emailStep), ...payments.map(paymentStep), ...credits];
  // Stable: entries of the same instant keep the order above (recorded before signed …).
  return all
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.localeCompare(b.e.at) || a.i - b.i)
    .map(({ e }) => e);
}
