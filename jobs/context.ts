// What every job handler gets (graphile's `(payload, helpers)` habit): the database, a logger,
// configuration, Hacienda clients per (company, environment), signers per company key, a clock.
// External systems are reached only through here, so tests can point them at the simulator.
import type { Job } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { companyCredentials, type CredentialsRow } from '../db/queries/credentials.ts';
import {
  createReceptionClient,
  createTokenPool,
  type ReceptionClient,
  type TokenPool,
} from '../hacienda/client/index.ts';
import { open, openSigningMaterial } from '../hacienda/secret-box.ts';
import { createSigner, type XadesSigner } from '../hacienda/signer.ts';
import type { Limiter } from '../platform/map-limit.ts';
import { instrumentReception } from './reception-metrics.ts';

export interface JobContext {
  db: Knex;
  log: Logger;
  config: Config;
  hacienda: HaciendaAccess;
  now: () => Date;
  /** Status polling schedule: first delay and cap, in ms. */
  statusPoll: { baseMs: number; maxMs: number };
  /**
   * Calls to Hacienda in flight from this process, across every job (chunks send and poll side by
   * side; this keeps a process's burst within what Hacienda and the connection pool take).
   */
  haciendaCalls: Limiter;
  /** After a status job put itself to sleep: wakes it again if Hacienda's callback came meanwhile. */
  wakeIfNoted?: (job: Job) => Promise<boolean>;
}

export class MissingCredentialsError extends Error {}

/**
 * A signer or a reception client of a company's mode. `stamp` is when the company last saved those
 * credentials (`company_credentials.updated_at`, null: none), when the caller read it with its own
 * rows (db/queries/invoice-flow.ts): what was opened from credentials with the same stamp is used
 * again without reading them. Without a stamp (or with a new one), the credentials are read.
 */
export interface HaciendaAccess {
  signer(companyId: number, livemode: boolean, stamp?: Date | null): Promise<XadesSigner>;
  reception(companyId: number, livemode: boolean, stamp?: Date | null): Promise<ReceptionClient>;
}

type Opened<T> = Map<string, { stamp: number; value: T }>;
/** What `cache` holds for `key` opened from credentials saved at `stamp`, if anything. */
function openedAt<T>(cache: Opened<T>, key: string, stamp: Date | null | undefined): T | undefined {
  const hit = stamp ? cache.get(key) : undefined;
  return hit && hit.stamp === stamp!.getTime() ? hit.value : undefined;
}

/** Signers and reception clients cached per company key, renewed when credentials change. */
export function createHaciendaAccess(db: Knex, config: Config): HaciendaAccess {
  const signers: Opened<Promise<XadesSigner>> = new Map();
  const receptions: Opened<ReceptionClient> = new Map();
  const pool: TokenPool = createTokenPool();
  const load = async (companyId: number, livemode: boolean): Promise<CredentialsRow> => {
    const row = await companyCredentials(db, companyId, livemode);
    if (!row)
      throw new MissingCredentialsError(
        `company ${companyId} has no ${livemode ? 'live' : 'sandbox'} credentials`,
      );
    return row;
  };
  return {
    async signer(companyId, livemode, known) {
      const key = `${companyId}:${livemode}`;
      const opened = openedAt(signers, key, known);
      if (opened) return opened;
      const row = await load(companyId, livemode);
      if (!row.signingKeyEnc)
        throw new MissingCredentialsError(`company ${companyId} has no signing certificate`);
      const stamp = new Date(row.updatedAt).getTime();
      const cached = signers.get(key);
      if (cached && cached.stamp === stamp) return cached.value;
      const signer = createSigner(openSigningMaterial(config.secretsKey, row.signingKeyEnc));
      signers.set(key, { stamp, value: signer });
      return signer;
    },
    async reception(companyId, livemode, known) {
      const key = `${companyId}:${livemode}`;
      const opened = openedAt(receptions, key, known);
      if (opened) return opened;
      const row = await load(companyId, livemode).catch((err: unknown) => {
        if (err instanceof MissingCredentialsError && !livemode) return null;
        throw err;
      });
      const env = livemode ? config.hacienda.production : config.hacienda.sandbox;
      let username = row?.haciendaUsername ?? null;
      let password = row?.haciendaPasswordEnc
        ? open(config.secretsKey, row.haciendaPasswordEnc).toString('utf8')
        : null;
      if (!username || !password) {
        if (livemode)
          throw new MissingCredentialsError(`company ${companyId} has no Hacienda API credentials (live)`);
        // Sandbox without configured credentials: the local simulator accepts any user.
        username = `sandbox-${companyId}@stag.comprobanteselectronicos.go.cr`;
        password = 'sandbox';
      }
      const tokens = pool.get(
        { companyId: String(companyId), environment: livemode ? 'production' : 'sandbox' },
        { idpUrl: env.idpUrl, clientId: env.clientId, username, password },
      );
      const client = instrumentReception(
        createReceptionClient({
          apiUrl: env.apiUrl,
          tokens,
          postTimeoutMs: config.hacienda.postTimeoutMs,
          getTimeoutMs: config.hacienda.getTimeoutMs,
        }),
        livemode ? 'production' : 'sandbox',
      );
      if (row) receptions.set(key, { stamp: new Date(row.updatedAt).getTime(), value: client });
      return client;
    },
  };
}
