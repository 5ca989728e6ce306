// Whether a company may issue documents in a mode: it needs its emisor data and a signing key
// (plus Hacienda API credentials in live mode). Every route that issues (invoices, purchases,
// notes, credit notes of outside documents, drafts sent, payment receipts) asks this one policy.
// The issuing company and a passed check are cached for a few seconds per (company, mode): high-
// volume issuers would otherwise read the same two rows on every request. A changed certificate
// or profile is seen within ISSUER_TTL_MS; a refusal is never cached.
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import { credentialSummaries, getCompany } from '../db/queries/companies.ts';
import { missingEmisorData } from '../db/queries/invoice-prepare.ts';
import type { Company } from '../db/models/index.ts';
import type { AuthContext } from './auth.ts';
import { ApiError } from './errors.ts';

export const ISSUER_TTL_MS = 5_000;

/** Refuses (409 company_incomplete, naming what is missing) a company that cannot issue in the mode. */
async function checkCanIssue(db: Knex, company: Company, auth: AuthContext): Promise<void> {
  const missing = missingEmisorData(company);
  const cred = (await credentialSummaries(db, company.id)).find((c) => c.livemode === auth.livemode);
  if (!cred?.hasSigningKey) missing.push(`signing certificate (${auth.livemode ? 'live' : 'sandbox'})`);
  if (auth.livemode && !(cred?.haciendaUsername && cred.hasHaciendaPassword))
    missing.push('Hacienda API credentials (live)');
  if (missing.length) {
    throw new ApiError('company_incomplete', `The company cannot issue yet; missing: ${missing.join(', ')}`, {
      fields: { missing },
    });
  }
}

export class IssuingPolicy {
  private readonly companies = new Map<number, { at: number; company: Company }>();
  private readonly ready = new Map<string, number>();

  constructor(private readonly db: Knex) {}

  /** The caller's company (cached for ISSUER_TTL_MS). */
  async company(auth: AuthContext): Promise<Company> {
    const hit = this.companies.get(auth.companyId);
    if (hit && Date.now() - hit.at < ISSUER_TTL_MS) return hit.company;
    const company = (await getCompany(this.db, auth.companyId))!;
    this.companies.set(auth.companyId, { at: Date.now(), company });
    return company;
  }

  /** Throws 409 company_incomplete unless the company may issue in the caller's mode. */
  async assertCanIssue(company: Company, auth: AuthContext): Promise<void> {
    const key = `${company.id}:${auth.livemode}`;
    const at = this.ready.get(key);
    if (at && Date.now() - at < ISSUER_TTL_MS) return;
    await checkCanIssue(this.db, company, auth);
    this.ready.set(key, Date.now());
  }

  /**
   * The caller's company, once it is known to be able to issue. A refusal is confirmed against
   * the company read afresh, so a profile completed a moment ago is never refused from the cache.
   */
  async issuer(auth: AuthContext): Promise<Company> {
    const cached = this.companies.has(auth.companyId);
    const company = await this.company(auth);
    try {
      await this.assertCanIssue(company, auth);
      return company;
    } catch (err) {
      if (!cached) throw err;
      this.companies.delete(auth.companyId);
      const fresh = await this.company(auth);
      await this.assertCanIssue(fresh, auth);
      return fresh;
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The issuing policy of this app (one cache per app). */
    issuing: IssuingPolicy;
  }
}

export function registerIssuingPolicy(app: FastifyInstance, db: Knex): void {
  app.decorate('issuing', new IssuingPolicy(db));
}
