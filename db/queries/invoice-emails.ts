// Emails of accepted documents to their receptor (see the email_delivery migration): one row per
// email (round 0 at acceptance, then one per resend), written with an outbox row so the relay
// enqueues its job after commit; the job records each attempt and the outcome, and mirrors the
// outcome on the invoice (email_status, emailed_at, email_bounces).
import type { Knex } from 'knex';
import { enqueueOutbox } from './events.ts';
import type { InvoiceRow } from './invoices.ts';

export type EmailStatus = 'pending' | 'sent' | 'failed' | 'bounced';

export interface Bounce {
  address: string;
  code: number | null;
  response: string;
}

export interface InvoiceEmailRow {
  id: number;
  invoiceId: number;
  round: number;
  status: EmailStatus;
  recipients: string[];
  attempts: number;
  lastError: string | null;
  bounces: Bounce[];
  messageId: string | null;
  requestId: string | null;
  sentAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The receptor's address (if it has one) and the invoice's extra recipients, deduplicated. The
 * receptor's address is the one the document was signed with (`invoice_documents.parties`), or
 * the client's today for a document signed before the parties were kept: one query.
 */
export async function defaultRecipients(
  trx: Knex,
  invoice: { id: number; clientId: number | null; emailRecipients: string[] },
  extra: string[] = [],
): Promise<string[]> {
  const receptor = (await trx('invoices as i')
    .leftJoin('invoice_documents as d', 'd.invoice_id', 'i.id')
    .leftJoin('clients as c', 'c.id', 'i.client_id')
    .where('i.id', invoice.id)
    .first(
      trx.raw(`case when d.parties is null then c.email else d.parties #>> '{client,email}' end as email`),
    )) as { email: string | null } | undefined;
  const all = [receptor?.email ?? null, ...(invoice.emailRecipients ?? []), ...extra].filter(
    (a): a is string => Boolean(a),
  );
  const seen = new Set<string>();
  return all.filter((a) => (seen.has(a.toLowerCase()) ? false : (seen.add(a.toLowerCase()), true)));
}

/**
 * Records an email of the invoice and its outbox row. `round` 0 is the automatic email (written
 * once: a second call returns null); without `round` the next resend round is taken.
 */
export async function createInvoiceEmail(
  trx: Knex.Transaction,
  input: { invoiceId: number; recipients: string[]; round?: 0; requestId?: string | null },
): Promise<InvoiceEmailRow | null> {
  const round =
    input.round ??
    ((
      (await trx('invoice_emails').where({ invoiceId: input.invoiceId }).max('round as max').first()) as {
        max: number | null;
      }
    ).max ?? 0) + 1;
  const [row] = (await trx('invoice_emails')
    .insert({
      invoiceId: input.invoiceId,
      round,
      recipients: JSON.stringify(input.recipients),
      requestId: input.requestId ?? null,
    })
    .onConflict(['invoice_id', 'round'])
    .ignore()
    .returning('*')) as InvoiceEmailRow[];
  if (!row) return null;
  await trx('invoices')
    .where({ id: input.invoiceId })
    .update({ emailStatus: 'pending', updatedAt: trx.fn.now() });
  await enqueueOutbox(trx, 'email.send', { emailId: row.id }, input.requestId);
  return row;
}

export async function getInvoiceEmail(db: Knex, id: number): Promise<InvoiceEmailRow | undefined> {
  return (await db('invoice_emails').where({ id }).first()) as InvoiceEmailRow | undefined;
}

export async function countAttempt(db: Knex, id: number): Promise<void> {
  await db('invoice_emails')
    .where({ id, status: 'pending' })
    .update({ attempts: db.raw('attempts + 1'), updatedAt: db.fn.now() });
}

/** Writes the outcome (guarded: only a pending email ends) and mirrors it on the invoice. */
export async function finishInvoiceEmail(
  trx: Knex.Transaction,
  email: InvoiceEmailRow,
  outcome: { status: EmailStatus; bounces: Bounce[]; error: string | null; messageId: string | null },
): Promise<boolean> {
  const updated = await trx('invoice_emails')
    .where({ id: email.id, status: 'pending' })
    .update({
      status: outcome.status,
      bounces: JSON.stringify(outcome.bounces),
      lastError: outcome.error,
      messageId: outcome.messageId,
      sentAt: outcome.status === 'sent' ? trx.fn.now() : null,
      updatedAt: trx.fn.now(),
    });
  if (updated === 0) return false;
  // The invoice shows its latest email: an older round finishing late does not overwrite it.
  const latest = (await trx('invoice_emails')
    .where({ invoiceId: email.invoiceId })
    .max('round as max')
    .first()) as {
    max: number;
  };
  if (latest.max === email.round) {
    await trx('invoices')
      .where({ id: email.invoiceId })
      .update({
        emailStatus: outcome.status,
        ...(outcome.status === 'sent' ? { emailedAt: trx.fn.now() } : {}),
        emailBounces: JSON.stringify(outcome.bounces),
        updatedAt: trx.fn.now(),
      });
  }
  return true;
}

export async function recordEmailError(db: Knex, id: number, error: string): Promise<void> {
  await db('invoice_emails')
    .where({ id, status: 'pending' })
    .update({ lastError: error, updatedAt: db.fn.now() });
}

/** Pending emails untouched for `staleMs` (their job may have been lost with Redis). */
/**
 * Pending emails after `afterId`, in id order, untouched for `staleMs` (null: every one), for the
 * reconciler.
 */
export async function pendingEmailsPage(
  db: Knex,
  afterId: number,
  limit: number,
  staleMs: number | null,
): Promise<InvoiceEmailRow[]> {
  const q = db('invoice_emails').where({ status: 'pending' }).where('id', '>', afterId);
  if (staleMs !== null)
    q.where('updated_at', '<', db.raw(`now() - make_interval(secs => ?)`, [staleMs / 1000]));
  return (await q.orderBy('id').limit(limit)) as InvoiceEmailRow[];
}

/**
 * In the acceptance transaction: the automatic email of each accepted invoice whose company emails
 * accepted documents (`enabled`: those companies, read by the caller with its invoices).
 */
export async function scheduleAcceptanceEmails(
  trx: Knex.Transaction,
  invoices: readonly InvoiceRow[],
  enabled: ReadonlySet<number>,
): Promise<void> {
  for (const invoice of invoices) {
    if (!enabled.has(Number(invoice.companyId))) continue;
    const recipients = await defaultRecipients(trx, invoice);
    await createInvoiceEmail(trx, { invoiceId: invoice.id, recipients, round: 0 });
  }
}

/**
 * A resend of an invoice's email, asked for by a caller: to the default recipients and `extra`,
 * in the next round. `no_recipients` (nothing written) when there is no address at all.
 */
export async function resendInvoiceEmail(
  db: Knex,
  invoice: { id: number; clientId: number | null; emailRecipients: string[] },
  extra: string[],
  requestId: string | null,
): Promise<{ kind: 'no_recipients' } | { kind: 'created'; email: InvoiceEmailRow }> {
  return db.transaction(async (trx) => {
    const recipients = await defaultRecipients(trx, invoice, extra);
    if (recipients.length === 0) return { kind: 'no_recipients' };
    const email = await createInvoiceEmail(trx, { invoiceId: invoice.id, recipients, requestId });
    return { kind: 'created', email: email! };
  });
}
