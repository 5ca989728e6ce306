// Database rows → public API objects (snake_case, prefixed ids, money as decimal strings), shared
// by the API and the command-line tool so both print the same shapes.
import { Decimal } from 'decimal.js';
import type { KeyWithSecrets } from './queries/api-keys.ts';
import type { Client, Company, Service } from './models/index.ts';
import type { CredentialSummary } from './queries/companies.ts';
import { redactedKey } from '../domain/api-key-secret.ts';
import { formatId } from '../domain/ids.ts';
import { isUnidadMedida, unitKind } from '../domain/codes.ts';

export const money2 = (v: string | number): string => new Decimal(v).toFixed(2, Decimal.ROUND_HALF_UP);

export function clientObject(c: Client) {
  return {
    id: formatId('client', c.id),
    object: 'client' as const,
    uuid: c.uuid,
    cedula: c.idNumber,
    identification_type: c.idType,
    name: c.name,
    commercial_name: c.commercialName,
    email: c.email,
    phone: c.phone,
    phone_country_code: c.phoneCountry,
    activity_code: c.activityCode,
    addresses: (c.addresses ?? []).map((a) => ({
      provincia: a.provincia,
      canton: a.canton,
      distrito: a.distrito,
      barrio: a.barrio,
      otras_senas: a.otrasSenas,
    })),
    balance: money2(c.balance),
    metadata: c.metadata,
    livemode: c.livemode,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function serviceObject(s: Service) {
  return {
    id: formatId('service', s.id),
    object: 'service' as const,
    uuid: s.uuid,
    cabys: s.cabys,
    description: s.description,
    unit: s.unit,
    kind: isUnidadMedida(s.unit) ? unitKind(s.unit) : 'goods',
    tax_code: s.taxCode,
    iva_rate_code: s.ivaRateCode,
    price: new Decimal(s.price).toFixed(2),
    commercial_code: s.commercialCode,
    livemode: s.livemode,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function keyObject(k: KeyWithSecrets) {
  const current = k.secrets[0];
  return {
    id: formatId('apiKey', k.id),
    object: 'api_key' as const,
    name: k.name,
    scopes: k.scopes,
    livemode: k.livemode,
    redacted: redactedKey(k.livemode, current?.last4 ?? '????'),
    secrets: k.secrets.map((s) => ({
      last4: s.last4,
      created_at: s.createdAt.toISOString(),
      expires_at: s.expiresAt ? s.expiresAt.toISOString() : null,
    })),
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}

export function companyObject(c: Company, livemode: boolean, credentials: CredentialSummary[]) {
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
    certificate: cred?.hasSigningKey
      ? {
          subject: cred.certificateSubject,
          not_after: cred.certificateNotAfter ? cred.certificateNotAfter.toISOString() : null,
        }
      : null,
    hacienda_credentials_configured: Boolean(cred?.haciendaUsername && cred.hasHaciendaPassword),
    created_at: c.createdAt.toISOString(),
  };
}
