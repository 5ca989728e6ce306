// Company credentials per mode: the sealed signing key (from the .p12) with the certificate's
// public facts, and the Hacienda API user with its sealed password. Callers seal; this module
// never sees a secret in clear.
import type { Knex } from 'knex';

export async function saveSigningKey(
  db: Knex,
  companyId: number,
  livemode: boolean,
  sealed: Buffer,
  certificate: { subject: string; notAfter: Date },
): Promise<void> {
  await db('company_credentials')
    .insert({
      companyId,
      livemode,
      signingKeyEnc: sealed,
      certificateSubject: certificate.subject,
      certificateNotAfter: certificate.notAfter,
    })
    .onConflict(['company_id', 'livemode'])
    .merge(['signing_key_enc', 'certificate_subject', 'certificate_not_after', 'updated_at']);
}

export async function saveHaciendaCredentials(
  db: Knex,
  companyId: number,
  livemode: boolean,
  username: string,
  sealedPassword: Buffer,
  /** When Hacienda's IDP accepted them (null: stored untested, as the command-line tool does). */
  verifiedAt: Date | null = null,
): Promise<void> {
  await db('company_credentials')
    .insert({
      companyId,
      livemode,
      haciendaUsername: username,
      haciendaPasswordEnc: sealedPassword,
      haciendaVerifiedAt: verifiedAt,
    })
    .onConflict(['company_id', 'livemode'])
    .merge(['hacienda_username', 'hacienda_password_enc', 'hacienda_verified_at', 'updated_at']);
}

/** The stored credentials of the mode were tested: accepted (now) or refused (null). */
export async function setHaciendaVerified(
  db: Knex,
  companyId: number,
  livemode: boolean,
  verifiedAt: Date | null,
): Promise<void> {
  await db('company_credentials').where({ companyId, livemode }).update({ haciendaVerifiedAt: verifiedAt });
}

export interface CredentialsRow {
  signingKeyEnc: Buffer | null;
  certificateNotAfter: Date | null;
  haciendaVerifiedAt: Date | null;
  haciendaUsername: string | null;
  haciendaPasswordEnc: Buffer | null;
  updatedAt: Date;
}

/** A company's sealed credentials for one mode (live or sandbox), if it has any. */
export async function companyCredentials(
  db: Knex,
  companyId: number,
  livemode: boolean,
): Promise<CredentialsRow | undefined> {
  return (await db('company_credentials').where({ companyId, livemode }).first()) as
    CredentialsRow | undefined;
}
