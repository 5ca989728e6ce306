// The body of PATCH /api/v1/company → the profile patch it asks for, checked as the emisor of the
// company's documents (domain/party-rules.ts validateEmisorFields: the XSD facets, the territorial
// division, NumTelefono) with the fields named as the body names them. The whole profile as it
// would be after the change is checked, so a change cannot leave the emisor unusable.
import type { Static } from 'typebox';
import type { Company } from '../../../db/models/index.ts';
import type { CompanyProfilePatch, EmailDeliverySettings } from '../../../db/queries/companies.ts';
import { isEmailAddress, validateEmailDelivery } from '../../../domain/company-setup.ts';
import type { FieldError } from '../../../domain/errors.ts';
import { validateEmisorFields } from '../../../domain/party-rules.ts';
import { validationError } from '../../errors.ts';
import type { UpdateCompanyBody } from '../../schemas/company.ts';

export type UpdateCompany = Static<typeof UpdateCompanyBody>;

const trimmed = (s: string | null | undefined) => (typeof s === 'string' ? s.trim() : s);

/** The profile fields of the body (undefined: not asked to change). */
function patchOf(body: UpdateCompany): CompanyProfilePatch {
  const loc = body.location;
  const emails = body.email !== undefined ? [body.email.trim()] : body.emails?.map((e) => e.trim());
  return {
    name: body.name?.trim(),
    legalName: body.legal_name?.trim(),
    commercialName: trimmed(body.commercial_name),
    activityCode: body.activity_code,
    ...(loc
      ? {
          provincia: loc.provincia,
          canton: loc.canton,
          distrito: loc.distrito,
          barrio: trimmed(loc.barrio) ?? null,
          otrasSenas: loc.otras_senas.trim(),
        }
      : {}),
    ...(body.phone === null
      ? { phone: null, phoneCountry: null }
      : body.phone
        ? { phone: body.phone.number, phoneCountry: body.phone.country_code ?? '506' }
        : {}),
    emails,
    defaultBranch: body.default_branch,
    defaultTerminal: body.default_terminal,
  };
}

/** validateEmisorFields' paths → the body's. */
function bodyPath(path: string, body: UpdateCompany): string {
  if (['/provincia', '/canton', '/distrito', '/barrio', '/otras_senas'].includes(path))
    return `/location${path}`;
  if (path === '/phone') return '/phone/number';
  if (path === '/phone_country_code') return '/phone/country_code';
  if (path.startsWith('/emails') && body.email !== undefined) return '/email';
  return path;
}

export interface ProfileChange {
  patch: CompanyProfilePatch;
  email: EmailDeliverySettings | null;
}

/** The change the body asks for, or 422 validation_failed naming every field at fault. */
export function profileChange(company: Company, body: UpdateCompany): ProfileChange {
  const errors: FieldError[] = [];
  if (body.email !== undefined && body.emails !== undefined)
    errors.push({ path: '/email', code: 'conflicting_fields', message: 'give email or emails, not both' });
  const patch = patchOf(body);
  const pick = <K extends keyof CompanyProfilePatch>(k: K) =>
    patch[k] !== undefined ? patch[k] : company[k];
  const emisorErrors = validateEmisorFields({
    legalName: pick('legalName'),
    commercialName: pick('commercialName'),
    activityCode: pick('activityCode'),
    provincia: pick('provincia'),
    canton: pick('canton'),
    distrito: pick('distrito'),
    barrio: pick('barrio'),
    otrasSenas: pick('otrasSenas'),
    phone: pick('phone'),
    phoneCountry: pick('phoneCountry'),
    emails: pick('emails') ?? [],
  });
  errors.push(...emisorErrors.map((e) => ({ ...e, path: bodyPath(e.path, body) })));
  (patch.emails ?? []).forEach((e, i) => {
    if (e.length >= 3 && !isEmailAddress(e))
      errors.push({
        path: body.email !== undefined ? '/email' : `/emails/${i}`,
        code: 'invalid_format',
        message: 'not an email address',
      });
  });
  if (patch.name !== undefined && patch.name.length < 3)
    errors.push({ path: '/name', code: 'too_short', message: 'at least 3 characters' });
  const d = body.email_delivery;
  const email = d
    ? { enabled: d.enabled, replyTo: d.reply_to?.trim() ?? d.reply_to, bcc: d.bcc?.map((a) => a.trim()) }
    : null;
  if (email) errors.push(...validateEmailDelivery(email, '/email_delivery'));
  if (errors.length) throw validationError(errors);
  return { patch, email };
}
