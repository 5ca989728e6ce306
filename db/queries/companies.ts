// Companies (tenants): creation from the command-line tool and reads for the API.
import type { Knex } from 'knex';
import { DEFAULT_CHART } from '../../domain/chart-of-accounts.ts';
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

/** Creates the company with its chart of accounts, for both modes, in one transaction. */
export async function createCompany(db: Knex, input: CompanyInput): Promise<Company> {
  return db.transaction(async (trx) => {
    const company = await Company.query(trx).insertAndFetch(input);
    await seedChartOfAccounts(trx, company.id);
    return company;
  });
}

export async function seedChartOfAccounts(trx: Knex, companyId: number): Promise<void> {
  const rows = [false, true].flatMap((livemode) => DEFAULT_CHART.map((a) => ({ companyId, livemode, ...a })));
  await trx('accounts').insert(rows).onConflict(['company_id', 'livemode', 'code']).ignore();
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

export interface EmailDeliverySettings {
  enabled?: boolean;
  replyTo?: string | null;
  bcc?: string[];
}

/** Whether accepted documents are emailed to their receptor, the reply-to and blind copies. */
export async function setEmailDelivery(db: Knex, companyId: number, s: EmailDeliverySettings): Promise<void> {
  const patch: Record<string, unknown> = { updatedAt: db.fn.now() };
  if (s.enabled !== undefined) patch.emailEnabled = s.enabled;
  if (s.replyTo !== undefined) patch.emailReplyTo = s.replyTo;
  if (s.bcc !== undefined) patch.emailBcc = JSON.stringify(s.bcc);
  await db('companies').where({ id: companyId }).update(patch);
}

/** A company's identification (as emisor of its documents, or receptor of an answer). */
export async function companyIdentification(
  db: Knex,
  id: number,
): Promise<{ idType: string; idNumber: string }> {
  return (await db('companies').where({ id }).first('id_type', 'id_number')) as {
    idType: string;
    idNumber: string;
  };
}

/** What numbering a company's own document needs: its identification and default branch and terminal. */
export async function companyNumbering(
  db: Knex,
  id: number,
): Promise<{ idNumber: string; defaultBranch: string; defaultTerminal: string }> {
  return (await db('companies').where({ id }).first('idNumber', 'defaultBranch', 'defaultTerminal')) as {
    idNumber: string;
    defaultBranch: string;
    defaultTerminal: string;
  };
}

/** The fields of the company's profile a caller may change (the identification never changes). */
export type CompanyProfilePatch = Partial<
  Pick<
    CompanyInput,
    | 'name'
    | 'legalName'
    | 'commercialName'
    | 'activityCode'
    | 'provincia'
    | 'canton'
    | 'distrito'
    | 'barrio'
    | 'otrasSenas'
    | 'phoneCountry'
    | 'phone'
    | 'emails'
    | 'defaultBranch'
    | 'defaultTerminal'
  >
>;

/** Changes the profile fields given (undefined: left as they are). */
export async function updateCompanyProfile(
  db: Knex,
  companyId: number,
  p: CompanyProfilePatch,
): Promise<void> {
  const patch: Record<string, unknown> = { updatedAt: db.fn.now() };
  for (const [k, v] of Object.entries(p)) if (v !== undefined) patch[k] = v;
  await db('companies').where({ id: companyId }).update(patch);
}

/** The company passed the go-live checklist; the first time is kept. Answers when. */
export async function enableLive(db: Knex, companyId: number): Promise<Date> {
  const [row] = (await db('companies')
    .where({ id: companyId })
    .update({ liveEnabledAt: db.raw('coalesce(live_enabled_at, now())'), updatedAt: db.fn.now() })
    .returning('liveEnabledAt')) as { liveEnabledAt: Date }[];
  return row!.liveEnabledAt;
}

/** Whether any sandbox document of the company was accepted by the Hacienda sandbox. */
export async function hasAcceptedSandboxDocument(db: Knex, companyId: number): Promise<boolean> {
  const row = await db('invoices').where({ companyId, livemode: false, status: 'aceptada' }).first('id');
  return row !== undefined;
}

/** The company's economic activity (CodigoActividadEmisor of its documents). */
export async function setActivityCode(db: Knex, companyId: number, code: string): Promise<void> {
  await db('companies').where({ id: companyId }).update({ activityCode: code, updatedAt: db.fn.now() });
}
