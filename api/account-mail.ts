// Sends the emails of people's accounts through the service's SMTP path (SMTP_URL: the local mail
// catcher outside production), with links into the application built from PUBLIC_URL. A failed
// send is logged, never shown to the caller (a sign-up does not tell whether mail works).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/index.ts';
import type { AccountEmail } from '../domain/account-emails.ts';
import { smtpTransport } from '../jobs/emails/smtp.ts';

/** `${PUBLIC_URL}/app/<page>?token=…` */
export function appLink(config: Config, page: string, token: string): string {
  const base = config.publicUrl.replace(/\/+$/, '');
  return `${base}/app/${page}?token=${encodeURIComponent(token)}`;
}

export async function sendAccountEmail(
  config: Config,
  log: FastifyBaseLogger,
  to: string,
  mail: AccountEmail,
): Promise<void> {
  const url = config.email.smtpUrl;
  if (!url) {
    log.warn({ subject: mail.subject }, 'no SMTP_URL: account email not sent');
    return;
  }
  try {
    const transport = await smtpTransport(url);
    await transport.sendMail({
      from: { name: 'factura-cr', address: config.email.from },
      to,
      subject: mail.subject,
      text: mail.text,
    });
  } catch (err) {
    log.error({ err, subject: mail.subject }, 'account email failed');
  }
}
