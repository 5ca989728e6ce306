// Job `invoice.email` (queue `emails`): one email of an accepted document to its receptor, with
// the PDF, the signed XML and Hacienda's answer attached. Payload: ids only — { v: 1, emailId }.
// Job id `email-<emailId>`: the relay and the reconciler may add it twice, it runs once.
// How it ends (an email never touches the invoice's state, journal or balance):
//   - sent (some recipients may have been refused with 5xx: recorded as bounces) → `invoice.emailed`;
//   - every recipient, or the message, refused with 5xx → `bounced`, `email.failed`, no retry;
//   - 4xx, timeouts, no connection → the job throws and BullMQ retries with exponential backoff;
//     the last attempt records `failed` and `email.failed`.
import { UnrecoverableError, type Job, type JobsOptions } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../config/index.ts';
import { invoiceObject } from '../../db/public-objects.ts';
import { recordEvents } from '../../db/queries/events.ts';
import {
  countAttempt,
  finishInvoiceEmail,
  getInvoiceEmail,
  recordEmailError,
  type EmailStatus,
  type InvoiceEmailRow,
} from '../../db/queries/invoice-emails.ts';
import { getInvoiceDocument, invoiceById, type InvoiceRow } from '../../db/queries/invoices.ts';
import { Company } from '../../db/models/index.ts';
import { formatId } from '../../domain/ids.ts';
import { findDocumentType } from '../../domain/document-types/index.ts';
import { senderName } from '../../domain/signed-parties.ts';
import { formatMoney } from '../../documents/format.ts';
import { keepCompleted } from '../job-options.ts';
import { invoicePdf } from '../invoice-pdf.ts';
import { classifySmtpError, isPermanent, refusals, smtpTransport } from './smtp.ts';

export const EMAIL_QUEUE = 'emails';
export const EMAIL_JOB = 'invoice.email';

export interface EmailJobData {
  v: 1;
  emailId: number;
}

export const emailJobId = (emailId: number): string => `email-${emailId}`;

/**
 * Completed jobs are kept a bounded time and count like every queue's (jobs/job-options.ts,
 * QUEUE_KEEP_COMPLETED_*), so Bull Board shows recent emails; Postgres keeps the record. Failed
 * ones stay a week for operators.
 */
export function emailJobOptions(config: Config, emailId: number, attemptsLeft?: number): JobsOptions {
  return {
    jobId: emailJobId(emailId),
    attempts: Math.max(1, attemptsLeft ?? config.email.maxAttempts),
    backoff: { type: 'exponential', delay: config.email.backoffBaseMs },
    removeOnComplete: keepCompleted(),
    removeOnFail: { age: 7 * 24 * 3600 },
  };
}

export interface EmailContext {
  db: Knex;
  log: Logger;
  config: Config;
}

async function finish(
  ctx: EmailContext,
  email: InvoiceEmailRow,
  status: EmailStatus,
  outcome: { bounces?: ReturnType<typeof refusals>; error?: string | null; messageId?: string | null },
): Promise<void> {
  await ctx.db.transaction(async (trx) => {
    const ended = await finishInvoiceEmail(trx, email, {
      status,
      bounces: outcome.bounces ?? [],
      error: outcome.error ?? null,
      messageId: outcome.messageId ?? null,
    });
    if (!ended) return;
    const invoice = (await invoiceById(trx, email.invoiceId))!;
    await recordEvents(trx, [
      {
        companyId: invoice.companyId,
        livemode: invoice.livemode,
        type: status === 'sent' ? 'invoice.emailed' : 'email.failed',
        data: invoiceObject(invoice),
        requestId: email.requestId,
      },
    ]);
  });
}

/** The message of an accepted document: its PDF, signed XML and Hacienda's answer, and the text. */
async function composeMessage(ctx: EmailContext, invoice: InvoiceRow) {
  const { db } = ctx;
  const [company, doc] = await Promise.all([
    Company.query(db).findById(invoice.companyId),
    getInvoiceDocument(db, invoice.id),
  ]);
  if (!company) throw new UnrecoverableError(`company ${invoice.companyId} does not exist`);
  if (!doc?.signedXml || !doc.responseXml)
    throw new Error(`invoice ${invoice.id} lacks its signed XML or answer`);
  const { pdf } = await invoicePdf(db, ctx.config, invoice);
  const kind = findDocumentType(invoice.docType)?.name.es ?? 'Comprobante electrónico';
  // Sent under the name the document was signed with; where replies go and who gets a blind copy
  // are the company's settings of today.
  const sender = senderName(doc.parties?.company ?? company);
  const total = formatMoney(invoice.summary.total, invoice.currency);
  const text = [
    `Estimado cliente:`,
    '',
    `${sender} le envía su ${kind.toLowerCase()} ${invoice.consecutivo}, aceptada por el Ministerio de Hacienda.`,
    '',
    `Clave numérica: ${invoice.clave}`,
    `Total: ${total}`,
    '',
    'Adjuntos: la representación gráfica (PDF), el comprobante electrónico firmado (XML) y la respuesta de Hacienda (XML).',
  ].join('\n');
  return {
    company,
    doc: { signedXml: doc.signedXml, responseXml: doc.responseXml },
    pdf,
    kind,
    sender,
    text,
  };
}

