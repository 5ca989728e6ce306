// A company and its credentials' summaries → the public `company` object as one mode sees it
// (schema CompanyObject, api/schemas/company.ts). Never a secret: whether a certificate and
// Hacienda credentials are configured, and the certificate's subject and expiry.
import type { Static } from 'typebox';
import type { Company } from '../../db/models/index.ts';
import type { CredentialSummary } from '../../db/queries/companies.ts';
import { formatId } from '../../domain/ids.ts';
import type { CompanyObject } from '../schemas/company.ts';

export type CompanyJson = Static<typeof CompanyObject>;

export function companyObject(c: Company, livemode: boolean, credentials: CredentialSummary[]): CompanyJson {
  const cred = credentials.find((x) => x.livemode === livemode);
  return {
    id: formatId('company', c.id),
    object: 'company' as const,
    name: c.name,
    plan: c.plan,
    livemode,
    emisor: {
      legal_name: c.legalName,
      commercial_name: c.commercialName,
      identification: { type: c.idType, number: c.idNumber },
      activity_code: c.activityCode,
      location: {
        provincia: c.provincia,
        canton: c.canton,
        distrito: c.distrito,
        barrio: c.barrio,
        otras_senas: c.otrasSenas,
      },
      phone: c.phone ? { country_code: c.phoneCountry ?? '506', number: c.phone } : null,
      emails: c.emails,
    },
    defaults: { branch: c.defaultBranch, terminal: c.defaultTerminal, currency: c.defaultCurrency },
    rate_limit_per_second: c.rateLimitPerSecond,
    email_delivery: {
      enabled: c.emailEnabled ?? false,
      reply_to: c.emailReplyTo ?? c.emails[0] ?? null,
      bcc: c.emailBcc ?? [],
    },
    certificate: cred?.hasSigningKey
      ? {
          subject: cred.certificateSubject,
          not_after: cred.certificateNotAfter ? cred.certificateNotAfter.toISOString() : null,
        }
      : null,
    hacienda_credentials_configured: Boolean(cred?.haciendaUsername && cred.hasHaciendaPassword),
    live_enabled: c.liveEnabledAt != null,
    created_at: c.createdAt.toISOString(),
  };
}
