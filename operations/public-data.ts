// Hacienda's public data through its caches: a taxpayer is asked of Hacienda at most once per
// cache time (found or not), a day's dollar rate once for good. A cached answer is served without
// calling Hacienda; when Hacienda cannot be reached and nothing is cached, the caller gets
// PublicDataUnavailableError (and says so: 503), never a guess.
import type { Knex } from 'knex';
import {
  cachedExchangeRate,
  cachedTaxpayer,
  saveExchangeRate,
  saveTaxpayer,
  type ExchangeRateRow,
} from '../db/queries/public-data.ts';
import { formatCrDate } from '../domain/cr-time.ts';
import type { Config } from '../config/index.ts';
import {
  activityRegistered,
  createPublicDataClient,
  PublicDataNotFoundError,
  taxpayerQueryNumber,
  type PublicDataClient,
  type Taxpayer,
  type TaxpayerActivity,
} from '../hacienda/public-data/index.ts';

export interface PublicDataAccess {
  client: PublicDataClient;
  taxpayerCacheSeconds: number;
}

const access = new WeakMap<Config, PublicDataAccess>();

/** The client of a configuration's public services (one per configuration, shared). */
export function publicDataOf(config: Config): PublicDataAccess {
  let a = access.get(config);
  if (!a) {
    a = {
      client: createPublicDataClient({
        baseUrl: config.hacienda.publicApiUrl,
        timeoutMs: config.hacienda.publicTimeoutMs,
      }),
      taxpayerCacheSeconds: config.hacienda.taxpayerCacheSeconds,
    };
    access.set(config, a);
  }
  return a;
}

/** Where a rate taken from Hacienda is said to come from (invoices' exchange_rate_source). */
export const HACIENDA_RATE_SOURCE = 'hacienda_bccr';

export interface TaxpayerLookup {
  taxpayer: Taxpayer;
  /** When Hacienda gave the answer (earlier than now when it came from the cache). */
  fetchedAt: Date;
  cached: boolean;
}

/** The taxpayer of a number: PublicDataNotFoundError when Hacienda does not know it. */
export async function lookupTaxpayer(
  db: Knex,
  pd: PublicDataAccess,
  number: string,
): Promise<TaxpayerLookup> {
  const key = taxpayerQueryNumber(number);
  if (!key) throw new PublicDataNotFoundError(`${number} is not a number Hacienda's register can hold`);
  const cached = await cachedTaxpayer(db, key, pd.taxpayerCacheSeconds);
  if (cached) {
    if (!cached.found) throw new PublicDataNotFoundError(`Hacienda does not know ${key}`);
    return { taxpayer: cached.data as Taxpayer, fetchedAt: new Date(cached.fetchedAt), cached: true };
  }
  try {
    const taxpayer = await pd.client.taxpayer(key);
    const fetchedAt = await saveTaxpayer(db, key, true, taxpayer);
    return { taxpayer, fetchedAt, cached: false };
  } catch (err) {
    if (err instanceof PublicDataNotFoundError) await saveTaxpayer(db, key, false, null);
    throw err;
  }
}

/** The dollar's reference rate of a Costa Rica day (default: today), cached for good. */
export async function usdRate(
  db: Knex,
  pd: PublicDataAccess,
  date: string | null,
  now = new Date(),
): Promise<ExchangeRateRow> {
  const today = formatCrDate(now);
  const day = date ?? today;
  const cached = await cachedExchangeRate(db, 'USD', day);
  if (cached) return cached;
  const rate = await pd.client.usdRate(day, today);
  return saveExchangeRate(db, {
    currency: 'USD',
    rateDate: rate.date,
    buy: rate.buy,
    sell: rate.sell,
    source: HACIENDA_RATE_SOURCE,
  });
}

/**
 * A dollar document without an exchange rate takes the reference sell rate of its Costa Rica issue
 * day (now): the request is returned with the rate and its source. Any other request is returned
 * as it came. Throws PublicDataUnavailableError / PublicDataNotFoundError when no rate can be had,
 * before anything is numbered.
 */
export async function withDayRate<
  R extends { currency: string | null; exchangeRate: string | null; exchangeRateSource?: string | null },
>(
  db: Knex,
  pd: PublicDataAccess,
  defaultCurrency: string,
  req: R,
  now = new Date(),
  /** Rates already asked for, by day: a batch chunk reads the day's rate once for all its items. */
  asked = new Map<string, Promise<ExchangeRateRow>>(),
): Promise<R> {
  if ((req.currency ?? defaultCurrency) !== 'USD' || req.exchangeRate !== null) return req;
  const day = formatCrDate(now);
  if (!asked.has(day)) asked.set(day, usdRate(db, pd, day, now));
  const rate = await asked.get(day)!;
  return { ...req, exchangeRate: rate.sell, exchangeRateSource: rate.source };
}

export class ActivityNotRegisteredError extends Error {
  constructor(
    readonly code: string,
    readonly registered: TaxpayerActivity[],
  ) {
    super(`activity ${code} is not registered`);
    this.name = 'ActivityNotRegisteredError';
  }
}

/**
 * An activity code a company wants on its documents must be one of its active activities in
 * Hacienda's register. Not found, or unreachable with nothing cached, is the caller's to say
 * (PublicDataNotFoundError, PublicDataUnavailableError): never accepted silently.
 */
export async function checkActivityRegistered(
  db: Knex,
  pd: PublicDataAccess,
  idNumber: string,
  code: string,
): Promise<void> {
  const { taxpayer } = await lookupTaxpayer(db, pd, idNumber);
  const active = taxpayer.activities.filter((a) => a.status === 'A');
  if (!activityRegistered(code, active)) throw new ActivityNotRegisteredError(code, active);
}