export async function sendInvoiceEmail(job: Job<EmailJobData>, ctx: EmailContext): Promise<string> {
  const { db } = ctx;
  // 1. State check.
  const email = await getInvoiceEmail(db, job.data.emailId);
  if (!email) return 'email no longer exists';
  if (email.status !== 'pending') return `already ${email.status}`;
  const invoice = await invoiceById(db, email.invoiceId);
  if (!invoice) throw new UnrecoverableError(`invoice ${email.invoiceId} does not exist`);
  if (email.recipients.length === 0) {
    await finish(ctx, email, 'failed', { error: 'no recipients: the client has no email address' });
    return 'no recipients';
  }
  const smtpUrl = invoice.livemode ? ctx.config.email.smtpUrl : ctx.config.email.sandboxSmtpUrl;
  if (!smtpUrl) {
    const which = invoice.livemode ? 'SMTP_URL' : 'SMTP_SANDBOX_URL';
    await finish(ctx, email, 'failed', { error: `${which} is not set: no email can be sent` });
    return 'no SMTP server configured';
  }

  // 2. The message: the PDF, the signed XML and Hacienda's answer.
  const { company, doc, pdf, kind, sender, text } = await composeMessage(ctx, invoice);

  // 3. Count the attempt, then send.
  await countAttempt(db, email.id);
  const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  try {
    const info = await (
      await smtpTransport(smtpUrl)
    ).sendMail({
      from: { name: sender, address: ctx.config.email.from },
      to: email.recipients,
      bcc: company.emailBcc ?? [],
      replyTo: company.emailReplyTo ?? company.emails[0] ?? undefined,
      subject: `${kind} ${invoice.consecutivo} de ${sender}`,
      text,
      messageId: `<${formatId('invoice', invoice.id)}.${email.round}@factura-cr>`,
      headers: { 'X-Factura-Clave': invoice.clave ?? '' },
      attachments: [
        { filename: `${invoice.clave}.pdf`, content: pdf, contentType: 'application/pdf' },
        {
          filename: `${invoice.clave}.xml`,
          content: doc.signedXml as Buffer,
          contentType: 'application/xml',
        },
        {
          filename: `${invoice.clave}-respuesta.xml`,
          content: Buffer.from(doc.responseXml, 'utf8'),
          contentType: 'application/xml',
        },
      ],
    });
    // Judged by the receptor's addresses: a blind copy taken does not make a delivered email.
    const mine = new Set(email.recipients.map((a) => a.toLowerCase()));
    const refused = refusals(info as { rejectedErrors?: unknown[] }).filter((r) =>
      mine.has(r.address.toLowerCase()),
    );
    if (refused.length >= mine.size)
      throw Object.assign(new Error('every recipient refused'), {
        rejectedErrors: (info as { rejectedErrors?: unknown[] }).rejectedErrors?.filter((r) =>
          mine.has(String((r as { recipient?: string }).recipient).toLowerCase()),
        ),
      });
    const bounces = refused.filter((r) => isPermanent(r.code));
    await finish(ctx, email, 'sent', { bounces, messageId: info.messageId });
    return `sent to ${info.accepted.length} recipient(s)${bounces.length ? `, ${bounces.length} refused` : ''}`;
  } catch (err) {
    const c = classifySmtpError(err);
    if (c.permanent) {
      await finish(ctx, email, 'bounced', { bounces: c.refused, error: c.message });
      ctx.log.info({ emailId: email.id, invoiceId: invoice.id }, 'email refused for good (5xx)');
      return `bounced: ${c.message}`;
    }
    if (last) await finish(ctx, email, 'failed', { bounces: c.refused, error: c.message });
    else await recordEmailError(db, email.id, c.message);
    throw new Error(`email ${email.id}: ${c.message}`);
  }
}
