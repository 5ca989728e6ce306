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
): Promise<void> {
  await db('company_credentials')
    .insert({ companyId, livemode, haciendaUsername: username, haciendaPasswordEnc: sealedPassword })
    .onConflict(['company_id', 'livemode'])
    .merge(['hacienda_username', 'hacienda_password_enc', 'updated_at']);
}

export interface CredentialsRow {
  signingKeyEnc: Buffer | null;
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
