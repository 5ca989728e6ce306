// The caches of Hacienda's public data: taxpayers looked up (found or not) and the dollar's
// reference rate per Costa Rica day. Rows are written by the first answer and replaced by a later
// one (a taxpayer re-asked once its cache time has passed).
import type { Knex } from 'knex';

export interface CachedTaxpayer {
  found: boolean;
  data: unknown;
  fetchedAt: Date;
}

/** The cached answer for a number, if younger than maxAgeSeconds. */
export async function cachedTaxpayer(
  db: Knex,
  idNumber: string,
  maxAgeSeconds: number,
): Promise<CachedTaxpayer | null> {
  const row = (await db('taxpayer_lookups')
    .where({ idNumber })
    .where('fetchedAt', '>', db.raw(`now() - make_interval(secs => ?)`, [maxAgeSeconds]))
    .first('found', 'data', 'fetchedAt')) as CachedTaxpayer | undefined;
  return row ?? null;
}

/** Stores an answer; returns when it is said to have been fetched (the database's clock). */
export async function saveTaxpayer(db: Knex, idNumber: string, found: boolean, data: unknown): Promise<Date> {
  const [row] = (await db('taxpayer_lookups')
    .insert({ idNumber, found, data: data === null ? null : JSON.stringify(data), fetchedAt: db.fn.now() })
    .onConflict('idNumber')
    .merge()
    .returning('fetchedAt')) as { fetchedAt: Date }[];
  return new Date(row!.fetchedAt);
}

export interface ExchangeRateRow {
  currency: string;
  /** YYYY-MM-DD */
  rateDate: string;
  buy: string;
  sell: string;
  source: string;
  fetchedAt: Date;
}

export async function cachedExchangeRate(
  db: Knex,
  currency: string,
  date: string,
): Promise<ExchangeRateRow | null> {
  const row = (await db('exchange_rates')
    .where({ currency, rateDate: date })
    .first(
      'currency',
      db.raw(`to_char(rate_date, 'YYYY-MM-DD') as rate_date`),
      'buy',
      'sell',
      'source',
      'fetchedAt',
    )) as ExchangeRateRow | undefined;
  return row ?? null;
}

/** Keeps the first rate stored for a day (a day's reference rate does not change). */
export async function saveExchangeRate(
  db: Knex,
  r: Omit<ExchangeRateRow, 'fetchedAt'>,
): Promise<ExchangeRateRow> {
  await db('exchange_rates')
    .insert({ currency: r.currency, rateDate: r.rateDate, buy: r.buy, sell: r.sell, source: r.source })
    .onConflict(['currency', 'rateDate'])
    .ignore();
  return (await cachedExchangeRate(db, r.currency, r.rateDate))!;
}
