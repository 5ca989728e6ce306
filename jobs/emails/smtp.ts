// SMTP transports (nodemailer), one pooled transport per URL and process, and how an SMTP
// answer is read: 5xx is a permanent refusal (a bounce: the address or the message will never be
// accepted), 4xx and network failures are transient (retried with backoff). nodemailer is loaded
// with the first transport, so processes that never send mail do not hold it.
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

const transports = new Map<string, Transporter<SMTPTransport.SentMessageInfo>>();

export async function smtpTransport(url: string): Promise<Transporter<SMTPTransport.SentMessageInfo>> {
  let t = transports.get(url);
  if (!t) {
    const { default: nodemailer } = await import('nodemailer');
    // Another caller may have made it while nodemailer loaded.
    t = transports.get(url);
    if (t) return t;
    t = nodemailer.createTransport({
      url,
      pool: true,
      maxConnections: 4,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    } as SMTPTransport.Options);
    transports.set(url, t);
  }
  return t;
}

export function closeSmtpTransports(): void {
  for (const t of transports.values()) t.close();
  transports.clear();
}

export interface SmtpRefusal {
  address: string;
  code: number | null;
  response: string;
}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  rejected?: string[];
  rejectedErrors?: (SmtpError & { recipient?: string })[];
}

/** Recipients the server refused (from a sent message's info, or from the error of a failed one). */
export function refusals(source: { rejectedErrors?: unknown[] } | undefined): SmtpRefusal[] {
  return ((source?.rejectedErrors ?? []) as (SmtpError & { recipient?: string })[]).map((e) => ({
    address: e.recipient ?? '',
    code: typeof e.responseCode === 'number' ? e.responseCode : null,
    response: (e.response ?? e.message).slice(0, 500),
  }));
}

export const isPermanent = (code: number | null | undefined): boolean =>
  typeof code === 'number' && code >= 500;

/** A failed send is permanent when the server answered 5xx (for the message, or every recipient). */
export function classifySmtpError(err: unknown): {
  permanent: boolean;
  refused: SmtpRefusal[];
  message: string;
} {
  const e = err as SmtpError;
  const refused = refusals(e);
  const permanent =
    refused.length > 0 ? refused.every((r) => isPermanent(r.code)) : isPermanent(e.responseCode);
  const message = (
    refused.length
      ? refused.map((r) => `${r.address}: ${r.response}`).join('; ')
      : (e.response ?? e.message ?? String(err))
  ).slice(0, 500);
  return { permanent, refused, message };
}
