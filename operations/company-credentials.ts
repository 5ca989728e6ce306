// A company's credentials as the API and the command-line tool store them: the signing key of its
// .p12 (checked by hacienda/signing-key.ts openCompanyP12, sealed with SECRETS_KEY, its
// certificate's subject and expiry in clear) and its Hacienda API user (the password sealed),
// tested against Hacienda's IDP of the mode first when asked to.
import type { Knex } from 'knex';
import type { Config } from '../config/index.ts';
import { saveHaciendaCredentials, saveSigningKey } from '../db/queries/credentials.ts';
import { checkHaciendaCredentials } from '../hacienda/client/credentials-check.ts';
import { seal, sealSigningMaterial } from '../hacienda/secret-box.ts';
import { certificateInfo, type CertificateInfo, type SigningMaterial } from '../hacienda/signing-key.ts';

/** Seals and stores the signing key of one mode; answers its certificate's public facts. */
export async function storeSigningMaterial(
  db: Knex,
  secretsKey: Buffer,
  companyId: number,
  livemode: boolean,
  material: SigningMaterial,
): Promise<CertificateInfo> {
  const info = certificateInfo(material.certificateChain[0]!);
  await saveSigningKey(db, companyId, livemode, sealSigningMaterial(secretsKey, material), {
    subject: info.subject,
    notAfter: info.notAfter,
  });
  return info;
}

/** Asks the IDP of the mode (the sandbox simulator's, or production's) to accept the user. */
export async function verifyHaciendaCredentials(
  hacienda: Config['hacienda'],
  livemode: boolean,
  username: string,
  password: string,
): Promise<void> {
  const env = livemode ? hacienda.production : hacienda.sandbox;
  await checkHaciendaCredentials({ idpUrl: env.idpUrl, clientId: env.clientId, username, password });
}

/** Seals and stores the API user of one mode, with when the IDP accepted it (null: untested). */
export async function storeHaciendaCredentials(
  db: Knex,
  secretsKey: Buffer,
  companyId: number,
  livemode: boolean,
  credentials: { username: string; password: string; verifiedAt: Date | null },
): Promise<void> {
  const sealed = seal(secretsKey, Buffer.from(credentials.password, 'utf8'));
  await saveHaciendaCredentials(
    db,
    companyId,
    livemode,
    credentials.username,
    sealed,
    credentials.verifiedAt,
  );
}
