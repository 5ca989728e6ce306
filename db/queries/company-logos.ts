// A company's logo (see the company_setup migration): one row per company, its bytes with their
// content type, size in pixels and SHA-256 (the PDF cache key carries it).
import type { Knex } from 'knex';

export interface CompanyLogo {
  contentType: string;
  data: Buffer;
  sha256: string;
  width: number;
  height: number;
  updatedAt: Date;
}

export async function getCompanyLogo(db: Knex, companyId: number): Promise<CompanyLogo | undefined> {
  return (await db('company_logos')
    .where({ companyId })
    .first('contentType', 'data', 'sha256', 'width', 'height', 'updatedAt')) as CompanyLogo | undefined;
}

/** The logo's digest only (what the PDF cache key needs), without its bytes. */
export async function companyLogoDigest(db: Knex, companyId: number): Promise<string | null> {
  const row = (await db('company_logos').where({ companyId }).first('sha256')) as
    { sha256: string } | undefined;
  return row?.sha256 ?? null;
}

export async function saveCompanyLogo(
  db: Knex,
  companyId: number,
  logo: Omit<CompanyLogo, 'updatedAt'>,
): Promise<void> {
  await db('company_logos')
    .insert({ companyId, ...logo })
    .onConflict('company_id')
    .merge(['content_type', 'data', 'sha256', 'width', 'height', 'updated_at']);
}

export async function deleteCompanyLogo(db: Knex, companyId: number): Promise<void> {
  await db('company_logos').where({ companyId }).delete();
}
