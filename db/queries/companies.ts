// Companies (tenants): creation from the command-line tool and reads for the API.
import type { Knex } from 'knex';
import { Company } from '../models/index.ts';

export interface CompanyInput {
  name: string;
  plan: string;
  legalName: string;
  commercialName?: string | null;
  idType: string;
  idNumber: string;
  activityCode?: string | null;
  provincia?: string | null;
  canton?: string | null;
  distrito?: string | null;
  barrio?: string | null;
  otrasSenas?: string | null;
  phoneCountry?: string | null;
  phone?: string | null;
  emails?: string[];
  defaultBranch?: string;
  defaultTerminal?: string;
  rateLimitPerSecond?: number | null;
  demo?: boolean;
}

export async function createCompany(db: Knex, input: CompanyInput): Promise<Company> {
  return Company.query(db).insertAndFetch(input);
}

export async function getCompany(db: Knex, id: number): Promise<Company | undefined> {
  return Company.query(db).findById(id);
}

export async function listCompanies(db: Knex): Promise<Company[]> {
  return Company.query(db).orderBy('id');
}

export interface CredentialSummary {
  livemode: boolean;
  certificateSubject: string | null;
  certificateNotAfter: Date | null;
  hasSigningKey: boolean;
  haciendaUsername: string | null;
  hasHaciendaPassword: boolean;
}

/** Public facts about a company's credentials; never the secrets themselves. */
export async function credentialSummaries(db: Knex, companyId: number): Promise<CredentialSummary[]> {
  return db('company_credentials')
    .where({ companyId })
    .orderBy('livemode')
    .select(
      'livemode',
      'certificate_subject',
      'certificate_not_after',
      db.raw('signing_key_enc is not null as has_signing_key'),
      'hacienda_username',
      db.raw('hacienda_password_enc is not null as has_hacienda_password'),
    );
}
