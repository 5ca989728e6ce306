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
import {
  PublicDataNotFoundError,
  taxpayerQueryNumber,
  type PublicDataClient,
  type Taxpayer,
} from '../hacienda/public-data/index.ts';

export interface PublicDataAccess {
  client: PublicDataClient;
  taxpayerCacheSeconds: number;
}

/** Where a rate taken from Hacienda is said to come from (invoices' exchange_rate_source). */
export const HACIENDA_RATE_SOURCE = 'hacienda_bccr';

/** The taxpayer of a number: PublicDataNotFoundError when Hacienda does not know it. */
export async function lookupTaxpayer(db: Knex, pd: PublicDataAccess, number: string): Promise<Taxpayer> {
  const key = taxpayerQueryNumber(number);
  if (!key) throw new PublicDataNotFoundError(`${number} is not a number Hacienda's register can hold`);
  const cached = await cachedTaxpayer(db, key, pd.taxpayerCacheSeconds);
  if (cached) {
    if (!cached.found) throw new PublicDataNotFoundError(`Hacienda does not know ${key}`);
    return cached.data as Taxpayer;
  }
  try {
    const taxpayer = await pd.client.taxpayer(key);
    await saveTaxpayer(db, key, true, taxpayer);
    return taxpayer;
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
